#!/usr/bin/python3
"""Privacy profile delta(eps) on a log scale, one line (or band) per input.

Each positional INPUT is
  * a spec (several in one shell word, space-separated, are composed): the
    script runs `fdp compose SPEC... --eps e1 --eps e2 ... [--delta D] --json`
    over a grid of eps; or
  * a JSON file printed by `fdp compose ... --eps ... --json` (its "delta"
    list, and its "epsilon" list for the --delta marker).
Certified brackets [lower, upper] are drawn as a band; a lower bound of 0
is drawn at the bottom of the axis. --delta D marks delta = D and the
certified eps(D) of each input (from fdp's own --delta query).

Example:
  /usr/bin/python3 plots/plot_profile.py --fdp build/tools/fdp \\
      gdp:mu=1 laplace:b=1,times=4 subsampled-gaussian:sigma=1,q=0.01,times=1000 \\
      --eps-max 6 --delta 1e-5 -o plots/gallery/profile.png
"""

import argparse
import json

import numpy as np

import fdpplot as fp


def bracket_list(obj, key, xkey, path):
    """[(x, lower, upper)] of the `key` answers at `xkey` (fdp --json queries)."""
    if not isinstance(obj, dict) or not isinstance(obj.get("queries", []), list):
        fp.fail(f"{path}: expected fdp --json output with a 'queries' list")
    out = []
    for e in fp.answers(obj, key):
        lo, up = e.get("lower"), e.get("upper")
        out.append((float(e[xkey]), np.nan if lo is None else float(lo),
                    np.nan if up is None else float(up)))
    out.sort()
    return out


def label_marks(ax, marks, delta, span):
    """Labels the epsilon marks on the delta line so that none covers another:
    marks closer than a tenth of the axis take turns above and below, further
    out each time (two specs with the same epsilon printed two labels on top
    of each other)."""
    offsets = [(5, 5), (5, -15), (5, 17), (5, -27), (5, 29), (5, -39)]
    previous, k = None, 0
    for eup, col in sorted(marks):
        k = k + 1 if previous is not None and eup - previous < 0.1 * span else 0
        previous = eup
        ax.annotate(rf"$\varepsilon\leq{eup:.3g}$", (eup, delta), textcoords="offset points",
                    xytext=offsets[k % len(offsets)], fontsize=9, color=col,
                    bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.8))


