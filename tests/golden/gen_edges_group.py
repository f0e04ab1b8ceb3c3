#!/usr/bin/python3
"""Independent reference values for group privacy of piecewise-linear curves
(issue 22, items 2 and 3). Exact rational arithmetic (fractions) plus mpmath;
nothing here reads or calls fdp.

    /usr/bin/python3 tests/golden/gen_edges_group.py [OUTDIR]

Writes OUTDIR/edges_asym_curve.csv, edges_steep_curve.csv,
edges_tinymass_curve.csv (curve files for `curve:file=`) and
OUTDIR/edges_group.csv (reference values). OUTDIR defaults to this script's
directory.

Definitions
-----------
* A curve file lists vertices alpha,beta of a convex, non-increasing
  piecewise-linear f with f(1) = 0 (f(0) < 1 allowed: mass at loss +inf).
  Every number is read as the IEEE double of its decimal text and then used
  exactly (Fraction(float(text))).
* f^{-1} (the trade-off of the swapped pair) is the reflection of the graph
  of f (completed by the vertical piece (0,1)-(0,f(0)) and the flat piece to
  (1,0)) in the diagonal. fdp's guarantee for a curve is
      f_sym = min{f, f^{-1}}**  = the lower convex hull of both graphs
  (exact: vertices of the hull of the union of the vertex sets).
* Group privacy (Dong, Roth & Su, "Gaussian differential privacy", Thm 2.14):
  a mechanism whose neighbouring outputs satisfy T >= f_sym (every ordered
  neighbouring pair, so the symmetric f_sym is the guarantee) is
      [1 - (1 - f_sym)^{o k}]-DP  for datasets at distance k,
  where g = 1 - f_sym is concave, increasing, g(x) >= x, and g^{o k} is the
  k-fold composition of maps. This is the TRUTH used below.
  It is attained (so it is the exact group guarantee, not only a bound):
  let P_0 = Uniform[0,1] and P_j the law on [0,1] with CDF g^{o j} (an atom
  g^{o j}(0) at 0). Then
    - T(P_0, P_k) = 1 - g^{o k} (P_k has a concave CDF: rejecting [0, a] is
      optimal, with type II error 1 - g^{o k}(a));
    - T(P_j, P_{j+1}) >= f_sym for every j: with h = (g^-)^{o j} (g^- the
      generalized inverse), (P_j, P_{j+1}) = (h#P_0, h#P_1), a
      post-processing of (P_0, P_1), whose trade-off is 1 - g = f_sym
      (equality unless f_sym(0) < 1, where P_j has an atom at 0).
  So a chain of k neighbours, each pair f_sym-DP, reaches 1 - g^{o k}.
  The script checks this on the finite distributions obtained by cutting
  [0,1] at every breakpoint of g, g^2, ..., g^k (cells + the atom at 0):
  Sum_cells (P_b - e^eps P_a)_+ gives the profile of (P_0, P_k) (= the
  truth, both orientations) and of every step (<= that of f_sym).
* NOT the truth, printed for comparison ('alt_'): sym(power) =
  min{f_k, f_k^{-1}}** with f_k = 1 - (1 - f)^{o k} of the UNsymmetrized f.
  Group privacy is monotone and f_sym <= f, so power(sym) <= sym(power)
  pointwise: sym(power) over-states privacy when the two differ.

Queries (of the symmetric truth 1 - g^{o k}):
  delta(eps) = sup_x [g^k(x) - e^eps x]    (DRS Prop. 2.12 / Legendre form)
  beta(alpha) = 1 - g^k(alpha)
  eps(delta)  = smallest eps >= 0 with delta(eps) <= delta.
Two ways:
  way 1: the exact rational polygon of g^{o k} (breakpoints: the vertices of
         the inner map and the preimages of the outer map's vertices), then
         delta as the max over its vertices (mpmath, 60 digits), beta by
         interpolation (exact);
  way 2: pointwise iteration x -> g(g(...g(x))) in exact rationals, and for
         delta a golden-section search of the concave x -> g^k(x) - e^eps x
         (250 steps in x, then in log x near 0 for the steep cases) at 60
         digits; plus the chain check above for k <= 3.

Columns: id,specs,k,query,x,truth,method,digits  (command: fdp group SPECS --k K,
run from this directory; query delta -> --eps x, beta -> --alpha x, eps -> --delta x;
one_minus_beta is 1 - beta at --alpha x; alt_* rows are NOT truths)
"""
import csv
import os
import sys
from fractions import Fraction as Fr

import mpmath as mp

mp.mp.dps = 60


def fr(text):
    return Fr(float(text))


