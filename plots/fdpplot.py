"""Shared helpers for the fdp plot scripts (plots/plot_*.py).

Run the scripts with Debian's /usr/bin/python3 (python3-matplotlib, numpy).
Everything here draws with the non-interactive Agg backend.

Inputs are the formats in docs/cli.md:
  * curve CSV: header naming columns; `alpha` plus `beta_lower,beta_upper`
    (the certified bracket of `fdp curve` / `--curve-out`), or a single
    `beta` column; `fdp audit --curve-out` adds `beta_estimate`.
  * JSON: one object, as printed by `fdp ... --json`.
"""

import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

# Colour-blind-safe palette (Okabe-Ito), in drawing order.
PALETTE = ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00",
           "#56B4E9", "#000000", "#F0E442"]

STYLE = {
    "font.size": 11,
    "axes.titlesize": 12,
    "axes.labelsize": 12,
    "legend.fontsize": 10,
    "xtick.labelsize": 10,
    "ytick.labelsize": 10,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.6,
    "lines.linewidth": 1.8,
    "legend.framealpha": 0.9,
    "savefig.dpi": 110,
    "savefig.bbox": "tight",
    "svg.hashsalt": "fdp",  # deterministic SVG ids
}
plt.rcParams.update(STYLE)


class PlotError(Exception):
    """Bad input: printed as one line on stderr, exit code 2."""


def fail(msg):
    raise PlotError(msg)


def main_wrapper(main):
    """Run main(); turn PlotError into a one-line message and exit 2."""
    prog = os.path.basename(sys.argv[0])
    try:
        rc = main()
    except PlotError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        sys.exit(2)
    sys.exit(rc or 0)


# --------------------------------------------------------------------------
# Finding and running fdp
# --------------------------------------------------------------------------

def find_fdp(explicit=None):
    """The fdp binary: --fdp, $FDP, `fdp` on PATH, or a build dir in the repo."""
    if explicit:
        if not os.access(explicit, os.X_OK):
            fail(f"--fdp {explicit}: not an executable file")
        return explicit
    env = os.environ.get("FDP")
    if env and os.access(env, os.X_OK):
        return env
    on_path = shutil.which("fdp")
    if on_path:
        return on_path
    for d in sorted(os.listdir(REPO)):
        cand = os.path.join(REPO, d, "tools", "fdp")
        if d.startswith("build") and os.access(cand, os.X_OK):
            return cand
    fail("cannot find the fdp binary: pass --fdp PATH (e.g. build/tools/fdp) "
         "or set FDP")


def run_fdp(fdp, args, what=None):
    """Run `fdp ARGS`; return stdout. A failure is a PlotError quoting fdp."""
    try:
        p = subprocess.run([fdp] + list(args), capture_output=True, text=True,
                           timeout=120)
    except OSError as e:
        fail(f"cannot run {fdp}: {e}")
    if p.returncode != 0:
        msg = p.stderr.strip().splitlines()
        msg = msg[0] if msg else f"exit code {p.returncode}"
        fail(f"{what or 'fdp ' + ' '.join(args)} failed: {msg}")
    return p.stdout


def fdp_has_command(fdp, command):
    """Whether this fdp binary knows COMMAND (e.g. 'group', 'clt')."""
    p = subprocess.run([fdp, command, "--help"], capture_output=True, text=True)
    return p.returncode == 0


# --------------------------------------------------------------------------
# Curves
# --------------------------------------------------------------------------

class Curve:
    """Points alpha with a bracket [lower, upper] of beta (equal when exact)."""

    def __init__(self, alpha, lower, upper=None, estimate=None, label=None):
        self.alpha = np.asarray(alpha, dtype=float)
        self.lower = np.asarray(lower, dtype=float)
        self.upper = self.lower if upper is None else np.asarray(upper, dtype=float)
        self.estimate = None if estimate is None else np.asarray(estimate, dtype=float)
        self.label = label
        order = np.argsort(self.alpha, kind="stable")
        self.alpha, self.lower, self.upper = (self.alpha[order], self.lower[order],
                                              self.upper[order])
        if self.estimate is not None:
            self.estimate = self.estimate[order]

    @property
    def is_bracket(self):
        return bool(np.any(self.upper - self.lower > 1e-9))

    @property
    def mid(self):
        return 0.5 * (self.lower + self.upper)

    def max_width(self):
        return float(np.max(self.upper - self.lower)) if len(self.alpha) else 0.0


