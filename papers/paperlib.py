"""Shared helpers for the paper reproductions in papers/*/reproduce.py.

Run with Debian's /usr/bin/python3 (numpy, matplotlib, mpmath).

Every reproduction compares three kinds of number:
  * the value PRINTED in the paper (typed in, with where it came from),
  * the value an INDEPENDENT computation gives (closed form or mpmath, written
    here from the paper's formula, never read back from fdp),
  * the value the `fdp` command line gives (what is under test).
A check passes when fdp agrees with the independent value to the stated
tolerance, and the paper's printed value agrees with it to the paper's printed
precision (or the discrepancy is listed as explained, with the reason in the
folder's README).
"""

import argparse
import glob
import json
import os
import subprocess
import sys
import time

import mpmath as mp

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

mp.mp.dps = 40


# ----------------------------------------------------------------------------
# Finding and running fdp


def find_fdp(explicit=None):
    """--fdp PATH, then $FDP, then the newest build*/tools/fdp in the repo."""
    if explicit:
        return explicit
    if os.environ.get("FDP"):
        return os.environ["FDP"]
    cands = [p for p in glob.glob(os.path.join(REPO, "build*", "tools", "fdp"))
             if os.access(p, os.X_OK)]
    if not cands:
        sys.exit("no fdp binary: pass --fdp PATH or set $FDP")
    return max(cands, key=os.path.getmtime)


def parse_args(description, figures=True):
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--fdp", help="path to the fdp binary")
    if figures:
        ap.add_argument("--figures", metavar="DIR",
                        help="also draw the figures into DIR (PNG)")
    ap.add_argument("--quiet", action="store_true",
                    help="print only failures and the summary line")
    args = ap.parse_args()
    args.fdp = find_fdp(args.fdp)
    return args


class Fdp:
    def __init__(self, path):
        self.path = path
        self.calls = 0
        self.seconds = 0.0

    def text(self, *args):
        t0 = time.monotonic()
        r = subprocess.run([self.path] + [str(a) for a in args],
                           capture_output=True, text=True)
        self.seconds += time.monotonic() - t0
        self.calls += 1
        if r.returncode != 0:
            raise RuntimeError("fdp %s failed (%d): %s" %
                               (" ".join(map(str, args)), r.returncode, r.stderr.strip()))
        return r.stdout

    def json(self, *args):
        return json.loads(self.text(*args, "--json"))

    def csv(self, *args):
        lines = self.text(*args).strip().splitlines()
        head = lines[0].split(",")
        rows = [dict(zip(head, map(float, ln.split(",")))) for ln in lines[1:]]
        return rows


# ----------------------------------------------------------------------------
# fdp's --json (schema version 1, docs/json.md): certified answers are
# queries {AT: x, VALUE: {"lower", "upper"}} in obj["queries"].

_AT = {"epsilon": "delta", "delta": "epsilon", "beta": "alpha"}


def answers(obj, value):
    """The answers for `value` ("epsilon", "delta" or "beta"), in order, each
    flattened to {at: x, "lower": .., "upper": ..}."""
    at = _AT[value]
    out = []
    for q in obj.get("queries", []):
        if isinstance(q.get(value), dict) and at in q:
            out.append(dict(q[value], **{at: q[at]}))
    return out


def answer(obj, value):
    """The first answer for `value`."""
    return answers(obj, value)[0]


# ----------------------------------------------------------------------------
# Checks and the printed table


class Report:
    """Collects rows (item, published, independent, fdp, verdict) and prints them."""

    def __init__(self, title, quiet=False):
        self.title = title
        self.quiet = quiet
        self.rows = []
        self.failed = 0
        self.t0 = time.monotonic()

    def row(self, item, published, ours, ok, note=""):
        """published/ours are strings as they should appear in the table."""
        verdict = "ok" if ok is True else ("EXPLAINED" if ok == "explained" else "FAIL")
        if ok not in (True, "explained"):
            self.failed += 1
        self.rows.append((item, published, ours, verdict, note))
        if not self.quiet or verdict == "FAIL":
            print("%-52s %-18s %-34s %-9s %s" % (item, published, ours, verdict, note))

    def header(self):
        if not self.quiet:
            print("== " + self.title)
            print("%-52s %-18s %-34s %-9s %s" % ("item", "published", "ours", "agree", "note"))

    def check_close(self, item, fdp_value, indep_value, rel=1e-9, abs_=0.0,
                    published=None, pub_digits=None, note=""):
        """fdp vs independent within rel/abs; published vs independent rounded."""
        fv, iv = float(fdp_value), float(indep_value)
        ok = abs(fv - iv) <= max(abs_, rel * abs(iv))
        pub_s = "-"
        if published is not None:
            pub_s = str(published)
            if pub_digits is not None:
                ok = ok and round(iv, pub_digits) == round(float(published), pub_digits)
        self.row(item, pub_s, "%.6g (indep %.6g)" % (fv, iv), ok, note)
        return ok

    def check_bracket(self, item, lower, upper, indep_value, published=None,
                      pub_digits=None, slack=0.0, note=""):
        """The certified bracket [lower, upper] must contain the independent value."""
        lo, hi, iv = float(lower), float(upper), float(indep_value)
        ok = lo - slack <= iv <= hi + slack
        pub_s = "-"
        if published is not None:
            pub_s = str(published)
            if pub_digits is not None:
                ok = ok and round(iv, pub_digits) == round(float(published), pub_digits)
        self.row(item, pub_s, "[%.6g, %.6g] (indep %.6g)" % (lo, hi, iv), ok, note)
        return ok

    def finish(self, fdp=None):
        secs = time.monotonic() - self.t0
        extra = ""
        if fdp is not None:
            extra = ", %d fdp calls taking %.2f s" % (fdp.calls, fdp.seconds)
        n = len(self.rows)
        print("%s: %d passed, %d failed (%.2f s%s)" %
              (self.title, n - self.failed, self.failed, secs, extra))
        return 1 if self.failed else 0