def M(x):
    """mpf of a Fraction (or number), correctly rounded at the working precision."""
    if isinstance(x, Fr):
        return mp.mpf(x.numerator) / x.denominator
    return mp.mpf(x)


# --------------------------------------------------------------- polygons
def graph(vertices):
    """Completed graph of a trade-off polygon from its vertex list (alpha
    increasing): starts at (0,1), ends at (1,0)."""
    pts = list(vertices)
    if pts[0][0] != 0:
        pts.insert(0, (Fr(0), Fr(1)))
    if pts[0][1] != 1:
        pts.insert(0, (Fr(0), Fr(1)))
    if pts[-1] != (1, 0):
        if pts[-1][1] != 0:
            raise ValueError("f(1) must be 0")
        pts.append((Fr(1), Fr(0)))
    return pts


def inverse(pts):
    return [(y, x) for (x, y) in reversed(pts)]


def lower_hull(points):
    P = sorted(set(points))
    H = []
    for p in P:
        while len(H) >= 2:
            (x1, y1), (x2, y2) = H[-2], H[-1]
            # keep H[-1] only if it is strictly below the chord H[-2] -> p
            if (x2 - x1) * (p[1] - y1) - (y2 - y1) * (p[0] - x1) <= 0:
                H.pop()
            else:
                break
        H.append(p)
    return H


def symmetrize(pts):
    """Completed graph of min{f, f^-1}** (lower convex hull of both graphs)."""
    H = lower_hull(pts + inverse(pts))
    return graph(H)


def function_vertices(pts):
    """The function part: vertices with distinct alpha (the lowest value at 0)."""
    out = []
    for (x, y) in pts:
        if out and out[-1][0] == x:
            out[-1] = (x, min(out[-1][1], y))
        else:
            out.append((x, y))
    return out


def check_tradeoff(pts):
    V = function_vertices(pts)
    for i in range(1, len(V) - 1):
        (x0, y0), (x1, y1), (x2, y2) = V[i - 1], V[i], V[i + 1]
        assert (y1 - y0) * (x2 - x1) <= (y2 - y1) * (x1 - x0), "not convex at %d" % i
    for (x, y) in V:
        assert 0 <= y <= 1 - x or (x == 0 and y <= 1), "f(a) > 1 - a at %s" % x
    assert V[-1] == (1, 0)


# maps g = 1 - f as vertex lists [(x, g(x))]
def as_map(pts):
    return [(x, 1 - y) for (x, y) in function_vertices(pts)]


def eval_map(h, v):
    """h(v) by interpolation (exact)."""
    if v <= h[0][0]:
        return h[0][1]
    for (x0, y0), (x1, y1) in zip(h, h[1:]):
        if v <= x1:
            return y0 + (y1 - y0) * (v - x0) / (x1 - x0)
    return h[-1][1]


def compose_maps(outer, inner):
    """outer o inner, exact: breakpoints are inner's vertices and the
    preimages under inner of outer's interior vertices."""
    xs = set(x for x, _ in inner)
    for (a, _) in outer[1:-1]:
        for (x0, y0), (x1, y1) in zip(inner, inner[1:]):
            if y0 < a < y1:
                xs.add(x0 + (x1 - x0) * (a - y0) / (y1 - y0))
    xs = sorted(xs)
    r = [(x, eval_map(outer, eval_map(inner, x))) for x in xs]
    # drop collinear interior points
    out = [r[0]]
    for i in range(1, len(r) - 1):
        (x0, y0), (x1, y1), (x2, y2) = out[-1], r[i], r[i + 1]
        if (y1 - y0) * (x2 - x1) != (y2 - y1) * (x1 - x0):
            out.append(r[i])
    out.append(r[-1])
    return out


def power_map(g, k):
    r = g
    for _ in range(k - 1):
        r = compose_maps(g, r)
    return r


def map_to_graph(h):
    return graph([(x, 1 - y) for (x, y) in h])


# --------------------------------------------------------------- queries, way 1
def delta_vertices(pts, eps):
    """sup_alpha 1 - f(alpha) - e^eps alpha over the vertices of the completed graph."""
    t = mp.exp(eps)
    return max(mp.mpf(0), max(1 - M(y) - t * M(x) for (x, y) in pts))


def delta_sym_vertices(pts, eps):
    return max(delta_vertices(pts, eps), delta_vertices(inverse(pts), eps))


def beta_poly(pts, alpha):
    V = function_vertices(pts)
    return 1 - eval_map([(x, 1 - y) for (x, y) in V], alpha)


