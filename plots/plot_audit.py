#!/usr/bin/python3
"""An audit: the empirical trade-off curve, its confidence band, the claimed
f and the witness point.

Inputs (formats of `fdp audit`, docs/cli.md):
  --curve FILE   `fdp audit --curve-out FILE`: alpha,tests_beta_lower,
                 beta_upper and beta_estimate (the empirical curve; if absent,
                 the middle of the band is not drawn as a line). Only the
                 upper edge bounds the true curve; the lower edge bounds the
                 curve of the tests the audit found.
  --json FILE    `fdp audit ... --json` (verdict, confidence, samples,
                 epsilon_lower, mu_lower, witness {alpha, beta, claim_beta})
  --claim SPEC   the claimed f, drawn with `fdp curve SPEC` (or --claim-curve
                 FILE: a curve CSV)

Example:
  fdp audit --mechanism gaussian:sigma=0.8 --input0 0 --input1 1 --claim gdp:mu=1 \\
      --curve-out audit.csv --json > audit.json
  /usr/bin/python3 plots/plot_audit.py --fdp build/tools/fdp \\
      --curve audit.csv --json audit.json --claim gdp:mu=1 -o plots/gallery/audit.png
"""

import argparse

import fdpplot as fp

EMP, CLAIM, WIT = fp.PALETTE[0], "#000000", "#D55E00"


def main():
    ap = argparse.ArgumentParser(
        description="Draw an fdp audit: empirical curve, confidence band, claim, "
                    "witness.",
        epilog="example: plot_audit.py --curve a.csv --json a.json "
               "--claim gdp:mu=1 --fdp build/tools/fdp -o audit.png")
    ap.add_argument("--curve", required=True, metavar="FILE",
                    help="fdp audit --curve-out CSV")
    ap.add_argument("--json", metavar="FILE", help="fdp audit --json output")
    ap.add_argument("--claim", metavar="SPEC", help="claimed f as a spec")
    ap.add_argument("--claim-curve", metavar="FILE", help="claimed f as a CSV")
    ap.add_argument("--claim-label", help="legend label of the claim")
    ap.add_argument("--fdp", metavar="PATH", help="the fdp binary (for --claim)")
    ap.add_argument("--no-zoom", action="store_true",
                    help="no inset around the witness")
    fp.add_output_args(ap, "audit.png")
    args = ap.parse_args()
    if args.claim and args.claim_curve:
        fp.fail("give at most one of --claim and --claim-curve")

    emp = fp.read_curve_csv(args.curve)
    res = fp.read_json(args.json) if args.json else {}
    if not isinstance(res, dict):
        fp.fail(f"{args.json}: expected a JSON object")
    claim = None
    if args.claim:
        claim = fp.curve_from_specs(fp.find_fdp(args.fdp), args.claim.split(), 401)
        claim.label = args.claim_label or f"claim: {fp.spec_label(args.claim)}"
    elif args.claim_curve:
        claim = fp.read_curve_csv(args.claim_curve)
        claim.label = args.claim_label or f"claim: {claim.label}"

    conf = (res.get("assumptions") or {}).get("confidence")
    conf_txt = f"{100 * conf:g}% " if isinstance(conf, (int, float)) else ""

    band_panel = emp.estimate is not None
    if band_panel:
        fig, (ax, bx) = fp.plt.subplots(1, 2, figsize=(11.0, 5.6),
                                        gridspec_kw={"width_ratios": [1, 0.9]})
    else:
        fig, ax = fp.plt.subplots(figsize=(5.6, 5.6))
    fp.tradeoff_axes(ax)

    def draw(ax, legend):
        ax.fill_between(emp.alpha, emp.lower, emp.upper, color=EMP, alpha=0.22,
                        lw=0, zorder=2,
                        label=(f"{conf_txt}band: certified upper edge, found tests' lower edge"
                               if legend else None))
        ax.plot(emp.alpha, emp.lower, color=EMP, lw=0.6, alpha=0.8, zorder=2)
        ax.plot(emp.alpha, emp.upper, color=EMP, lw=0.6, alpha=0.8, zorder=2)
        if emp.estimate is not None:
            ax.plot(emp.alpha, emp.estimate, color=EMP, lw=1.6, zorder=3,
                    label="empirical curve" if legend else None)
        if claim is not None:
            draw_c = claim.upper if claim.is_bracket else claim.lower
            ax.plot(claim.alpha, draw_c, color=CLAIM, lw=1.6, ls=(0, (5, 2)),
                    zorder=4, label=claim.label if legend else None)
        w = res.get("witness")
        if isinstance(w, dict) and w.get("alpha") is not None \
                and w.get("beta") is not None:
            wa, wb = float(w["alpha"]), float(w["beta"])
            cb = w.get("claim_beta")
            if cb is not None:
                ax.plot([wa, wa], [wb, float(cb)], color=WIT, lw=1.4, zorder=5)
                ax.plot([wa], [float(cb)], "_", color=WIT, ms=10, mew=1.6, zorder=5)
            ax.plot([wa], [wb], "*", color=WIT, ms=13, mec="white", mew=0.6,
                    zorder=6, label=("witness test" if legend else None))
        return w

    w = draw(ax, True)

    # Text: verdict and certified lower bounds.
    lines = []
    verdict = res.get("verdict")
    if verdict:
        lines.append(f"verdict: {verdict}")
    if isinstance(w, dict) and w.get("alpha") is not None:
        cb = w.get("claim_beta")
        s = rf"witness: $\alpha\leq{float(w['alpha']):.3g}$, $\beta\leq{float(w['beta']):.3g}$"
        if cb is not None:
            s += rf" (claim: $\beta\geq{float(cb):.3g}$)"
        lines.append(s)
    # fdp audit --json: lower bounds, as brackets with no upper end
    el = fp.answers(res, "epsilon")
    if el and el[0].get("lower") is not None:
        lines.append(rf"$\varepsilon\geq{el[0]['lower']:.3g}$ at "
                     rf"$\delta={fp.sci_tex(float(el[0].get('delta', 0)))}$")
    mu = res.get("mu")
    if isinstance(mu, dict) and mu.get("lower") is not None:
        lines.append(rf"$\mu\geq{mu['lower']:.3g}$")
    samples = res.get("samples")
    if isinstance(samples, list) and samples:
        lines.append("samples: " + " + ".join(f"{int(s):,}" for s in samples))
    if lines:
        ax.text(0.97, 0.97, "\n".join(lines), transform=ax.transAxes, ha="right",
                va="top", fontsize=9,
                bbox=dict(boxstyle="round,pad=0.35", fc="white", ec="0.7",
                          alpha=0.95))
    fp.legend_below(ax, fontsize=9)

    # Inset around the witness when the gap is small at full scale.
    if not args.no_zoom and isinstance(w, dict) and w.get("alpha") is not None \
            and w.get("claim_beta") is not None:
        wa, wb, cb = float(w["alpha"]), float(w["beta"]), float(w["claim_beta"])
        gap = abs(cb - wb)
        if gap < 0.03:
            half = max(4 * gap, 0.01)
            ins = ax.inset_axes([0.56, 0.44, 0.4, 0.32])
            draw(ins, False)
            ins.set_xlim(max(0, wa - half), min(1, wa + half))
            ins.set_ylim(max(0, min(wb, cb) - half), min(1, max(wb, cb) + half))
            ins.tick_params(labelsize=7)
            ins.grid(True, alpha=0.3)
            ins.set_facecolor("white")
            ax.indicate_inset_zoom(ins, edgecolor="0.5")
            # Keep the text box clear of the inset.
            for t in ax.texts:
                t.set_position((0.97, 0.985))

    if band_panel:
        draw_band_panel(bx, emp, conf_txt, w)
    title = args.title or f"audit{': ' + verdict if verdict else ''}"
    ax.set_title(title)
    fp.save(fig, args, "audit.png")