# ----------------------------------------------------------------------------
# Independent closed forms (mpmath), written from the papers' formulas


def Phi(x):
    return mp.ncdf(x)


def Phi_inv(p):
    # inverse normal cdf via erfinv; mpmath has no ncdf inverse
    return mp.sqrt(2) * mp.erfinv(2 * mp.mpf(p) - 1)


def G(mu, a):
    """G_mu(a) = Phi(Phi^-1(1 - a) - mu)  (DRS Def. 2.5 / eq. (4))."""
    a = mp.mpf(a)
    if a <= 0:
        return mp.mpf(1)
    if a >= 1:
        return mp.mpf(0)
    return Phi(-Phi_inv(a) - mu)


def gdp_delta(mu, eps):
    """delta(eps) of mu-GDP: Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) (DRS Cor. 2.13)."""
    mu, eps = mp.mpf(mu), mp.mpf(eps)
    return Phi(-eps / mu + mu / 2) - mp.e ** eps * Phi(-eps / mu - mu / 2)


def gdp_eps(mu, delta):
    """Inverse of gdp_delta in eps (decreasing in eps), by bisection."""
    lo, hi = mp.mpf(0), mp.mpf(1)
    while gdp_delta(mu, hi) > delta:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if gdp_delta(mu, mid) > delta:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def f_epsdelta(eps, delta, a):
    """f_{eps,delta}(a) = max{0, 1 - delta - e^eps a, e^-eps (1 - delta - a)} (DRS eq. (5))."""
    eps, delta, a = mp.mpf(eps), mp.mpf(delta), mp.mpf(a)
    return max(mp.mpf(0), 1 - delta - mp.e ** eps * a, mp.e ** (-eps) * (1 - delta - a))


def laplace_tradeoff(mu, a):
    """T(Lap(0,1), Lap(mu,1))(a), mu >= 0 (DRS Sec. 2.3 / Example of Prop. 2.?):
    1 - e^mu a for a < e^-mu/2; e^-mu/(4a) for e^-mu/2 <= a <= 1/2; e^-mu (1 - a) after."""
    mu, a = mp.mpf(mu), mp.mpf(a)
    if a < mp.e ** (-mu) / 2:
        return 1 - mp.e ** mu * a
    if a <= mp.mpf(1) / 2:
        return mp.e ** (-mu) / (4 * a)
    return mp.e ** (-mu) * (1 - a)


def kov_delta(eps0, delta0, k, eps):
    """Exact delta(eps) of the k-fold composition of (eps0, delta0)-DP mechanisms
    (Kairouz, Oh & Viswanath, ICML 2015 / IEEE-IT 2017, Thm 3.3, written for all
    eps >= 0; the k-fold randomized response attains it):
      1 - (1-delta0)^k + (1-delta0)^k sum_{l=0}^{k} C(k,l)
          [e^{(k-l) eps0} - e^{eps + l eps0}]_+ / (1 + e^{eps0})^k.
    Terms are summed in mpmath at the working precision (no cancellation issue
    at 40 digits for the k used here)."""
    eps0, delta0, eps = mp.mpf(eps0), mp.mpf(delta0), mp.mpf(eps)
    s = mp.mpf(0)
    for l in range(k + 1):
        a = (k - l) * eps0
        b = eps + l * eps0
        if a <= b:
            break  # the bracket is zero from here on (a decreases, b increases)
        s += mp.binomial(k, l) * (mp.e ** a - mp.e ** b)
    s /= (1 + mp.e ** eps0) ** k
    keep = (1 - delta0) ** k
    return (1 - keep) + keep * s


def kov_eps(eps0, delta0, k, delta):
    """Smallest eps with kov_delta <= delta (bisection; kov_delta decreases in eps)."""
    lo, hi = mp.mpf(0), mp.mpf(k) * eps0
    if kov_delta(eps0, delta0, k, lo) <= delta:
        return lo
    for _ in range(56):
        mid = (lo + hi) / 2
        if kov_delta(eps0, delta0, k, mid) > delta:
            lo = mid
        else:
            hi = mid
    return hi


def advanced_composition_eps(eps0, k, delta_prime):
    """Dwork & Roth Thm 3.20: k-fold eps0-DP is (eps', k delta + delta')-DP with
    eps' = sqrt(2k ln(1/delta')) eps0 + k eps0 (e^eps0 - 1)."""
    eps0 = mp.mpf(eps0)
    return mp.sqrt(2 * k * mp.log(1 / mp.mpf(delta_prime))) * eps0 + k * eps0 * mp.expm1(eps0)


def timed_main(fn):
    """Run fn() and exit with its code."""
    try:
        code = fn()
    except RuntimeError as e:
        print("error: %s" % e, file=sys.stderr)
        code = 1
    sys.exit(code)