def _num(s, path, line):
    try:
        return float(s)
    except ValueError:
        fail(f"{path}:{line}: '{s}' is not a number")


def read_curve_csv(path, label=None):
    """Read a curve CSV (see module doc). Columns are found by name."""
    if not os.path.exists(path) or os.path.isdir(path):
        fail(f"{path}: no such file")
    with open(path, newline="") as fh:
        rows = [(i + 1, r) for i, r in enumerate(csv.reader(fh))
                if r and not r[0].lstrip().startswith("#")]
    if not rows:
        fail(f"{path}: empty file")
    header = [h.strip().lower() for h in rows[0][1]]
    if "alpha" not in header:
        fail(f"{path}: header must name an 'alpha' column (got {','.join(header)})")
    col = {h: i for i, h in enumerate(header)}
    if "beta_lower" in col and "beta_upper" in col:
        lo_name, up_name = "beta_lower", "beta_upper"
    elif "tests_beta_lower" in col and "beta_upper" in col:
        # fdp audit --curve-out: the lower edge bounds the curve of the tests
        # the audit found, not the true curve (docs/cli.md, 4.3)
        lo_name, up_name = "tests_beta_lower", "beta_upper"
    elif "beta" in col:
        lo_name = up_name = "beta"
    else:
        fail(f"{path}: need columns beta_lower,beta_upper or beta "
             f"(got {','.join(header)})")
    a, lo, up, est = [], [], [], []
    for line, r in rows[1:]:
        if len(r) < len(header):
            fail(f"{path}:{line}: expected {len(header)} fields, got {len(r)}")
        a.append(_num(r[col["alpha"]], path, line))
        lo.append(_num(r[col[lo_name]], path, line))
        up.append(_num(r[col[up_name]], path, line))
        if "beta_estimate" in col:
            est.append(_num(r[col["beta_estimate"]], path, line))
    if len(a) < 2:
        fail(f"{path}: need at least two points")
    return Curve(a, lo, up, est if est else None,
                 label or os.path.splitext(os.path.basename(path))[0])


def parse_curve_csv_text(text, label=None):
    lines = [ln for ln in text.splitlines() if ln.strip()]
    header = [h.strip() for h in lines[0].split(",")]
    data = np.array([[float(x) for x in ln.split(",")] for ln in lines[1:]])
    col = {h: i for i, h in enumerate(header)}
    return Curve(data[:, col["alpha"]], data[:, col["beta_lower"]],
                 data[:, col["beta_upper"]], label=label)


def curve_from_specs(fdp, specs, points=401, method=None, label=None):
    """Run `fdp curve SPEC... --points N` (the specs are composed)."""
    args = ["curve"] + list(specs) + ["--points", str(points)]
    if method:
        args += ["--method", method]
    out = run_fdp(fdp, args)
    return parse_curve_csv_text(out, label or spec_label(specs))


def looks_like_file(item):
    return os.path.exists(item) or item.lower().endswith((".csv", ".txt"))


def load_item(item, fdp_path, points=401, method=None, label=None):
    """A positional input: a CSV file, or one or more specs (space-separated,
    composed) that are run through `fdp curve`."""
    if looks_like_file(item):
        return read_curve_csv(item, label)
    specs = item.split()
    return curve_from_specs(find_fdp(fdp_path), specs, points, method, label)


# The value each kind of query is asked at (fdp --json, schema version 1,
# docs/json.md: certified answers are {AT: x, VALUE: {"lower", "upper"}}).
QUERY_AT = {"epsilon": "delta", "delta": "epsilon", "beta": "alpha"}


