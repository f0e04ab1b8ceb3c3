#!/usr/bin/python3
"""A composition: its certified bracket, the exact curve where known, the CLT.

The bracket comes from SPEC... (run through `fdp curve`, which composes
them) or from --curve FILE (`fdp curve` / `fdp compose --curve-out` CSV).
Optional overlays:
  --exact-gdp MU      the exact composed curve G_MU (e.g. k Gaussian mechanisms)
  --exact-curve FILE  an exact curve from a CSV (e.g. `fdp curve ... --method exact`)
  --clt FILE          CLT approximation from `fdp clt --json` (mu, gamma, band
                      per alpha) or from `fdp compose --json` (its "clt" object);
                      `--clt auto` runs `fdp clt SPEC... --json` itself.
The right panel shows every curve minus a reference (the exact curve, else the
CLT curve G_mu, else the bracket's midpoint), where a bracket of width 1e-4
and a CLT error of 1e-2 are both visible.

Example:
  /usr/bin/python3 plots/plot_composition.py --fdp build/tools/fdp \\
      gaussian:sigma=4,times=16 --method pld --exact-gdp 1 \\
      -o plots/gallery/composition.png
"""

import argparse

import numpy as np

import fdpplot as fp

BRACKET, EXACT, CLT = fp.PALETTE[0], "#000000", fp.PALETTE[1]


def _number(x):
    if isinstance(x, bool):
        return None
    if isinstance(x, (int, float)):
        return float(x)
    if isinstance(x, dict) and "lower" in x and "upper" in x:
        lo, up = x["lower"], x["upper"]
        if isinstance(lo, (int, float)) and isinstance(up, (int, float)):
            return 0.5 * (lo + up)
    return None


def parse_clt(obj, path):
    """(mu, gamma or None, band_valid, [(alpha, lower, upper)]) from either
    `fdp clt --json` or `fdp compose --json` (its "clt" object)."""
    if not isinstance(obj, dict):
        fp.fail(f"{path}: expected a JSON object")
    if obj.get("applicable") is False:
        fp.fail(f"{path}: the CLT does not apply: {obj.get('reason', 'no reason given')}")
    scopes = []
    if isinstance(obj.get("clt"), dict):
        scopes.append(obj["clt"])          # fdp compose --json
    if isinstance(obj.get("total"), dict):
        scopes.append(obj["total"])        # fdp clt: per spec and in total
    scopes.append(obj)
    mu = gamma = None
    valid = None
    band = None
    for s in scopes:
        for key in ("clt_mu", "mu"):
            if mu is None and key in s:
                # In compose JSON the top-level "mu" is the certified GDP
                # summary, not the CLT: only take it from a clt scope.
                if s is obj and "clt" in obj and key == "mu":
                    continue
                mu = _number(s[key])
        if gamma is None and "gamma" in s:
            gamma = _number(s["gamma"])
        if valid is None and isinstance(s.get("band_valid"), bool):
            valid = s["band_valid"]
        # fdp clt --json: "band": [{"alpha", "beta": {"lower", "upper"} or null, ..}]
        v = s.get("band")
        if band is None and isinstance(v, list) and v and isinstance(v[0], dict) \
                and {"alpha", "beta"} <= set(v[0]):
            band = [(float(e["alpha"]), (e["beta"] or {}).get("lower"),
                     (e["beta"] or {}).get("upper")) for e in v]
    if mu is None:
        fp.fail(f"{path}: no CLT mu found (expected 'mu' or 'clt_mu', or a 'clt' "
                "object as in fdp compose --json)")
    if valid is None:
        valid = gamma is not None and gamma < 0.5
    return mu, gamma, valid, band or []


def clt_band_curves(mu, gamma, alpha):
    """Berry-Esseen band: G_mu(a + g) - g <= f(a) <= G_mu(a - g) + g on [g, 1-g]."""
    a = alpha[(alpha >= gamma) & (alpha <= 1 - gamma)]
    lo = np.clip(fp.gdp_beta(mu, np.minimum(a + gamma, 1.0)) - gamma, 0.0, 1.0)
    up = np.clip(fp.gdp_beta(mu, np.maximum(a - gamma, 0.0)) + gamma, 0.0, 1.0)
    return a, lo, up