def main():
    ap = argparse.ArgumentParser(
        description="Privacy profile delta(eps) on a log scale.",
        epilog="example: plot_profile.py --fdp build/tools/fdp gdp:mu=1 "
               "laplace:b=1,times=4 --delta 1e-5 -o profile.png")
    ap.add_argument("inputs", nargs="+", metavar="INPUT",
                    help="spec(s) for fdp compose, or fdp compose --json output")
    ap.add_argument("--label", action="append", default=[],
                    help="legend label for the i-th input (repeatable)")
    ap.add_argument("--fdp", metavar="PATH", help="the fdp binary")
    ap.add_argument("--eps-min", type=float, default=0.0)
    ap.add_argument("--eps-max", type=float, default=8.0)
    ap.add_argument("--eps-points", type=int, default=81,
                    help="grid size for specs (default 81)")
    ap.add_argument("--delta", type=float, metavar="D",
                    help="mark delta = D and each input's certified eps(D)")
    ap.add_argument("--delta-floor", type=float, default=None,
                    help="bottom of the delta axis (default: from the data, "
                         ">= 1e-16)")
    ap.add_argument("--method", choices=["auto", "exact", "pld"])
    fp.add_output_args(ap, "profile.png")
    args = ap.parse_intermixed_args()   # --label A f1 --label B f2
    if len(args.label) > len(args.inputs):
        fp.fail(f"{len(args.label)} --label for {len(args.inputs)} inputs")
    if not 0 <= args.eps_min < args.eps_max:
        fp.fail("need 0 <= --eps-min < --eps-max")
    if args.delta is not None and not 0 < args.delta < 1:
        fp.fail(f"--delta {args.delta}: must be in (0, 1)")

    grid = np.linspace(args.eps_min, args.eps_max, max(args.eps_points, 2))
    profiles = []
    for i, item in enumerate(args.inputs):
        label = fp.math_label(args.label[i]) if i < len(args.label) else None
        if item.lower().endswith(".json"):
            obj = fp.read_json(item)
            if not isinstance(obj, dict):
                fp.fail(f"{item}: expected a JSON object")
            label = label or item.rsplit("/", 1)[-1][:-5]
        else:
            q = ["compose"] + item.split() + ["--json"]
            q += [w for e in grid for w in ("--eps", repr(float(e)))]
            if args.delta is not None:
                q += ["--delta", repr(args.delta)]
            if args.method:
                q += ["--method", args.method]
            obj = json.loads(fp.run_fdp(fp.find_fdp(args.fdp), q))
            label = label or fp.spec_label(item)
        d = bracket_list(obj, "delta", "epsilon", item)
        if len(d) < 2:
            fp.fail(f"{item}: needs at least two delta(eps) points "
                    "(fdp compose --eps E --eps E2 ... --json)")
        e = bracket_list(obj, "epsilon", "delta", item)
        profiles.append((label, np.array(d), e))

    positive = np.concatenate([p[1][:, 1:].ravel() for p in profiles])
    positive = positive[np.isfinite(positive) & (positive > 0)]
    floor = args.delta_floor or max(1e-16, 0.5 * positive.min()
                                    if positive.size else 1e-16)
    if args.delta is not None:
        floor = min(floor, args.delta / 10)

    fig, ax = fp.plt.subplots(figsize=(6.4, 4.8))
    ax.set_yscale("log")
    marks = []   # (eps upper bound at --delta, colour): labelled below, apart
    for i, (label, d, eps_at) in enumerate(profiles):
        col = fp.PALETTE[i % len(fp.PALETTE)]
        x = d[:, 0]
        # A bound at or below the floor is not data on a log axis: lines stop
        # there (a band still reaches the edge: "somewhere below"), and where
        # the upper bound is exactly 0 a marker says so.
        lo_line = np.where(d[:, 1] > floor, d[:, 1], np.nan)
        up_line = np.where(np.isnan(d[:, 2]), 1.0, np.where(d[:, 2] > floor, d[:, 2], np.nan))
        lo = np.where(np.isnan(d[:, 1]), floor, np.maximum(d[:, 1], floor))
        up = np.where(np.isnan(d[:, 2]), 1.0, np.maximum(d[:, 2], floor))
        width = np.nanmax(np.abs(np.log10(up) - np.log10(lo)))
        if np.any(d[:, 2] > d[:, 1] * (1 + 1e-9)):
            ax.fill_between(x, lo, up, color=col, alpha=0.25, lw=0)
            ax.plot(x, lo_line, color=col, lw=0.8)
            lab = f"{label} (bracket)" if width > 0.01 else label
        else:
            lab = label
        ax.plot(x, up_line, color=col, lw=1.8, label=lab)
        zero = np.flatnonzero(d[:, 2] == 0)
        if zero.size:
            ax.annotate(r"$\delta=0$", (x[zero[0]], floor), textcoords="offset points",
                        xytext=(2, 8), fontsize=8, color=col)
        if args.delta is not None:
            for dd, elo, eup in eps_at:
                if abs(dd - args.delta) <= 1e-12 * args.delta and np.isfinite(eup):
                    ax.plot([eup], [args.delta], "o", ms=6, mfc="white", mec=col,
                            mew=1.6, zorder=5)
                    marks.append((eup, col))
    label_marks(ax, marks, args.delta, args.eps_max - args.eps_min)
    if args.delta is not None:
        ax.axhline(args.delta, color="0.4", lw=0.9, ls=(0, (4, 3)),
                   label=rf"$\delta={fp.sci_tex(args.delta)}$")
    ax.set_ylim(floor, 1.5)
    ax.set_xlim(args.eps_min, args.eps_max)
    ax.set_xlabel(r"$\varepsilon$")
    ax.set_ylabel(r"$\delta(\varepsilon)$")
    ax.set_title(args.title or r"privacy profile $\delta(\varepsilon)$")
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2,
              fontsize=9, frameon=False)
    fp.save(fig, args, "profile.png")


if __name__ == "__main__":
    fp.main_wrapper(main)