def eps_of(delta_fn, delta):
    delta = mp.mpf(delta)
    if delta_fn(mp.mpf(0)) <= delta:
        return mp.mpf(0)
    lo, hi = mp.mpf(0), mp.mpf(1)
    while delta_fn(hi) > delta:
        lo, hi = hi, 2 * hi
        if hi > 1e6:
            return mp.inf
    for _ in range(200):
        mid = (lo + hi) / 2
        if delta_fn(mid) > delta:
            lo = mid
        else:
            hi = mid
    return hi


# --------------------------------------------------------------- way 2: pointwise
def iterate(g, k, x):
    for _ in range(k):
        x = eval_map(g, x)
    return x


def delta_pointwise(g, k, eps):
    """sup_x g^k(x) - e^eps x: golden section on the concave function, first
    on x in [0,1], then on log x over [1e-80, 1] (steep kinks near 0)."""
    t = mp.exp(eps)
    h = lambda x: M(iterate(g, k, x)) - t * M(x)
    def golden(fun, lo, hi, n=250):
        gr = (mp.sqrt(5) - 1) / 2
        c, d = hi - gr * (hi - lo), lo + gr * (hi - lo)
        fc, fd = fun(c), fun(d)
        for _ in range(n):
            if fc > fd:
                hi, d, fd = d, c, fc
                c = hi - gr * (hi - lo)
                fc = fun(c)
            else:
                lo, c, fc = c, d, fd
                d = lo + gr * (hi - lo)
                fd = fun(d)
        return max(fc, fd)
    v1 = golden(lambda x: h(Fr(mp.nstr(x, 65))), mp.mpf(0), mp.mpf(1))
    v2 = golden(lambda u: h(Fr(mp.nstr(mp.exp(u), 65))), mp.log(mp.mpf(10) ** -80), mp.mpf(0), 400)
    v0 = h(Fr(0))
    return max(mp.mpf(0), v0, v1, v2)


# --------------------------------------------------------------- chain check
def chain_check(g, k, eps_list):
    """Finite distributions P_0..P_k on the cells of [0,1] cut at every
    breakpoint of g^j (j <= k), P_j(cell) = g^j(right) - g^j(left), plus the
    atom at 0 with P_j = g^j(0). Returns, for each eps, the profiles of
    (P_0,P_1), (P_1,P_2), ... and (P_0,P_k)."""
    maps = [[(Fr(0), Fr(0)), (Fr(1), Fr(1))]]
    for j in range(1, k + 1):
        maps.append(compose_maps(g, maps[-1]) if j > 1 else g)
    cuts = sorted(set(x for m in maps for (x, _) in m))
    cells = list(zip(cuts, cuts[1:]))
    dist = []
    for m in maps:
        d = [eval_map(m, Fr(0))] + [eval_map(m, b) - eval_map(m, a) for (a, b) in cells]
        assert sum(d) == 1
        dist.append(d)
    def prof(Pa, Pb, eps):
        t = mp.exp(eps)
        return mp.fsum(max(mp.mpf(0), M(b) - t * M(a)) for a, b in zip(Pa, Pb))
    res = []
    for eps in eps_list:
        steps = [prof(dist[j], dist[j + 1], eps) for j in range(k)]
        back = [prof(dist[j + 1], dist[j], eps) for j in range(k)]
        res.append((steps, back, prof(dist[0], dist[k], eps), prof(dist[k], dist[0], eps)))
    return res


# --------------------------------------------------------------- curves
CURVES = {
    # asymmetric, 7 vertices, slopes -7/3, -2, -7/6, -9/11, -3/5, -1/5
    "edges_asym_curve.csv": ["0,1", "0.15,0.65", "0.27,0.41", "0.39,0.27", "0.5,0.18", "0.7,0.06", "1,0"],
    # symmetric, very steep first segment (slope -5e19) and its mirror
    "edges_steep_curve.csv": ["0,1", "1e-20,0.5", "0.2,0.2", "0.5,1e-20", "1,0"],
    # symmetric, tiny mass at infinity: f(0) = 1 - 1e-12 (and f = 0 from 1 - 1e-12)
    "edges_tinymass_curve.csv": ["0,0.999999999999", "0.1,0.6", "0.3,0.3", "0.6,0.1", "0.999999999999,0", "1,0"],
}