def answers(obj, value):
    """obj["queries"]'s answers for `value` ("epsilon", "delta" or "beta"), in
    order, each flattened to {at: x, "lower": .., "upper": ..}."""
    at = QUERY_AT[value]
    out = []
    for q in obj.get("queries", []) if isinstance(obj, dict) else []:
        if isinstance(q, dict) and isinstance(q.get(value), dict) and at in q:
            out.append(dict(q[value], **{at: q[at]}))
    return out


def read_json(path):
    if path == "-":
        text = sys.stdin.read()
    else:
        if not os.path.exists(path) or os.path.isdir(path):
            fail(f"{path}: no such file")
        with open(path) as fh:
            text = fh.read()
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        fail(f"{path}: not JSON ({e})")


# --------------------------------------------------------------------------
# Closed forms (used only for the "exact curve" overlays and CLT bands)
# --------------------------------------------------------------------------

def _phi(x):
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def _phi_inv(p):
    from statistics import NormalDist
    if p <= 0.0:
        return -math.inf
    if p >= 1.0:
        return math.inf
    return NormalDist().inv_cdf(p)


def gdp_beta(mu, alpha):
    """G_mu(alpha) = Phi(Phi^-1(1 - alpha) - mu), vectorised, clamped to [0,1]."""
    alpha = np.asarray(alpha, dtype=float)
    out = np.empty_like(alpha)
    for i, a in enumerate(alpha.flat):
        if a <= 0.0:
            out.flat[i] = 1.0
        elif a >= 1.0:
            out.flat[i] = 0.0
        else:
            # 1 - a loses precision for tiny a; use the symmetric form.
            out.flat[i] = _phi(-_phi_inv(a) - mu)
    return out