def draw_band_panel(bx, emp, conf_txt, w):
    """The band around the empirical curve, magnified: at the trade-off
    plot's scale a band from 10^6 samples per side is thinner than its line."""
    import numpy as np
    a = np.asarray(emp.alpha)
    est = np.asarray(emp.estimate)
    up, lo = np.asarray(emp.upper) - est, np.asarray(emp.lower) - est
    bx.fill_between(a, lo, up, color=EMP, alpha=0.25, lw=0)
    bx.plot(a, up, color=EMP, lw=1.2, label="certified upper edge (bounds the true curve)")
    bx.plot(a, lo, color=EMP, lw=0.8, ls=(0, (3, 2)),
            label="lower edge (of the tests found, not of the truth)")
    bx.axhline(0, color="0.3", lw=0.8)
    if isinstance(w, dict) and w.get("alpha") is not None:
        bx.axvline(float(w["alpha"]), color=WIT, lw=1.0, ls=(0, (1, 2)),
                   label="witness alpha")
    span = float(np.nanmax(np.abs(np.concatenate([up, lo])))) or 1e-3
    bx.set_ylim(-1.15 * span, 1.15 * span)
    bx.set_xlim(0, 1)
    bx.set_xlabel(r"type I error $\alpha$")
    bx.set_ylabel(r"$\beta - \hat\beta$")
    bx.set_title(f"{conf_txt}band around the empirical curve")
    bx.grid(True, alpha=0.3)
    fp.legend_below(bx, ncol=1, fontsize=9)


if __name__ == "__main__":
    fp.main_wrapper(main)