def read_curve(lines):
    return [(fr(a), fr(b)) for a, b in (l.split(",") for l in lines)]


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    rows = []

    def row(id_, spec, query, x, truth, method, digits):
        k = id_.split("-k")[1]
        item = {"edges_asym_curve.csv": "22.2", "edges_steep_curve.csv": "22.3-steep",
                "edges_tinymass_curve.csv": "22.3-tinymass"}[spec.split("=")[1]]
        r = (item, spec, k, query, x, truth, method, digits)
        print(*r[:6], "|", method)
        rows.append(r)

    for name, lines in CURVES.items():
        with open(os.path.join(outdir, name), "w") as f:
            f.write("# made by gen_edges_group.py: a piecewise-linear trade-off curve (vertices)\n")
            f.write("alpha,beta\n")
            f.write("\n".join(lines) + "\n")

    plans = {
        "edges_asym_curve.csv": dict(ks=[1, 2, 3], eps=["0", "0.178577", "0.5", "1", "2", "3"],
                                     alphas=["0.1", "0.3"], deltas=["1e-5", "0.1"]),
        "edges_steep_curve.csv": dict(ks=[1, 2], eps=["0", "1", "10", "30", "45", "50", "90"],
                                      alphas=["0", "1e-30", "1e-20", "1e-10"], deltas=["1e-5", "1e-10", "0.3"]),
        "edges_tinymass_curve.csv": dict(ks=[1, 3, 5, 23], eps=["0", "1", "3", "10", "30"],
                                         alphas=["0", "0.01"], deltas=["1e-5", "1e-3"]),
    }
    for name, lines in CURVES.items():
        V = graph(read_curve(lines))
        check_tradeoff(V)
        S = symmetrize(V)
        check_tradeoff(S)
        g_sym, g_raw = as_map(S), as_map(V)
        spec = "curve:file=" + name
        p = plans[name]
        for k in p["ks"]:
            Pk = map_to_graph(power_map(g_sym, k))        # truth (symmetric)
            Ak = map_to_graph(power_map(g_raw, k))        # power of the raw curve
            assert function_vertices(Pk) == function_vertices(symmetrize(Pk)), "power of f_sym not symmetric"
            ch = chain_check(g_sym, k, [fr(e) for e in p["eps"]]) if k <= 3 else None
            for i, e in enumerate(p["eps"]):
                eps = mp.mpf(float(e))
                d1 = delta_sym_vertices(Pk, eps)
                d2 = delta_pointwise(g_sym, k, eps)
                assert abs(d1 - d2) <= mp.mpf(10) ** -40 * max(d1, mp.mpf(10) ** -300), (name, k, e, d1, d2)
                meth = "exact polygon power of 1-f_sym (vertex max) = pointwise iteration + golden section"
                if ch is not None:
                    steps, back, d0k, dk0 = ch[i]
                    fsym_d = delta_sym_vertices(S, eps)
                    for s in steps + back:   # each step is at least as private as f_sym
                        assert s <= fsym_d + mp.mpf(10) ** -45, ("chain step", s, fsym_d)
                    assert abs(d0k - d1) <= mp.mpf(10) ** -45 and abs(dk0 - d1) <= mp.mpf(10) ** -45
                    meth += " = chain P_0..P_k of finite distributions (attained)"
                row("group-k%d" % k, spec, "delta", e, mp.nstr(d1, 20), meth, 20)
                alt = delta_sym_vertices(Ak, eps)
                if abs(alt - d1) > mp.mpf(10) ** -30 * d1:
                    row("group-k%d" % k, spec, "alt_delta_sym_of_power", e, mp.nstr(alt, 20),
                        "NOT the truth: min{f_k, f_k^-1}** of the raw curve's power", 20)
            for a in p["alphas"]:
                b1 = beta_poly(Pk, fr(a))
                b2 = 1 - iterate(g_sym, k, fr(a))
                assert b1 == b2
                row("group-k%d" % k, spec, "beta", a, mp.nstr(M(b1), 20),
                    "exact rational: polygon power = pointwise iteration", 20)
                row("group-k%d" % k, spec, "one_minus_beta", a, mp.nstr(M(1 - b1), 20),
                    "exact rational", 20)
            for dl in p["deltas"]:
                e1 = eps_of(lambda x: delta_sym_vertices(Pk, x), mp.mpf(float(dl)))
                row("group-k%d" % k, spec, "eps", dl, mp.nstr(e1, 20),
                    "bisection (200 steps) on the vertex-max delta of the exact power", 18)
    out = os.path.join(outdir, "edges_group.csv")
    with open(out, "w", newline="") as f:
        f.write("# Group privacy of piecewise-linear curves (issue 22 items 2-3); made by\n"
                "# gen_edges_group.py (fractions + mpmath %s). Curve files beside this one.\n" % mp.__version__)
        w = csv.writer(f)
        w.writerow(["id", "specs", "k", "query", "x", "truth", "method", "digits"])
        w.writerows(rows)
    print("wrote", out)


if __name__ == "__main__":
    main()