def main():
    ap = argparse.ArgumentParser(
        description="Certified bracket of a composition, with the exact curve "
                    "and the CLT approximation where available.",
        epilog="example: plot_composition.py --fdp build/tools/fdp "
               "gaussian:sigma=4,times=16 --method pld --exact-gdp 1 -o comp.png")
    ap.add_argument("specs", nargs="*", metavar="SPEC",
                    help="specs to compose with `fdp curve` (or use --curve)")
    ap.add_argument("--curve", metavar="FILE",
                    help="bracket CSV alpha,beta_lower,beta_upper instead of specs")
    ap.add_argument("--fdp", metavar="PATH", help="the fdp binary")
    ap.add_argument("--points", type=int, default=401)
    ap.add_argument("--method", choices=["auto", "exact", "pld"],
                    help="passed to fdp curve (pld forces the numeric bracket)")
    ap.add_argument("--label", help="legend label of the bracket")
    ap.add_argument("--exact-gdp", type=float, metavar="MU",
                    help="draw the exact curve G_MU")
    ap.add_argument("--exact-curve", metavar="FILE", help="exact curve CSV")
    ap.add_argument("--clt", metavar="FILE|auto",
                    help="CLT JSON (fdp clt --json or fdp compose --json), or "
                         "'auto' to run fdp clt on the specs")
    ap.add_argument("--no-residual", action="store_true",
                    help="only the trade-off panel")
    fp.add_output_args(ap, "composition.png")
    args = ap.parse_args()

    if bool(args.specs) == bool(args.curve):
        fp.fail("give either SPEC... or --curve FILE (exactly one)")
    if args.curve:
        bracket = fp.read_curve_csv(args.curve, args.label)
    else:
        bracket = fp.curve_from_specs(fp.find_fdp(args.fdp), args.specs,
                                      args.points, args.method, args.label)
    label = args.label or (fp.spec_label(args.specs) if args.specs else bracket.label)

    exact = None
    if args.exact_gdp is not None and args.exact_curve:
        fp.fail("give at most one of --exact-gdp and --exact-curve")
    if args.exact_gdp is not None:
        if not args.exact_gdp >= 0:
            fp.fail(f"--exact-gdp {args.exact_gdp}: mu must be >= 0")
        a = fp.alpha_grid(600)
        exact = fp.Curve(a, fp.gdp_beta(args.exact_gdp, a),
                         label=rf"exact $G_{{{fp._fmt(args.exact_gdp)}}}$")
    elif args.exact_curve:
        exact = fp.read_curve_csv(args.exact_curve)
        exact.label = f"exact ({exact.label})"

    clt = None
    if args.clt:
        if args.clt == "auto":
            if not args.specs:
                fp.fail("--clt auto needs SPEC... (it runs fdp clt on them)")
            fdp = fp.find_fdp(args.fdp)
            if not fp.fdp_has_command(fdp, "clt"):
                fp.fail("this fdp has no 'clt' command yet; pass --clt FILE")
            alphas = [f"{x:g}" for x in np.linspace(0.05, 0.95, 19)]
            out = fp.run_fdp(fdp, ["clt"] + args.specs + ["--json"] +
                             [w for x in alphas for w in ("--alpha", x)])
            import json
            clt = parse_clt(json.loads(out), "fdp clt")
        else:
            clt = parse_clt(fp.read_json(args.clt), args.clt)

    ncols = 1 if args.no_residual else 2
    fig, axes = fp.plt.subplots(1, ncols, figsize=(5.2 * ncols + 0.4 * (ncols - 1), 5.2),
                                squeeze=False)
    ax = axes[0][0]
    fp.tradeoff_axes(ax)

    # Reference for the residual panel.
    if exact is not None:
        ref_name = exact.label.replace("exact ", "")
        ref = lambda a: np.interp(a, exact.alpha, exact.lower)  # noqa: E731
        if args.exact_gdp is not None:
            ref = lambda a: fp.gdp_beta(args.exact_gdp, a)  # noqa: E731
    elif clt is not None:
        ref_name = rf"$G_{{{clt[0]:.3g}}}$ (CLT)"
        ref = lambda a: fp.gdp_beta(clt[0], a)  # noqa: E731
    else:
        ref_name = "bracket midpoint"
        ref = lambda a: np.interp(a, bracket.alpha, bracket.mid)  # noqa: E731

    # CLT first (underneath).
    if clt is not None:
        mu, gamma, valid, band_pts = clt
        a = fp.alpha_grid(600)
        gm = fp.gdp_beta(mu, a)
        ax.plot(a, gm, color=CLT, ls=(0, (1.5, 1.5)), lw=1.8, zorder=5,
                label=rf"CLT $G_{{{mu:.3g}}}$ (approximation)")
        if gamma is not None and valid:
            ba, blo, bup = clt_band_curves(mu, gamma, a)
            ax.fill_between(ba, blo, bup, color=CLT, alpha=0.13, lw=0, zorder=1,
                            label=rf"Berry–Esseen band, $\gamma={gamma:.2g}$")
        if band_pts and not (gamma is not None and valid):
            pa = np.array([p[0] for p in band_pts])
            plo = np.array([np.nan if p[1] is None else p[1] for p in band_pts])
            pup = np.array([np.nan if p[2] is None else p[2] for p in band_pts])
            ok = ~(np.isnan(plo) | np.isnan(pup))
            mid = 0.5 * (plo + pup)
            ax.errorbar(pa[ok], mid[ok], yerr=[mid[ok] - plo[ok], pup[ok] - mid[ok]],
                        fmt="none", ecolor=CLT, elinewidth=1.0, capsize=2.5,
                        zorder=2, label="CLT band at queried $\\alpha$")

    if exact is not None:
        ax.plot(exact.alpha, exact.lower, color=EXACT, lw=1.2, ls=(0, (5, 2)),
                zorder=4, label=exact.label)
    fp.draw_curve(ax, bracket, BRACKET,
                  label="certified" if bracket.is_bracket else "closed form")
    fp.legend_below(ax, ncol=1, fontsize=9)
    ax.set_title("trade-off curve" if args.title else label)

    if ncols == 2:
        r = axes[0][1]
        r.axhline(0.0, color="0.55", lw=0.8)
        if clt is not None:
            mu, gamma, valid, band_pts = clt
            a = fp.alpha_grid(600)
            a = a[(a > 0) & (a < 1)]
            r.plot(a, fp.gdp_beta(mu, a) - ref(a), color=CLT, ls=(0, (1.5, 1.5)),
                   lw=1.8, label="CLT")
            if gamma is not None and valid:
                ba, blo, bup = clt_band_curves(mu, gamma, a)
                r.fill_between(ba, blo - ref(ba), bup - ref(ba), color=CLT,
                               alpha=0.13, lw=0, label="Berry–Esseen band")
        if exact is not None:
            a = exact.alpha
            r.plot(a, exact.lower - ref(a), color=EXACT, lw=1.2, ls=(0, (5, 2)),
                   label="exact")
        a = bracket.alpha
        ra = ref(a)
        r.fill_between(a, bracket.lower - ra, bracket.upper - ra, color=BRACKET,
                       alpha=0.35, lw=0)
        r.plot(a, bracket.lower - ra, color=BRACKET, lw=1.0, label="certified lower")
        r.plot(a, bracket.upper - ra, color=BRACKET, lw=1.0, ls=(0, (3, 1.5)),
               label="certified upper")
        # Scale to the curves; a wide Berry-Esseen band may run off the panel.
        ys = [bracket.lower - ra, bracket.upper - ra]
        if exact is not None:
            ys.append(exact.lower - ref(exact.alpha))
        if clt is not None:
            ag = fp.alpha_grid(600)
            ys.append(fp.gdp_beta(clt[0], ag) - ref(ag))
        ys = np.concatenate(ys)
        ys = ys[np.isfinite(ys)]
        lo, hi = float(ys.min()), float(ys.max())
        pad = 0.15 * max(hi - lo, 1e-12)
        r.set_ylim(lo - pad, hi + pad)
        r.set_xlim(0, 1)
        r.set_xlabel(r"type I error $\alpha$")
        r.set_ylabel(rf"$\beta$ $-$ {ref_name}")
        r.set_title(f"difference from {ref_name}")
        r.ticklabel_format(axis="y", style="sci", scilimits=(-3, 3))
        fp.legend_below(r, ncol=2, fontsize=9)
        r.set_box_aspect(1)

    if args.title:
        fig.suptitle(args.title)
    fig.tight_layout()
    fp.save(fig, args, "composition.png")


if __name__ == "__main__":
    fp.main_wrapper(main)
