#!/usr/bin/python3
"""Trade-off curves of several specs (or `fdp curve` CSVs) on one figure.

Each positional INPUT is one curve:
  * a CSV file `alpha,beta_lower,beta_upper` (as printed by `fdp curve`), or
    `alpha,beta`;
  * a spec such as gdp:mu=1, run through `fdp curve` (several specs in one
    shell word, separated by spaces, are composed: "gdp:mu=1 laplace:b=2").
Certified brackets (beta_lower < beta_upper) are drawn as a thin band; exact
curves as a line. The diagonal 1 - alpha (perfect privacy) is always drawn.

Example:
  /usr/bin/python3 plots/plot_curves.py --fdp build/tools/fdp \\
      gdp:mu=1 gdp:mu=0.5 epsdelta:eps=1 epsdelta:eps=1,delta=0.1 \\
      -o plots/gallery/tradeoffs.png
"""

import argparse

import fdpplot as fp


def main():
    ap = argparse.ArgumentParser(
        description="Draw trade-off curves (fdp curve CSVs or specs) on one figure.",
        epilog="example: plot_curves.py --fdp build/tools/fdp gdp:mu=1 "
               "epsdelta:eps=1,delta=0.1 -o curves.png")
    ap.add_argument("inputs", nargs="+", metavar="INPUT",
                    help="curve CSV file, or spec(s) for `fdp curve`")
    ap.add_argument("--label", action="append", default=[],
                    help="legend label for the i-th input (repeatable, in order)")
    ap.add_argument("--fdp", metavar="PATH", help="the fdp binary (for specs)")
    ap.add_argument("--points", type=int, default=401,
                    help="points per curve when running fdp curve (default 401)")
    ap.add_argument("--method", choices=["auto", "exact", "pld"],
                    help="passed to fdp curve")
    ap.add_argument("--logx", action="store_true",
                    help="log-scale alpha axis (shows the small-alpha region)")
    ap.add_argument("--size", type=float, default=5.2,
                    help="figure side in inches (default 5.2)")
    fp.add_output_args(ap, "curves.png")
    args = ap.parse_intermixed_args()   # --label A f1 --label B f2
    if len(args.label) > len(args.inputs):
        fp.fail(f"{len(args.label)} --label for {len(args.inputs)} inputs")

    curves = []
    for i, item in enumerate(args.inputs):
        label = fp.math_label(args.label[i]) if i < len(args.label) else None
        curves.append(fp.load_item(item, args.fdp, args.points, args.method, label))

    fig, ax = fp.plt.subplots(figsize=(args.size, args.size))
    fp.tradeoff_axes(ax, logx=args.logx)
    for i, c in enumerate(curves):
        fp.draw_curve(ax, c, fp.PALETTE[i % len(fp.PALETTE)])
    fp.legend_below(ax)
    if args.title:
        ax.set_title(args.title)
    fp.save(fig, args, "curves.png")


if __name__ == "__main__":
    fp.main_wrapper(main)