def alpha_grid(n=400):
    """Uniform on [0,1] plus a log-spaced tail near 0 (curves are steep there)."""
    g = np.concatenate([np.linspace(0.0, 1.0, n), np.logspace(-8, -0.3, n // 2)])
    return np.unique(g)


# --------------------------------------------------------------------------
# Labels
# --------------------------------------------------------------------------

def _fmt(v):
    try:
        x = float(v)
    except ValueError:
        return v
    if x == int(x) and abs(x) < 1e6:
        return str(int(x))
    return f"{x:g}"


def sci_tex(x):
    """1e-05 -> 10^{-5}, 2.5e-07 -> 2.5\\times10^{-7}, 0.05 -> 0.05 (mathtext)."""
    if x == 0 or 1e-3 <= abs(x) < 1e4:
        return f"{x:g}"
    m, e = f"{x:.3g}".split("e") if "e" in f"{x:.3g}" else (f"{x:.3g}", "0")
    e = int(e)
    return f"10^{{{e}}}" if m in ("1", "1.0") else f"{m}\\times10^{{{e}}}"


_MATHY = re.compile(r"[A-Za-z]+(?:\\[A-Za-z]+)?(?:_(?:\{[^{}]*\}|[0-9.]+|[A-Za-z]))"
                    r"(?:\^(?:\{[^{}]*\}|[0-9A-Za-z]))?")


def math_label(label):
    """'G_0.5' -> '$G_{0.5}$', 'f_{1,0.1}' -> '$f_{1,0.1}$'; other labels
    (and any containing '$') unchanged."""
    if "$" in label or not _MATHY.fullmatch(label):
        return label
    s = re.sub(r"_([0-9.]+)", r"_{\1}", label)
    return f"${s}$"


def spec_label(specs):
    """A short mathtext label for one spec or a composed list of specs."""
    if isinstance(specs, str):
        specs = specs.split()
    return r" $\otimes$ ".join(_one_label(s) for s in specs)


def _one_label(spec):
    name, _, rest = spec.partition(":")
    params = {}
    for kv in filter(None, rest.split(",")):
        k, _, v = kv.partition("=")
        params[k.strip()] = v.strip()
    times = params.pop("times", None)
    if name == "gdp" and "mu" in params:
        s = rf"$G_{{{_fmt(params['mu'])}}}$"
    elif name == "epsdelta" and "eps" in params:
        s = rf"$f_{{{_fmt(params['eps'])},\,{_fmt(params.get('delta', '0'))}}}$"
    elif name == "id":
        s = r"$\mathrm{Id}$"
    elif name == "curve":
        s = os.path.splitext(os.path.basename(params.get("file", "curve")))[0]
    else:
        sym = {"sigma": r"\sigma", "sensitivity": r"\Delta", "mu": r"\mu",
               "eps": r"\varepsilon", "delta": r"\delta"}
        nice = {"laplace": "Laplace", "gaussian": "Gaussian",
                "subsampled-gaussian": "subsampled Gaussian",
                "subsampled-laplace": "subsampled Laplace"}.get(name, name)
        ps = ", ".join(rf"${sym.get(k, k)}={_fmt(v)}$" for k, v in params.items())
        s = f"{nice} {ps}".strip()
    if times and times != "1":
        if name in ("gdp", "epsdelta", "id"):
            s = s[:-1] + rf"^{{\otimes {_fmt(times)}}}$"
        else:
            s += f", {_fmt(times)}-fold"
    return s


# --------------------------------------------------------------------------
# Axes
# --------------------------------------------------------------------------

def tradeoff_axes(ax, diagonal=True, logx=False):
    """Square trade-off axes with labels and the diagonal Id = 1 - alpha."""
    ax.set_xlabel(r"type I error $\alpha$")
    ax.set_ylabel(r"type II error $\beta$")
    if logx:
        ax.set_xscale("log")
        ax.set_xlim(1e-6, 1.0)
    else:
        ax.set_xlim(0.0, 1.0)
    ax.set_ylim(0.0, 1.0)
    if not logx:
        ax.set_aspect("equal", adjustable="box")
    if diagonal:
        a = np.logspace(-8, 0, 200) if logx else np.array([0.0, 1.0])
        ax.plot(a, 1.0 - a, color="0.55", lw=1.0, ls=(0, (4, 3)),
                label=r"$1-\alpha$ (perfect privacy)", zorder=1)


def draw_curve(ax, c, color, label=None, lw=None, band_alpha=0.28, ls="-",
               zorder=3):
    """Draw a curve; a bracket is a thin band between lower and upper, with
    the two edges drawn thinly; an exact curve is one line."""
    label = c.label if label is None else label
    lw = lw or plt.rcParams["lines.linewidth"]
    if c.is_bracket:
        ax.fill_between(c.alpha, c.lower, c.upper, color=color, alpha=band_alpha,
                        lw=0, zorder=zorder - 1)
        ax.plot(c.alpha, c.lower, color=color, lw=0.8 * lw, ls=ls, zorder=zorder,
                label=f"{label} (bracket, width $\\leq${c.max_width():.2g})")
        ax.plot(c.alpha, c.upper, color=color, lw=0.8 * lw, ls=ls, zorder=zorder)
    else:
        ax.plot(c.alpha, c.lower, color=color, lw=lw, ls=ls, label=label,
                zorder=zorder)


def add_output_args(parser, default):
    parser.add_argument("-o", "--output", action="append", metavar="FILE",
                        help="output file(s); .png, .svg or .pdf by extension; "
                             f"repeatable (default {default})")
    parser.add_argument("--dpi", type=int, default=110,
                        help="PNG resolution (default 110)")
    parser.add_argument("--title", default=None, help="figure title")


def save(fig, args, default):
    outs = args.output or [default]
    for out in outs:
        ext = os.path.splitext(out)[1].lower()
        if ext not in (".png", ".svg", ".pdf"):
            fail(f"-o {out}: extension must be .png, .svg or .pdf")
        d = os.path.dirname(out)
        if d:
            os.makedirs(d, exist_ok=True)
        meta = {"Software": None} if ext == ".png" else (
            {"Date": None} if ext == ".svg" else {"CreationDate": None})
        fig.savefig(out, dpi=args.dpi, metadata=meta)
        print(out)
    plt.close(fig)


def legend_below(ax, ncol=2, **kw):
    """The legend under the axes, where it cannot cover a curve or a marker
    (a legend inside a trade-off plot sat on the diagonal or on the curves
    themselves once there were three or four of them)."""
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=ncol, frameon=False, **kw)
