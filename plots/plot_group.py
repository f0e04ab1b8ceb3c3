#!/usr/bin/python3
"""Group privacy: the trade-off curves for groups of size k = 1..K.

Three ways to get the curves (one per k):
  SPEC --k K          runs `fdp group SPEC --k k` for each k (group privacy
                      1 - (1 - f)^{o k} of any spec), reading its --curve-out
                      CSV or, failing that, its beta at a grid of --alpha;
  --template T --k K  runs `fdp curve T` with {k} replaced by k, for mechanisms
                      whose group-k curve is itself a spec, e.g.
                      'laplace:b=1,sensitivity={k}' or 'gdp:mu={k}' (for
                      location families with monotone likelihood ratio, a
                      group of k neighbours is sensitivity k, exactly);
  FILE...             curve CSVs for k = 1, 2, ... in order (or --ks).

Example:
  /usr/bin/python3 plots/plot_group.py --fdp build/tools/fdp \\
      --template 'laplace:b=2,sensitivity={k}' --k 6 \\
      -o plots/gallery/group.png
"""

import argparse
import json
import os
import tempfile

import matplotlib as mpl
import numpy as np

import fdpplot as fp


def parse_ks(args):
    if args.ks:
        try:
            ks = [int(x) for x in args.ks.split(",") if x.strip()]
        except ValueError:
            fp.fail(f"--ks {args.ks}: expected comma-separated integers")
    elif args.k is not None:
        ks = list(range(1, args.k + 1))
    else:
        return None
    if not ks or min(ks) < 1:
        fp.fail("group sizes must be integers >= 1")
    return ks


def group_curve(fdp, spec, k, points, tmpdir):
    """The group-k curve from `fdp group`: its --curve-out CSV when it has one
    (CLI.md: same queries as compose), else its beta brackets over an alpha
    grid (--alpha A ... --json)."""
    out = os.path.join(tmpdir, f"group_{k}.csv")
    base = ["group", spec, "--k", str(k)]
    try:
        fp.run_fdp(fdp, base + ["--curve-out", out, "--points", str(points)])
        return fp.read_curve_csv(out)
    except fp.PlotError as e:
        if "--curve-out" not in str(e) and "--points" not in str(e):
            raise
    grid = fp.alpha_grid(max(points // 2, 50))
    args = base + ["--json"] + [w for a in grid for w in ("--alpha", repr(float(a)))]
    obj = json.loads(fp.run_fdp(fdp, args))
    rows = [(e["alpha"], e["lower"], e["upper"]) for e in fp.answers(obj, "beta")
            if e.get("lower") is not None and e.get("upper") is not None]
    if len(rows) < 2:
        fp.fail(f"fdp group {spec} --k {k}: no beta brackets in its JSON")
    a, lo, up = zip(*rows)
    return fp.Curve(a, lo, up)


def main():
    ap = argparse.ArgumentParser(
        description="Group privacy curves for groups of size k = 1..K.",
        epilog="examples: plot_group.py --fdp build/tools/fdp gdp:mu=0.5 --k 4 "
               "(needs fdp group); plot_group.py --template "
               "'laplace:b=2,sensitivity={k}' --k 6; plot_group.py k1.csv k2.csv")
    ap.add_argument("inputs", nargs="*", metavar="SPEC|FILE",
                    help="one SPEC (with --k/--ks, via fdp group) or curve CSVs "
                         "for k = 1, 2, ...")
    ap.add_argument("--k", type=int, help="largest group size K (draws 1..K)")
    ap.add_argument("--ks", help="explicit group sizes, e.g. 1,2,4,8")
    ap.add_argument("--template", help="spec with {k}, run through fdp curve per k")
    ap.add_argument("--fdp", metavar="PATH", help="the fdp binary")
    ap.add_argument("--points", type=int, default=401)
    ap.add_argument("--name", help="what is grouped, for the title")
    fp.add_output_args(ap, "group.png")
    args = ap.parse_args()
    ks = parse_ks(args)

    curves = []
    if args.template:
        if args.inputs:
            fp.fail("give either --template or inputs, not both")
        if "{k}" not in args.template:
            fp.fail(f"--template {args.template}: must contain {{k}}")
        if ks is None:
            fp.fail("--template needs --k K or --ks LIST")
        fdp = fp.find_fdp(args.fdp)
        for k in ks:
            curves.append(fp.curve_from_specs(fdp, [args.template.replace("{k}", str(k))],
                                              args.points))
        name = args.name or fp.spec_label(args.template.replace("{k}", "k"))
    elif len(args.inputs) == 1 and not fp.looks_like_file(args.inputs[0]):
        if ks is None:
            fp.fail("SPEC needs --k K or --ks LIST")
        fdp = fp.find_fdp(args.fdp)
        if not fp.fdp_has_command(fdp, "group"):
            fp.fail("this fdp has no 'group' command yet: use --template "
                    "'SPEC with {k}' or pass one curve CSV per k")
        with tempfile.TemporaryDirectory() as tmp:
            for k in ks:
                curves.append(group_curve(fdp, args.inputs[0], k, args.points, tmp))
        name = args.name or fp.spec_label(args.inputs[0])
    elif args.inputs:
        for item in args.inputs:
            if not fp.looks_like_file(item):
                fp.fail(f"'{item}': with several inputs each must be a curve CSV")
            curves.append(fp.read_curve_csv(item))
        if ks is None:
            ks = list(range(1, len(curves) + 1))
        if len(ks) != len(curves):
            fp.fail(f"{len(curves)} files but {len(ks)} group sizes")
        name = args.name
    else:
        fp.fail("nothing to draw: give SPEC --k K, --template T --k K, or CSV files")

    fig, ax = fp.plt.subplots(figsize=(5.6, 5.2))
    fp.tradeoff_axes(ax)
    cmap = mpl.colormaps["viridis"]
    kmax = max(ks)
    norm = mpl.colors.Normalize(vmin=1, vmax=max(kmax, 2))
    many = len(ks) > 8
    for k, c in zip(ks, curves):
        col = cmap(0.9 * norm(k))   # avoid the pale yellow end
        if c.is_bracket:
            ax.fill_between(c.alpha, c.lower, c.upper, color=col, alpha=0.3, lw=0)
            ax.plot(c.alpha, c.lower, color=col, lw=1.0)
            ax.plot(c.alpha, c.upper, color=col, lw=1.0,
                    label=None if many else f"$k={k}$ (bracket)")
        else:
            ax.plot(c.alpha, c.lower, color=col, lw=1.8,
                    label=None if many else f"$k={k}$")
    if many:
        sm = mpl.cm.ScalarMappable(cmap=mpl.colors.ListedColormap(
            cmap(np.linspace(0, 0.9, 256))), norm=norm)
        fig.colorbar(sm, ax=ax, fraction=0.046, pad=0.04, label="group size $k$")
    fp.legend_below(ax, ncol=3, title=None if many else "group size")
    title = args.title or (f"group privacy: {name}" if name else "group privacy")
    ax.set_title(title)
    fp.save(fig, args, "group.png")


if __name__ == "__main__":
    fp.main_wrapper(main)
