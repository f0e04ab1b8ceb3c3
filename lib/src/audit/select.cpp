#include "fdp/audit/select.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <queue>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "fdp/audit/binomial.hpp"
#include "audit/margins.hpp"
#include "audit/parallel_chunks.hpp"
#include "audit/parallel_sort.hpp"
#include "fdp/core/normal.hpp"

namespace fdp::audit {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Level of the shrunk selection estimates (measured on six benchmark rows at
// 2e7 samples, seeds 1-4, with levels 0.05, 0.16 and 0.25: 0.16 is as good
// as the best on every row; 0.05 loses up to 0.04 on the no-cutoff SVT and
// 0.2 on the exponential noisy max value).
constexpr double kShrinkLevel = 0.16;
// Level of the per-cell bounds that order cells by likelihood ratio.
constexpr double kOrderLevel = 0.16;
constexpr int kFinalists = 32;
constexpr std::size_t kEdgeRanks = 64;
constexpr double kRankRatio = 1.03;
constexpr std::size_t kBins = 128;
constexpr std::size_t kFewCategories = 12;
constexpr int kTreeLeaves = 48;
constexpr std::size_t kTreeMinChild = 32;
constexpr std::size_t kMaxTreeCuts = 255;
constexpr std::size_t kTreeCuts = 64;
// Shares of the primary error budget by role (a test serving several roles
// gets the sum); normalised over the roles actually filled.
constexpr double kWeightEps1 = 0.30, kWeightEps2 = 0.15, kWeightMu = 0.15, kWeightClaim = 0.30;
constexpr double kWeightAssumed = 0.30;  // share assumed for a test when projecting
// Non-threshold events on real outputs must beat a threshold event by this
// relative margin to be preferred (simpler events, same power).
constexpr double kSimplicity = 0.005;

std::string fmt_num(double x) {
  char b[40];
  std::snprintf(b, sizeof b, "%.9g", x);
  return b;
}

// ------------------------------------------------------------ scoring

/// Upper / lower bounds used for ranking: Poisson Wilson-Hilferty for small
/// counts (accurate to a few percent down to k = 0), Wilson score otherwise.
double approx_upper(double k, double n, double z) {
  if (k >= n) return 1.0;
  if (k < 50 && n > 1000) {
    const double a = k + 1.0;
    const double c = 1.0 - 1.0 / (9.0 * a) + z / (3.0 * std::sqrt(a));
    return std::min(1.0, a * c * c * c / n);
  }
  return wilson_upper(k, n, z);
}
double approx_lower(double k, double n, double z) {
  if (k <= 0) return 0.0;
  if (k < 50 && n > 1000) {
    const double c = 1.0 - 1.0 / (9.0 * k) - z / (3.0 * std::sqrt(k));
    return c <= 0 ? 0.0 : std::min(1.0, k * c * c * c / n);
  }
  return wilson_lower(k, n, z);
}

struct objectives {
  double eps = -kInf, mu = -kInf, margin = -kInf;
};

/// The three objectives from an alpha upper bound pU and a lower bound qL on
/// 1 - beta, over the test and its mirror (margins.hpp).
objectives objectives_from(double pU, double qL, double delta, const tradeoff& f) {
  const auto b = detail::branches(pU, qL, delta, f);
  objectives o;
  o.eps = b.eps;
  o.mu = b.mu;
  o.margin = b.margin;
  return o;
}

struct family {
  enum class kind { threshold, prefix, subsets };
  kind k = kind::threshold;
  view proto;
  std::vector<std::uint32_t> order;  // prefix: cells by decreasing estimated ratio
};

struct candidate {
  std::uint32_t fam = 0;
  std::uint8_t ordering = 0;
  std::uint8_t flag = 0;  // threshold: 1 = {x <= t}; prefix: 1 = prefix, 0 = complement
  double t = 0;
  std::uint64_t param = 0;  // prefix length / subset bits
  std::uint64_t kP = 0, nP = 0, kQ = 0, nQ = 0;
  objectives approx, exact;
  bool exact_done = false;
};

struct context {
  const tradeoff* claim;
  double delta;
  std::uint64_t n_eval[2];
  double g_plan;  // planned per-bound level
  double z_plan;
  double z_shrink;
};

void add_event(std::vector<candidate>& out, std::uint32_t fam, std::uint8_t flag, double t,
               std::uint64_t param, std::uint64_t k0, std::uint64_t n0, std::uint64_t k1,
               std::uint64_t n1) {
  if ((k0 == 0 && k1 == 0) || (k0 == n0 && k1 == n1)) return;  // empty or everything
  for (std::uint8_t o = 0; o < 2; ++o) {
    candidate c;
    c.fam = fam;
    c.ordering = o;
    c.flag = flag;
    c.t = t;
    c.param = param;
    if (o == 0) {
      c.kP = k0, c.nP = n0, c.kQ = k1, c.nQ = n1;
    } else {
      c.kP = k1, c.nP = n1, c.kQ = k0, c.nQ = n0;
    }
    out.push_back(c);
  }
}

void score_approx(candidate& c, const context& cx) {
  const int sp = c.ordering == 0 ? 0 : 1;
  const double nPe = static_cast<double>(cx.n_eval[sp]),
               nQe = static_cast<double>(cx.n_eval[1 - sp]);
  const double pt = approx_upper(static_cast<double>(c.kP), static_cast<double>(c.nP), cx.z_shrink);
  const double qt = approx_lower(static_cast<double>(c.kQ), static_cast<double>(c.nQ), cx.z_shrink);
  const double pU = approx_upper(std::min(pt * nPe, nPe), nPe, cx.z_plan);
  const double qL = approx_lower(std::min(qt * nQe, nQe), nQe, cx.z_plan);
  c.approx = objectives_from(pU, qL, cx.delta, *cx.claim);
}

void score_exact(candidate& c, const context& cx) {
  if (c.exact_done) return;
  const int sp = c.ordering == 0 ? 0 : 1;
  const double nPe = static_cast<double>(cx.n_eval[sp]),
               nQe = static_cast<double>(cx.n_eval[1 - sp]);
  const double pt = cp_upper(static_cast<double>(c.kP), static_cast<double>(c.nP), kShrinkLevel);
  const double qt = cp_lower(static_cast<double>(c.kQ), static_cast<double>(c.nQ), kShrinkLevel);
  const double pU = cp_upper(std::min(pt * nPe, nPe), nPe, cx.g_plan);
  const double qL = cp_lower(std::min(qt * nQe, nQe), nQe, cx.g_plan);
  c.exact = objectives_from(pU, qL, cx.delta, *cx.claim);
  c.exact_done = true;
}

// ------------------------------------------------------------ data access

/// One coordinate of both sides, sorted: halves A (even rows) and B (odd
/// rows), all rows, and A of both sides pooled.
struct sorted_column {
  raw_vector<double> A[2], B[2], poolA;  // (raw: the split's threads touch them first)
};

sorted_column sort_column(const sample_block& s0, const sample_block& s1, std::size_t j,
                          unsigned threads) {
  sorted_column c;
  const sample_block* sb[2] = {&s0, &s1};
  for (int s = 0; s < 2; ++s) {
    const std::size_t n = sb[s]->size(), d = sb[s]->dim;
    const double* x = sb[s]->real.data() + j;
    auto& A = c.A[s];
    auto& B = c.B[s];
    A.resize((n + 1) / 2);
    B.resize(n / 2);
    // Row i goes to A[i / 2] (even i) or B[i / 2] (odd i): chunks of rows
    // write disjoint slots, so the split can run on several threads.
    const unsigned T = static_cast<unsigned>(
        std::clamp<std::size_t>(n / (std::size_t{1} << 17), 1, std::max(1u, threads)));
    detail::for_each_chunk(T, [&](unsigned t) {
      const std::size_t lo = detail::chunk_start(A.size(), t, T),
                        hi = detail::chunk_start(A.size(), t + 1, T);
      for (std::size_t k = lo; k < hi; ++k) {
        A[k] = x[2 * k * d];
        if (k < B.size()) B[k] = x[(2 * k + 1) * d];
      }
    });
    detail::sort_doubles(A, threads);
    detail::sort_doubles(B, threads);
  }
  c.poolA = detail::merge_doubles(c.A[0], c.A[1], threads);
  return c;
}

std::size_t half_size(std::size_t n, int parity) { return parity == 0 ? (n + 1) / 2 : n / 2; }

// ------------------------------------------------------------ families

/// The r-th smallest (0-based) of the union of sorted arrays (multiset).
double kth_of_union(const std::vector<const raw_vector<double>*>& arrs, std::size_t r) {
  // Binary search on the value: the smallest x with #{<= x} > r, over candidate values.
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (auto* a : arrs) {
    if (!a->empty()) lo = std::min(lo, a->front()), hi = std::max(hi, a->back());
  }
  auto count_le = [&](double x) {
    std::size_t k = 0;
    for (auto* a : arrs)
      k += static_cast<std::size_t>(std::upper_bound(a->begin(), a->end(), x) - a->begin());
    return k;
  };
  // Search over each array's elements: the answer is an element of some array.
  double best = hi;
  for (auto* a : arrs) {
    std::size_t L = 0, R = a->size();
    while (L < R) {
      const std::size_t mid = (L + R) / 2;
      if (count_le((*a)[mid]) > r)
        R = mid;
      else
        L = mid + 1;
    }
    if (L < a->size()) best = std::min(best, (*a)[L]);
  }
  (void)lo;
  return best;
}

/// Threshold events {x <= t} on one coordinate (all selection rows: halves
/// A and B of each side, sorted).
void threshold_family(const sorted_column& col, std::size_t j, const std::string& label,
                      std::vector<family>& fams, std::vector<candidate>& out, unsigned threads) {
  const std::vector<const raw_vector<double>*> arrs{&col.A[0], &col.B[0], &col.A[1], &col.B[1]};
  std::size_t N = 0;
  for (auto* a : arrs) N += a->size();
  std::vector<std::size_t> ranks;
  for (std::size_t r = 0; r < std::min(kEdgeRanks, N); ++r) {
    ranks.push_back(r);
    ranks.push_back(N - 1 - r);
  }
  for (std::size_t r = kEdgeRanks; r <= N / 2;) {
    ranks.push_back(r);
    ranks.push_back(N - 1 - r);
    r = std::max(r + 1, static_cast<std::size_t>(std::floor(static_cast<double>(r) * kRankRatio)));
  }
  // Each rank is a nested binary search over four long arrays (cache misses
  // mostly): independent, so shared out over the threads.
  std::vector<double> ts(ranks.size());
  const unsigned T =
      static_cast<unsigned>(std::clamp<std::size_t>(ranks.size() / 16, 1, std::max(1u, threads)));
  detail::for_each_chunk(T, [&](unsigned t) {
    for (std::size_t i = detail::chunk_start(ts.size(), t, T);
         i < detail::chunk_start(ts.size(), t + 1, T); ++i)
      ts[i] = kth_of_union(arrs, ranks[i]);
  });
  std::sort(ts.begin(), ts.end());
  ts.erase(std::unique(ts.begin(), ts.end()), ts.end());
  family f;
  f.k = family::kind::threshold;
  f.proto.type = view::kind::cuts;
  f.proto.coord = j;
  f.proto.label = label;
  fams.push_back(f);
  const auto fi = static_cast<std::uint32_t>(fams.size() - 1);
  const std::uint64_t n0 = col.A[0].size() + col.B[0].size(),
                      n1 = col.A[1].size() + col.B[1].size();
  auto le = [](const raw_vector<double>& v, double t) {
    return static_cast<std::uint64_t>(std::upper_bound(v.begin(), v.end(), t) - v.begin());
  };
  for (double t : ts) {
    const std::uint64_t k0 = le(col.A[0], t) + le(col.B[0], t);
    const std::uint64_t k1 = le(col.A[1], t) + le(col.B[1], t);
    add_event(out, fi, 1, t, 0, k0, n0, k1, n1);  // {x > t} is its mirror
  }
}

/// Prefix family over the cells of `v`, ordered by half-A ratios, counted on half B.
void prefix_family(view v, const std::vector<std::uint64_t>& a0,
                   const std::vector<std::uint64_t>& a1, std::uint64_t nA0, std::uint64_t nA1,
                   const std::vector<std::uint64_t>& b0, const std::vector<std::uint64_t>& b1,
                   std::uint64_t nB0, std::uint64_t nB1, std::vector<family>& fams,
                   std::vector<candidate>& out, const std::vector<double>* score = nullptr,
                   const std::vector<std::uint32_t>* group = nullptr) {
  const std::size_t m = a0.size();
  if (m < 2 || nB0 == 0 || nB1 == 0 || nA0 == 0 || nA1 == 0) return;
  std::vector<double> ratio(m);
  if (score) ratio = *score;
  // Cells along an ordered axis (a coordinate's bins, a pattern's bins of
  // the sum; `group` gives the axis of each cell) have smoothly varying
  // ratios: their counts are pooled with the neighbours' (weights 1 2 3 2 1)
  // before ordering, which trades a little resolution for much less noise.
  std::vector<double> s0(a0.begin(), a0.end()), s1(a1.begin(), a1.end());
  if (group) {
    const double w[] = {1, 2, 3, 2, 1};
    for (std::size_t c = 0; c < m; ++c) {
      double x0 = 0, x1 = 0, ws = 0, w2 = 0;
      for (int d = -2; d <= 2; ++d) {
        const long e = static_cast<long>(c) + d;
        if (e < 0 || e >= static_cast<long>(m) ||
            (*group)[static_cast<std::size_t>(e)] != (*group)[c])
          continue;
        x0 += w[d + 2] * static_cast<double>(a0[static_cast<std::size_t>(e)]);
        x1 += w[d + 2] * static_cast<double>(a1[static_cast<std::size_t>(e)]);
        ws += w[d + 2];
        w2 += w[d + 2] * w[d + 2];
      }
      // Counts with the weighted sum's effective size (sum w)^2 / sum w^2.
      s0[c] = x0 * ws / w2;
      s1[c] = x1 * ws / w2;
    }
  }
  // Each cell's log likelihood ratio, shrunk towards 0 by its uncertainty:
  // given t = x0 + x1 outputs in the cell, x1 ~ Bin(t, pi) and the ratio is
  // monotone in pi; take the one-sided CP bound of pi on the side of the null
  // pi0 = nA1 / (nA0 + nA1) (capped at pi0). A cell seen 0 vs 1000 times stays
  // at the top, one seen 18 vs 32 times moves to the middle.
  const double pi0 = static_cast<double>(nA1) / static_cast<double>(nA0 + nA1);
  const double logit0 = std::log(pi0 / (1 - pi0));
  for (std::size_t c = 0; c < m && !score; ++c) {
    const double x1 = s1[c], t = s0[c] + s1[c];
    if (t == 0) {
      ratio[c] = 0;
      continue;
    }
    double pi = x1 / t;
    pi = pi > pi0 ? std::max(pi0, cp_lower(x1, t, kOrderLevel))
                  : std::min(pi0, cp_upper(x1, t, kOrderLevel));
    ratio[c] = std::log(pi / (1 - pi)) - logit0;
  }
  std::vector<std::uint32_t> order(m);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t x, std::uint32_t y) { return ratio[x] > ratio[y]; });
  family f;
  f.k = family::kind::prefix;
  f.proto = std::move(v);
  f.order = order;
  fams.push_back(std::move(f));
  const auto fi = static_cast<std::uint32_t>(fams.size() - 1);
  std::uint64_t k0 = 0, k1 = 0;
  for (std::size_t j = 1; j < m; ++j) {
    const auto c = order[j - 1];
    if (b0[c] == 0 && b1[c] == 0 && j > 1) {
      continue;  // same counts as the previous prefix
    }
    k0 += b0[c];
    k1 += b1[c];
    add_event(out, fi, 1, 0, j, k0, nB0, k1, nB1);  // the complement is its mirror
  }
}

/// Keyed family (categories or bit cells): likelihood-ratio prefixes, on all
/// selection data for a dozen keys or fewer, else fitted on A and counted on
/// B; for keys named by equal-length strings also prefixes of a naive-Bayes
/// order over (position, character).
/// Naive-Bayes log-ratio scores of cells named by strings of one common
/// length (e.g. sparse-vector answer streams "TTF-..."): features are
/// (position, character); weights fitted on half-A counts. Empty if the
/// names do not have a common length in [2, 64].
std::vector<double> char_scores(const std::vector<std::string>& names,
                                const std::vector<std::uint64_t>& a0,
                                const std::vector<std::uint64_t>& a1, std::uint64_t nA0,
                                std::uint64_t nA1) {
  if (names.empty()) return {};
  const std::size_t L = names[0].size();
  if (L < 2 || L > 64) return {};
  for (const auto& nm : names) {
    if (nm.size() != L) return {};
  }
  std::map<std::pair<std::size_t, char>, std::array<double, 2>> n;
  for (std::size_t c = 0; c < names.size(); ++c) {
    for (std::size_t j = 0; j < L; ++j) {
      auto& x = n[{j, names[c][j]}];
      x[0] += static_cast<double>(a0[c]);
      x[1] += static_cast<double>(a1[c]);
    }
  }
  std::vector<double> sc(names.size(), 0.0);
  for (std::size_t c = 0; c < names.size(); ++c) {
    for (std::size_t j = 0; j < L; ++j) {
      const auto& x = n[{j, names[c][j]}];
      sc[c] += std::log((x[1] + 0.5) / static_cast<double>(nA1)) -
               std::log((x[0] + 0.5) / static_cast<double>(nA0));
    }
  }
  return sc;
}

void keyed_family(view::kind kind, const std::string& label, const raw_vector<std::int64_t>& keys0,
                  const raw_vector<std::int64_t>& keys1, std::vector<family>& fams,
                  std::vector<candidate>& out,
                  const std::function<std::string(std::int64_t)>& name = nullptr) {
  std::map<std::int64_t, std::array<std::uint64_t, 4>> cnt;  // side0 A, side0 B, side1 A, side1 B
  for (std::size_t i = 0; i < keys0.size(); ++i) ++cnt[keys0[i]][i & 1];
  for (std::size_t i = 0; i < keys1.size(); ++i) ++cnt[keys1[i]][2 + (i & 1)];
  view v;
  v.type = kind;
  v.label = label;
  for (const auto& kv : cnt) v.keys.push_back(kv.first);
  const std::size_t m = v.keys.size();
  if (m < 2) return;
  if (m <= kFewCategories) {
    // Few categories: order and count on all selection data (the order of a
    // dozen well-filled cells barely overfits; every subset would).
    std::vector<std::uint64_t> c0(m), c1(m);
    std::size_t i = 0;
    for (const auto& kv : cnt) {
      c0[i] = kv.second[0] + kv.second[1];
      c1[i] = kv.second[2] + kv.second[3];
      ++i;
    }
    // Also every single category and every pair: the order of nearly equal
    // ratios is noisy, and the best event is often one or two outcomes.
    family f;
    f.k = family::kind::subsets;
    f.proto = v;
    fams.push_back(std::move(f));
    const auto fi = static_cast<std::uint32_t>(fams.size() - 1);
    for (std::size_t x = 0; x < m; ++x) {
      for (std::size_t y = x; y < m; ++y) {
        const std::uint64_t bits = (std::uint64_t{1} << x) | (std::uint64_t{1} << y);
        add_event(out, fi, 1, 0, bits, c0[x] + (y != x ? c0[y] : 0), keys0.size(),
                  c1[x] + (y != x ? c1[y] : 0), keys1.size());
      }
    }
    prefix_family(std::move(v), c0, c1, keys0.size(), keys1.size(), c0, c1, keys0.size(),
                  keys1.size(), fams, out);
    return;
  }
  std::vector<std::uint64_t> a0(m), a1(m), b0(m), b1(m);
  std::size_t i = 0;
  for (const auto& kv : cnt) {
    a0[i] = kv.second[0], b0[i] = kv.second[1], a1[i] = kv.second[2], b1[i] = kv.second[3];
    ++i;
  }
  const std::uint64_t nA0 = half_size(keys0.size(), 0), nA1 = half_size(keys1.size(), 0);
  const std::uint64_t nB0 = half_size(keys0.size(), 1), nB1 = half_size(keys1.size(), 1);
  if (name) {
    std::vector<std::string> names;
    for (auto k : v.keys) names.push_back(name(k));
    const auto sc = char_scores(names, a0, a1, nA0, nA1);
    if (!sc.empty()) {
      view w = v;
      w.label = label;
      prefix_family(std::move(w), a0, a1, nA0, nA1, b0, b1, nB0, nB1, fams, out, &sc);
    }
  }
  prefix_family(std::move(v), a0, a1, nA0, nA1, b0, b1, nB0, nB1, fams, out);
}

/// Cut points for a coordinate: all distinct values when few; otherwise
/// quantiles, with heavy atoms isolated.
std::vector<double> cut_points(const raw_vector<double>& pooled, std::size_t target) {
  const std::size_t N = pooled.size();
  std::vector<double> cuts;
  if (N == 0) return cuts;
  // Distinct values (stop counting past target) and heavy atoms.
  const std::size_t atom = std::max<std::size_t>(1, N / (2 * target));
  std::size_t distinct = 0;
  std::vector<std::pair<std::size_t, std::size_t>> atoms;  // [begin, end) of heavy runs
  for (std::size_t i = 0; i < N;) {
    std::size_t e = i + 1;
    while (e < N && pooled[e] == pooled[i]) ++e;
    ++distinct;
    if (e - i > atom) atoms.emplace_back(i, e);
    i = e;
  }
  if (distinct <= target) {
    for (std::size_t i = 0; i < N;) {
      std::size_t e = i + 1;
      while (e < N && pooled[e] == pooled[i]) ++e;
      if (e < N) cuts.push_back(pooled[i]);
      i = e;
    }
    return cuts;
  }
  for (const auto& [b, e] : atoms) {
    cuts.push_back(pooled[b]);
    if (b > 0) cuts.push_back(pooled[b - 1]);
  }
  // Quantiles of the values outside the atoms, by rank among them.
  const std::size_t q = target > cuts.size() ? target - cuts.size() : 1;
  std::size_t rest = N;
  for (const auto& [b, e] : atoms) rest -= e - b;
  for (std::size_t i = 1; i < q && rest > 0; ++i) {
    std::size_t r = std::min(rest - 1, i * rest / q);  // rank among non-atom values
    std::size_t pos = r;
    for (const auto& [b, e] : atoms) {
      if (pos >= b)
        pos += e - b;
      else
        break;
    }
    cuts.push_back(pooled[std::min(pos, N - 1)]);
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  if (!cuts.empty() && cuts.back() >= pooled.back()) cuts.pop_back();
  return cuts;
}

/// cut_points plus tail cuts: cells of about 50, 100, 200, ... values at
/// both ends (extreme likelihood ratios live in the tails).
std::vector<double> cut_points_tails(const raw_vector<double>& sorted, std::size_t target) {
  std::vector<double> cuts = cut_points(sorted, target);
  const std::size_t N = sorted.size();
  for (std::size_t r = 50; r < N / 64; r *= 2) {
    cuts.push_back(sorted[r - 1]);
    cuts.push_back(sorted[N - r - 1]);
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  if (!cuts.empty() && N > 0 && cuts.back() >= sorted.back()) cuts.pop_back();
  return cuts;
}

/// Counts of sorted values in the cells of sorted cuts (cell = #cuts < x).
std::vector<std::uint64_t> cell_counts(const raw_vector<double>& sorted,
                                       const std::vector<double>& cuts) {
  std::vector<std::uint64_t> c(cuts.size() + 1, 0);
  std::size_t cell = 0;
  for (double x : sorted) {
    while (cell < cuts.size() && cuts[cell] < x) ++cell;
    ++c[cell];
  }
  return c;
}

void bins_family(const sorted_column& col, std::size_t j, const std::string& label,
                 std::vector<family>& fams, std::vector<candidate>& out) {
  view v;
  v.type = view::kind::cuts;
  v.coord = j;
  v.label = label;
  v.cuts = cut_points_tails(col.poolA, kBins);
  if (v.cuts.empty()) return;
  const auto a0 = cell_counts(col.A[0], v.cuts), a1 = cell_counts(col.A[1], v.cuts);
  const auto b0 = cell_counts(col.B[0], v.cuts), b1 = cell_counts(col.B[1], v.cuts);
  const std::vector<std::uint32_t> group(a0.size(), 0);
  prefix_family(std::move(v), a0, a1, col.A[0].size(), col.A[1].size(), b0, b1, col.B[0].size(),
                col.B[1].size(), fams, out, nullptr, &group);
}

// ------------------------------------------------------------ tree

struct tree_builder {
  std::size_t d = 0, n0 = 0, n1 = 0;
  std::vector<const double*> rows;        // n0 rows of side 0 then n1 of side 1
  std::vector<std::vector<double>> cuts;  // per coordinate
  std::vector<std::uint8_t> bin;          // rows x d
  double w0 = 1, w1 = 1;
  std::vector<std::uint32_t> idx;

  struct split {
    double gain = 0;
    int coord = -1;
    std::size_t b = 0;
  };
  struct pending {
    std::size_t lo, hi;
    int node;
    split s;
    bool operator<(const pending& o) const { return s.gain < o.s.gain; }
  };

  static double h(double a, double b) {
    const double t = a + b;
    double r = 0;
    if (a > 0) r += a * std::log(t / a);
    if (b > 0) r += b * std::log(t / b);
    return r;
  }

  split best_split(std::size_t lo, std::size_t hi) const {
    split best;
    std::vector<std::uint64_t> hist;
    double c0 = 0, c1 = 0;
    for (std::size_t i = lo; i < hi; ++i) (idx[i] < n0 ? c0 : c1) += 1;
    const double W0 = c0 * w0, W1 = c1 * w1, Hp = h(W0, W1);
    const double min_gain = 8.0 + std::log(static_cast<double>(d * (kMaxTreeCuts + 1)));
    for (std::size_t j = 0; j < d; ++j) {
      const std::size_t nb = cuts[j].size() + 1;
      if (nb < 2) continue;
      hist.assign(2 * nb, 0);
      for (std::size_t i = lo; i < hi; ++i) {
        const auto r = idx[i];
        ++hist[2 * bin[static_cast<std::size_t>(r) * d + j] + (r < n0 ? 0 : 1)];
      }
      double l0 = 0, l1 = 0;
      for (std::size_t b = 0; b + 1 < nb; ++b) {
        l0 += static_cast<double>(hist[2 * b]);
        l1 += static_cast<double>(hist[2 * b + 1]);
        if (l0 + l1 < kTreeMinChild) continue;
        if ((c0 - l0) + (c1 - l1) < kTreeMinChild) break;
        const double g = Hp - h(l0 * w0, l1 * w1) - h((c0 - l0) * w0, (c1 - l1) * w1);
        if (g > best.gain && g > min_gain) {
          best.gain = g;
          best.coord = static_cast<int>(j);
          best.b = b;
        }
      }
    }
    return best;
  }
};

view grow_tree(const sample_block& s0, const sample_block& s1, std::size_t max_per_side,
               const std::vector<std::vector<double>>& cuts) {
  tree_builder t;
  t.d = s0.dim;
  for (std::size_t i = 0; i < s0.size() && t.n0 < max_per_side; i += 2, ++t.n0)
    t.rows.push_back(&s0.real[i * t.d]);
  for (std::size_t i = 0; i < s1.size() && t.n1 < max_per_side; i += 2, ++t.n1)
    t.rows.push_back(&s1.real[i * t.d]);
  view v;
  v.type = view::kind::tree;
  v.label = "tree leaf";
  if (t.n0 == 0 || t.n1 == 0) return v;
  const double tot = static_cast<double>(t.n0 + t.n1);
  t.w0 = tot / (2.0 * static_cast<double>(t.n0));
  t.w1 = tot / (2.0 * static_cast<double>(t.n1));
  const std::size_t R = t.rows.size();
  t.cuts = cuts;
  t.bin.resize(R * t.d);
  for (std::size_t j = 0; j < t.d; ++j) {
    for (std::size_t r = 0; r < R; ++r) {
      t.bin[r * t.d + j] = static_cast<std::uint8_t>(
          std::lower_bound(t.cuts[j].begin(), t.cuts[j].end(), t.rows[r][j]) - t.cuts[j].begin());
    }
  }
  t.idx.resize(R);
  std::iota(t.idx.begin(), t.idx.end(), 0u);
  v.nodes.push_back({});
  std::priority_queue<tree_builder::pending> q;
  q.push({0, R, 0, t.best_split(0, R)});
  int leaves = 1;
  std::vector<tree_builder::pending> done;
  while (!q.empty()) {
    auto p = q.top();
    q.pop();
    if (p.s.coord < 0 || leaves >= kTreeLeaves) {
      done.push_back(p);
      continue;
    }
    const auto j = static_cast<std::size_t>(p.s.coord);
    auto mid = std::stable_partition(
        t.idx.begin() + static_cast<std::ptrdiff_t>(p.lo),
        t.idx.begin() + static_cast<std::ptrdiff_t>(p.hi),
        [&](std::uint32_t r) { return t.bin[static_cast<std::size_t>(r) * t.d + j] <= p.s.b; });
    const std::size_t m = static_cast<std::size_t>(mid - t.idx.begin());
    view::node& nd = v.nodes[static_cast<std::size_t>(p.node)];
    nd.coord = p.s.coord;
    nd.cut = t.cuts[j][p.s.b];
    const int L = static_cast<int>(v.nodes.size());
    v.nodes[static_cast<std::size_t>(p.node)].left = L;
    v.nodes[static_cast<std::size_t>(p.node)].right = L + 1;
    v.nodes.push_back({});
    v.nodes.push_back({});
    ++leaves;
    q.push({p.lo, m, L, t.best_split(p.lo, m)});
    q.push({m, p.hi, L + 1, t.best_split(m, p.hi)});
  }
  int leaf = 0;
  for (auto& nd : v.nodes) {
    if (nd.coord < 0) nd.leaf = leaf++;
  }
  v.leaves = static_cast<std::size_t>(leaf);
  return v;
}

void tree_family(const sample_block& s0, const sample_block& s1, std::size_t max_per_side,
                 const std::vector<std::vector<double>>& cuts, std::vector<family>& fams,
                 std::vector<candidate>& out) {
  view v = grow_tree(s0, s1, max_per_side, cuts);
  if (v.leaves < 2) return;
  const std::size_t m = v.leaves;
  std::vector<std::uint64_t> a0(m), a1(m), b0(m), b1(m);
  std::uint64_t nA0 = 0, nA1 = 0, nB0 = 0, nB1 = 0;
  for (std::size_t i = 0; i < s0.size(); ++i) {
    const auto c = v.cell_of(&s0.real[i * s0.dim]);
    if (i & 1)
      ++b0[c], ++nB0;
    else
      ++a0[c], ++nA0;
  }
  for (std::size_t i = 0; i < s1.size(); ++i) {
    const auto c = v.cell_of(&s1.real[i * s1.dim]);
    if (i & 1)
      ++b1[c], ++nB1;
    else
      ++a1[c], ++nA1;
  }
  prefix_family(std::move(v), a0, a1, nA0, nA1, b0, b1, nB0, nB1, fams, out);
}

// ------------------------------------------------------------ pattern view

constexpr std::size_t kMaxDiscreteValues = 8;
constexpr double kAtomShare = 0.05;
constexpr std::size_t kMaxPatterns = 2048;
constexpr std::size_t kPatternBins = 32;
constexpr std::size_t kPatternPerBin = 400;

/// Mixed vectors (e.g. codes plus sparse values): discrete coordinates (at
/// most 8 values on half A) and atoms (one value with >= 5% of half A) form
/// a pattern; the other coordinates, without their atoms, are summed; cells
/// are (pattern, quantile bin of the sum within the pattern). Fitted on half
/// A, events are likelihood-ratio prefixes counted on half B.
void pattern_family(const sample_block& s0, const sample_block& s1,
                    const std::vector<sorted_column>& cols, std::vector<family>& fams,
                    std::vector<candidate>& out) {
  const std::size_t d = s0.dim;
  view v;
  v.type = view::kind::pattern;
  v.label = "pattern and sum";
  for (std::size_t j = 0; j < d; ++j) {
    const auto& pa = cols[j].poolA;
    if (pa.empty()) return;
    std::vector<std::pair<double, std::size_t>> runs;
    for (std::size_t i = 0; i < pa.size();) {
      std::size_t e = i;
      while (e < pa.size() && pa[e] == pa[i]) ++e;
      runs.emplace_back(pa[i], e - i);
      i = e;
    }
    if (runs.size() <= kMaxDiscreteValues) {
      v.disc.push_back(j);
      std::vector<double> vals;
      for (const auto& r : runs) vals.push_back(r.first);
      v.disc_values.push_back(vals);
      continue;
    }
    v.proj.push_back(j);
    const auto big = std::max_element(
        runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    if (static_cast<double>(big->second) >= kAtomShare * static_cast<double>(pa.size())) {
      v.atom_coord.push_back(j);
      v.atom_value.push_back(big->first);
    }
  }
  if (v.disc.empty() && v.atom_coord.empty()) return;
  // Patterns and sums of half A.
  const sample_block* sb[2] = {&s0, &s1};
  std::map<std::int64_t, raw_vector<double>> sums;
  std::map<std::int64_t, std::size_t> freq;
  for (int s = 0; s < 2; ++s) {
    for (std::size_t i = 0; i < sb[s]->size(); i += 2) {
      double sum;
      const auto k = v.pattern_key(&sb[s]->real[i * d], sum);
      sums[k].push_back(sum);
    }
  }
  std::vector<std::pair<std::size_t, std::int64_t>> byfreq;
  for (const auto& kv : sums) byfreq.emplace_back(kv.second.size(), kv.first);
  std::sort(byfreq.begin(), byfreq.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  if (byfreq.size() > kMaxPatterns) byfreq.resize(kMaxPatterns);
  std::sort(byfreq.begin(), byfreq.end(),
            [](const auto& a, const auto& b) { return a.second < b.second; });
  for (const auto& [n, k] : byfreq) {
    auto& sv = sums[k];
    std::sort(sv.begin(), sv.end());
    const std::size_t bins = std::max<std::size_t>(1, std::min(kPatternBins, n / kPatternPerBin));
    v.keys.push_back(k);
    v.key_cuts.push_back(bins > 1 ? cut_points_tails(sv, bins) : std::vector<double>{});
  }
  v.index_keys();
  v.index_pattern();
  const std::size_t m = v.cells();
  std::vector<std::uint64_t> a[2], b[2];
  std::uint64_t na[2] = {0, 0}, nb[2] = {0, 0};
  for (int s = 0; s < 2; ++s) {
    a[s].assign(m, 0);
    b[s].assign(m, 0);
    for (std::size_t i = 0; i < sb[s]->size(); ++i) {
      const auto c = v.cell_of(&sb[s]->real[i * d]);
      if (i & 1)
        ++b[s][c], ++nb[s];
      else
        ++a[s][c], ++na[s];
    }
  }
  std::vector<std::uint32_t> group;
  for (std::size_t k = 0; k < v.keys.size(); ++k)
    group.insert(group.end(), v.key_cuts[k].size() + 1, static_cast<std::uint32_t>(k));
  group.push_back(static_cast<std::uint32_t>(v.keys.size()));  // other
  prefix_family(std::move(v), a[0], a[1], na[0], na[1], b[0], b[1], nb[0], nb[1], fams, out,
                nullptr, &group);
}

// ------------------------------------------------------------ hull

/// Indices of the points on the lower convex hull of (x, y) together with
/// (0, 1) and (1, 0), left to right (the two anchors are not returned).
std::vector<std::size_t> lower_hull(const std::vector<double>& x, const std::vector<double>& y) {
  std::vector<std::size_t> ord(x.size());
  std::iota(ord.begin(), ord.end(), 0);
  std::sort(ord.begin(), ord.end(),
            [&](std::size_t a, std::size_t b) { return x[a] != x[b] ? x[a] < x[b] : y[a] < y[b]; });
  struct P {
    double x, y;
    long id;
  };
  std::vector<P> pts;
  pts.push_back({0.0, 1.0, -1});
  for (auto i : ord) pts.push_back({x[i], y[i], static_cast<long>(i)});
  pts.push_back({1.0, 0.0, -1});
  std::vector<P> h;
  for (const auto& p : pts) {
    if (!h.empty() && h.back().x == p.x) {
      if (h.back().y <= p.y) continue;
      h.pop_back();
    }
    while (h.size() >= 2) {
      const P& a = h[h.size() - 2];
      const P& b = h.back();
      const double cr = (b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x);
      if (cr <= 0)
        h.pop_back();
      else
        break;
    }
    h.push_back(p);
  }
  std::vector<std::size_t> out;
  for (const auto& p : h) {
    if (p.id >= 0 && p.y < 1.0 - p.x) out.push_back(static_cast<std::size_t>(p.id));
  }
  return out;
}

// ------------------------------------------------------------ descriptions

std::string describe_cells(const view& v, const std::vector<std::uint8_t>& in,
                           const std::function<std::string(std::int64_t)>& name) {
  std::vector<std::string> parts;
  std::size_t count = 0;
  const std::size_t m = v.cells();
  if (v.type == view::kind::cuts) {
    for (std::size_t c = 0; c < m;) {
      if (!in[c]) {
        ++c;
        continue;
      }
      std::size_t e = c;
      while (e + 1 < m && in[e + 1]) ++e;
      const std::string lo = c == 0 ? "-inf" : fmt_num(v.cuts[c - 1]);
      const std::string hi = e + 1 == m ? "inf)" : fmt_num(v.cuts[e]) + "]";
      parts.push_back("(" + lo + ", " + hi);
      ++count;
      c = e + 1;
    }
    std::string s = v.label + " in ";
    for (std::size_t i = 0; i < parts.size() && i < 6; ++i) s += (i ? " u " : "") + parts[i];
    if (parts.size() > 6) s += " u ... (" + std::to_string(parts.size()) + " intervals)";
    return s;
  }
  if (v.type == view::kind::pattern) {
    std::string s = v.label + " in {";
    for (std::size_t k = 0; k < v.keys.size(); ++k) {
      const auto& cu = v.key_cuts[k];
      std::size_t base = 0;
      for (std::size_t q = 0; q < k; ++q) base += v.key_cuts[q].size() + 1;
      for (std::size_t b = 0; b <= cu.size(); ++b) {
        if (!in[base + b]) continue;
        if (count < 6) {
          s += count ? ", " : "";
          s += "(pattern " + std::to_string(k) + ", sum in (" +
               (b == 0 ? "-inf" : fmt_num(cu[b - 1])) + ", " +
               (b == cu.size() ? "inf)" : fmt_num(cu[b]) + "]") + ")";
        }
        ++count;
      }
    }
    if (in[m - 1]) s += std::string(count ? ", " : "") + "other patterns";
    if (count > 6) s += ", ... (" + std::to_string(count) + " cells)";
    return s + "}";
  }
  if (v.type == view::kind::tree) {
    std::string s = v.label + " in {";
    for (std::size_t c = 0; c < m; ++c) {
      if (in[c]) {
        if (count < 12) s += (count ? "," : "") + std::to_string(c);
        ++count;
      }
    }
    if (count > 12) s += ",...";
    return s + "} (" + std::to_string(count) + " of " + std::to_string(m) + " leaves)";
  }
  const bool other = in[m - 1] != 0;
  std::size_t inside = 0;
  for (std::size_t c = 0; c + 1 < m; ++c) inside += in[c] ? 1 : 0;
  const bool negate = other || inside * 2 > m - 1;
  std::string s = v.label + (negate ? " not in {" : " in {");
  for (std::size_t c = 0; c + 1 < m; ++c) {
    if ((in[c] != 0) != negate) {
      if (count < 8) {
        s += count ? ", " : "";
        s += v.type == view::kind::bits
                 ? describe_bit_key(v.keys[c])
                 : (name ? name(v.keys[c]) : "#" + std::to_string(v.keys[c]));
      }
      ++count;
    }
  }
  if (count > 8) s += ", ... (" + std::to_string(count) + " values)";
  return s + "}";
}

/// Merges the cut views of each coordinate into one and drops cut points
/// that no test distinguishes (adjacent cells with the same membership in
/// every test): the same events on fewer cells, so that evaluation is one
/// short search per coordinate.
void compact_cut_views(plan& p) {
  std::vector<view> views;
  std::vector<std::size_t> remap(p.views.size());
  std::map<std::size_t, std::vector<std::size_t>> by_coord;
  for (std::size_t v = 0; v < p.views.size(); ++v) {
    if (p.views[v].type == view::kind::cuts) by_coord[p.views[v].coord].push_back(v);
  }
  for (std::size_t v = 0; v < p.views.size(); ++v) {
    if (p.views[v].type == view::kind::cuts) continue;
    remap[v] = views.size();
    views.push_back(p.views[v]);
  }
  // Classify the tests by their original view before any index changes.
  std::vector<std::size_t> orig(p.tests.size());
  for (std::size_t k = 0; k < p.tests.size(); ++k) orig[k] = p.tests[k].view;
  for (auto& t : p.tests) {
    if (p.views[t.view].type != view::kind::cuts) t.view = remap[t.view];
  }
  for (const auto& [coord, vs] : by_coord) {
    std::vector<double> cuts;
    for (auto v : vs) cuts.insert(cuts.end(), p.views[v].cuts.begin(), p.views[v].cuts.end());
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    // Tests on this coordinate, their masks on the merged cells.
    std::vector<test*> ts;
    std::vector<std::size_t> tv;  // original view of each
    for (std::size_t k = 0; k < p.tests.size(); ++k) {
      if (std::find(vs.begin(), vs.end(), orig[k]) != vs.end()) {
        ts.push_back(&p.tests[k]);
        tv.push_back(orig[k]);
      }
    }
    const std::size_t m = cuts.size() + 1;
    std::vector<std::vector<std::uint8_t>> in(ts.size(), std::vector<std::uint8_t>(m));
    for (std::size_t k = 0; k < ts.size(); ++k) {
      const auto& old = p.views[tv[k]].cuts;
      for (std::size_t c = 0; c < m; ++c) {
        // Merged cell c is (cuts[c-1], cuts[c]]; its old cell: #old cuts < any point of it.
        const std::size_t oc =
            c == 0 ? 0
                   : static_cast<std::size_t>(
                         std::upper_bound(old.begin(), old.end(), cuts[c - 1]) - old.begin());
        in[k][c] = ts[k]->in[oc];
      }
    }
    // Keep cut c (between cells c and c+1) only if some test separates them.
    std::vector<double> kept;
    std::vector<std::size_t> first_cell{0};
    for (std::size_t c = 0; c + 1 < m; ++c) {
      bool differs = false;
      for (const auto& x : in) differs |= x[c] != x[c + 1];
      if (differs) {
        kept.push_back(cuts[c]);
        first_cell.push_back(c + 1);
      }
    }
    view w = p.views[vs.front()];
    w.cuts = kept;
    const std::size_t vi = views.size();
    views.push_back(w);
    for (std::size_t k = 0; k < ts.size(); ++k) {
      std::vector<std::uint8_t> nm(first_cell.size());
      for (std::size_t c = 0; c < first_cell.size(); ++c) nm[c] = in[k][first_cell[c]];
      ts[k]->in = std::move(nm);
      ts[k]->view = vi;
    }
  }
  p.views = std::move(views);
}

// ------------------------------------------------------------ candidates

/// Every candidate event of the selection split and the families they
/// belong to.
struct candidate_pool {
  std::vector<family> fams;
  std::vector<candidate> cands;
  bool categorical = false;
};

/// Throws unless the two sides can be audited against each other at
/// opt.confidence.
void check_selection_inputs(const sample_block& s0, const sample_block& s1,
                            const select_options& opt) {
  if (s0.type != s1.type || (s0.type == output_type::real && s0.dim != s1.dim)) {
    throw std::invalid_argument("select_tests: the two sides have different output types");
  }
  if (s0.size() == 0 || s1.size() == 0) {
    throw std::invalid_argument("select_tests: a side has no selection samples");
  }
  if (!(opt.confidence > 0 && opt.confidence < 1)) {
    throw std::invalid_argument("select_tests(confidence=" + fmt_num(opt.confidence) +
                                "): must be in (0, 1)");
  }
}

/// A plan with no test yet: output type, selection sizes and confidence.
plan empty_plan(const sample_block& s0, const sample_block& s1, const select_options& opt) {
  plan p;
  p.type = s0.type;
  p.dim = s0.type == output_type::real ? s0.dim : 1;
  p.selection[0] = s0.size();
  p.selection[1] = s1.size();
  p.confidence = opt.confidence;
  return p;
}

/// `share`: the primary tests' share of the error budget 1 - confidence.
context planning_context(const tradeoff& claim, const select_options& opt, double share) {
  const double g = 1.0 - opt.confidence;
  context cx;
  cx.claim = &claim;
  cx.delta = opt.delta;
  cx.n_eval[0] = opt.n_eval[0];
  cx.n_eval[1] = opt.n_eval[1];
  cx.g_plan = share * g * kWeightAssumed / 2.0;
  cx.z_plan = upper_quantile(cx.g_plan);
  cx.z_shrink = upper_quantile(kShrinkLevel);
  return cx;
}

/// IEEE-754 bit-pattern cells of coordinate j (select_options::bit_features).
void bit_family(const sample_block& s0, const sample_block& s1, std::size_t j,
                const std::string& label, candidate_pool& pool) {
  const std::size_t d = s0.dim;
  raw_vector<std::int64_t> k0(s0.size()), k1(s1.size());
  for (std::size_t i = 0; i < k0.size(); ++i) k0[i] = bit_key(s0.real[i * d + j]);
  for (std::size_t i = 0; i < k1.size(); ++i) k1[i] = bit_key(s1.real[i * d + j]);
  keyed_family(view::kind::bits, "bit cell of " + label, k0, k1, pool.fams, pool.cands);
}

/// Thresholds and bins of each coordinate (and their bit cells); for vector
/// outputs also the tree and the pattern families.
void real_families(const sample_block& s0, const sample_block& s1, const select_options& opt,
                   candidate_pool& pool) {
  const std::size_t d = s0.dim;
  std::vector<std::vector<double>> tree_cuts(d);
  std::vector<sorted_column> cols(d >= 2 ? d : 0);
  for (std::size_t j = 0; j < d; ++j) {
    const std::string label = d == 1 ? "output" : "coordinate " + std::to_string(j);
    sorted_column col = sort_column(s0, s1, j, opt.threads);
    threshold_family(col, j, label, pool.fams, pool.cands, opt.threads);
    bins_family(col, j, label, pool.fams, pool.cands);
    if (d >= 2) {
      tree_cuts[j] = cut_points(col.poolA, kTreeCuts);
      cols[j].poolA = std::move(col.poolA);
    }
    if (opt.bit_features) bit_family(s0, s1, j, label, pool);
  }
  if (d >= 2) {
    tree_family(s0, s1, opt.max_tree_samples, tree_cuts, pool.fams, pool.cands);
    pattern_family(s0, s1, cols, pool.fams, pool.cands);
  }
}

candidate_pool gather_candidates(const sample_block& s0, const sample_block& s1,
                                 const select_options& opt) {
  candidate_pool pool;
  pool.categorical = s0.type == output_type::categorical;
  if (pool.categorical) {
    keyed_family(view::kind::categories, "output", s0.cat, s1.cat, pool.fams, pool.cands,
                 opt.category_name);
  } else {
    real_families(s0, s1, opt, pool);
  }
  return pool;
}

// ------------------------------------------------------------ choosing

/// A candidate chosen as a test: its roles (joined by '+') and the sum of
/// their weights in the primary error budget.
struct chosen_test {
  std::size_t cand;
  std::string role;
  double weight;
};

/// The chosen tests, in the order they were chosen.
struct chosen_tests {
  std::vector<chosen_test> list;

  /// Chooses candidate i for `role`; a candidate already chosen only gains
  /// the role and its weight (a curve test adds neither). True if i is new.
  bool take(std::size_t i, const std::string& role, double w) {
    for (auto& c : list) {
      if (c.cand == i) {
        if (role != "curve" && c.role.find(role) == std::string::npos) {
          c.role += "+" + role;
          c.weight += w;
        }
        return false;
      }
    }
    list.push_back({i, role, w});
    return true;
  }
};

/// Finalists of one objective: the kFinalists best candidates by the
/// approximate score `key`, re-scored exactly, best first (non-threshold
/// events on real outputs handicapped by kSimplicity).
template <class Key>
std::vector<std::size_t> finalists(candidate_pool& pool, const context& cx, Key key) {
  auto& cands = pool.cands;
  std::vector<std::size_t> ix(cands.size());
  std::iota(ix.begin(), ix.end(), 0);
  const std::size_t k = std::min<std::size_t>(kFinalists, ix.size());
  std::partial_sort(
      ix.begin(), ix.begin() + static_cast<std::ptrdiff_t>(k), ix.end(),
      [&](std::size_t a, std::size_t b) { return key(cands[a].approx) > key(cands[b].approx); });
  ix.resize(k);
  for (auto i : ix) score_exact(cands[i], cx);
  auto adj = [&](std::size_t i) {
    const double v = key(cands[i].exact);
    const bool simple = pool.categorical || pool.fams[cands[i].fam].k == family::kind::threshold;
    return simple || !std::isfinite(v) ? v : v - kSimplicity * std::fabs(v);
  };
  std::stable_sort(ix.begin(), ix.end(),
                   [&](std::size_t a, std::size_t b) { return adj(a) > adj(b); });
  return ix;
}

/// Frequencies x / nx and y / ny differ by more than a quarter of the larger
/// (plus 2 / min(nx, ny)).
bool far_apart(std::uint64_t x, std::uint64_t nx, std::uint64_t y, std::uint64_t ny) {
  const double u = static_cast<double>(x) / static_cast<double>(nx),
               v = static_cast<double>(y) / static_cast<double>(ny);
  return std::fabs(u - v) > 0.25 * std::max(u, v) + 2.0 / static_cast<double>(std::min(nx, ny));
}

/// Two candidates are the same test when their counts agree directly or
/// through the mirror (the complement event of the other ordering).
/// (Frequencies are compared: families count on different halves.)
bool distinct_tests(const candidate& a, const candidate& b) {
  const bool direct = a.ordering != b.ordering || far_apart(a.kP, a.nP, b.kP, b.nP) ||
                      far_apart(a.kQ, a.nQ, b.kQ, b.nQ);
  const bool mirror = a.ordering == b.ordering || far_apart(a.kP, a.nP, b.nQ - b.kQ, b.nQ) ||
                      far_apart(a.kQ, a.nQ, b.nP - b.kP, b.nP);
  return direct && mirror;
}

/// The hedge against selection noise for the epsilon test `best`: the best
/// of the highest-ranked candidates (by the approximate score, over all
/// candidates) that are a different test.
std::optional<std::size_t> epsilon_hedge(candidate_pool& pool, const context& cx,
                                         std::size_t best) {
  auto& cands = pool.cands;
  std::vector<std::size_t> ix(cands.size());
  std::iota(ix.begin(), ix.end(), 0);
  std::stable_sort(ix.begin(), ix.end(), [&](std::size_t a, std::size_t b) {
    return cands[a].approx.eps > cands[b].approx.eps;
  });
  std::vector<std::size_t> alt;
  for (auto i : ix) {
    if (alt.size() >= kFinalists / 2 || !std::isfinite(cands[i].approx.eps)) break;
    if (distinct_tests(cands[i], cands[best])) alt.push_back(i);
  }
  for (auto i : alt) score_exact(cands[i], cx);
  std::stable_sort(alt.begin(), alt.end(), [&](std::size_t a, std::size_t b) {
    return cands[a].exact.eps > cands[b].exact.eps;
  });
  if (alt.empty()) return std::nullopt;
  return alt[0];
}

void choose_epsilon_tests(candidate_pool& pool, const context& cx, chosen_tests& chosen) {
  const auto e = finalists(pool, cx, [](const objectives& o) { return o.eps; });
  if (e.empty()) return;
  chosen.take(e[0], "epsilon", kWeightEps1);
  if (const auto alt = epsilon_hedge(pool, cx, e[0])) chosen.take(*alt, "epsilon", kWeightEps2);
}

/// The first test already chosen that scores at least best - tol by `key`.
template <class Key>
std::optional<std::size_t> reusable(const chosen_tests& chosen, candidate_pool& pool,
                                    const context& cx, Key key, double best, double tol) {
  for (const auto& ch : chosen.list) {
    score_exact(pool.cands[ch.cand], cx);
    if (key(pool.cands[ch.cand].exact) >= best - tol) return ch.cand;
  }
  return std::nullopt;
}

/// The best test for one objective; a test already chosen serves instead
/// when it is nearly as good, within tolerance(best) (one test, pooled
/// budget).
template <class Key, class Tolerance>
void choose_or_reuse(candidate_pool& pool, const context& cx, chosen_tests& chosen, Key key,
                     Tolerance tolerance, const std::string& role, double weight) {
  const auto top = finalists(pool, cx, key);
  if (top.empty()) return;
  const double b = key(pool.cands[top[0]].exact);
  std::optional<std::size_t> r;
  if (std::isfinite(b)) r = reusable(chosen, pool, cx, key, b, tolerance(b));
  chosen.take(r ? *r : top[0], role, weight);
}

/// Primary tests: the best for epsilon and its hedge, the best for mu and
/// the best for the claim (the weights are their shares of the budget).
void choose_primary_tests(candidate_pool& pool, const context& cx, chosen_tests& chosen) {
  choose_epsilon_tests(pool, cx, chosen);
  const auto mu = [](const objectives& o) { return o.mu; };
  const auto within_5_percent = [](double best) { return 0.05 * std::fabs(best); };
  choose_or_reuse(pool, cx, chosen, mu, within_5_percent, "mu", kWeightMu);
  const auto margin = [](const objectives& o) { return o.margin; };
  const auto within_10_percent = [](double best) { return 0.1 * std::fabs(best) + 0.005; };
  choose_or_reuse(pool, cx, chosen, margin, within_10_percent, "claim", kWeightClaim);
}

/// Selection estimates (alpha, beta) of every candidate, then of its mirror
/// (at index + cands.size()).
struct estimate_points {
  std::vector<double> x, y;
};

estimate_points selection_estimates(const std::vector<candidate>& cands) {
  const std::size_t nc = cands.size();
  estimate_points pts;
  pts.x.resize(2 * nc);
  pts.y.resize(2 * nc);
  for (std::size_t i = 0; i < nc; ++i) {
    pts.x[i] = static_cast<double>(cands[i].kP) / static_cast<double>(cands[i].nP);
    pts.y[i] = 1.0 - static_cast<double>(cands[i].kQ) / static_cast<double>(cands[i].nQ);
    pts.x[nc + i] = pts.y[i];
    pts.y[nc + i] = pts.x[i];
  }
  return pts;
}

/// Positions on the hull of the vertex nearest to each of `count` alphas,
/// log-spaced from the smallest positive alpha of the hull up to 1, until
/// `limit` positions are selected.
void add_log_spaced(const std::vector<std::size_t>& hull, const std::vector<double>& hx,
                    std::size_t count, std::size_t limit, std::set<std::size_t>& sel) {
  double amin = 1.0;
  for (auto i : hull) {
    if (hx[i] > 0) amin = std::min(amin, hx[i]);
  }
  for (std::size_t i = 0; i < count && sel.size() < limit; ++i) {
    const double target = std::exp(
        std::log(amin) * (1.0 - static_cast<double>(i) / std::max<std::size_t>(1, count - 1)));
    std::size_t best = 0;
    double bd = kInf;
    for (std::size_t h = 0; h < hull.size(); ++h) {
      const double dd = std::fabs(std::log(std::max(hx[hull[h]], amin * 1e-3)) - std::log(target));
      if (dd < bd) bd = dd, best = h;
    }
    sel.insert(best);
  }
}

/// At most C vertices of the hull (point indices), spread over alpha: half
/// evenly along the hull, the rest log-spaced in alpha.
std::vector<std::size_t> spread_over_alpha(const std::vector<std::size_t>& hull,
                                           const std::vector<double>& hx, std::size_t C) {
  if (hull.size() <= C) return hull;
  std::set<std::size_t> sel;
  const std::size_t half = C / 2;
  for (std::size_t i = 0; i < half; ++i)
    sel.insert(i * (hull.size() - 1) / std::max<std::size_t>(1, half - 1));
  add_log_spaced(hull, hx, C - half, C, sel);
  std::vector<std::size_t> pick;
  for (auto h : sel) pick.push_back(hull[h]);
  return pick;
}

/// Curve tests: up to C vertices of the lower convex hull of the selection
/// estimates (candidates and their mirrors); a vertex already chosen as a
/// test does not count.
void choose_curve_tests(const candidate_pool& pool, int C, chosen_tests& chosen) {
  const std::size_t nc = pool.cands.size();
  const estimate_points pts = selection_estimates(pool.cands);
  const auto pick = spread_over_alpha(lower_hull(pts.x, pts.y), pts.x, static_cast<std::size_t>(C));
  int taken = 0;
  for (auto i : pick) {
    if (taken < C && chosen.take(i % nc, "curve", 0.0)) ++taken;
  }
}

// ------------------------------------------------------------ the plan

/// One view per family of a chosen test (a threshold family's cut at the
/// chosen thresholds only), appended to p.views; returns each family's view.
std::map<std::uint32_t, std::size_t> add_views(const candidate_pool& pool,
                                               const chosen_tests& chosen, plan& p) {
  std::map<std::uint32_t, std::size_t> view_of;
  std::map<std::uint32_t, std::vector<double>> thresholds;
  for (const auto& ch : chosen.list) {
    const auto& c = pool.cands[ch.cand];
    if (pool.fams[c.fam].k == family::kind::threshold) thresholds[c.fam].push_back(c.t);
  }
  for (const auto& ch : chosen.list) {
    const auto fi = pool.cands[ch.cand].fam;
    if (view_of.count(fi)) continue;
    view v = pool.fams[fi].proto;
    if (pool.fams[fi].k == family::kind::threshold) {
      auto ts = thresholds[fi];
      std::sort(ts.begin(), ts.end());
      ts.erase(std::unique(ts.begin(), ts.end()), ts.end());
      v.cuts = ts;
    }
    if (v.type == view::kind::categories || v.type == view::kind::bits) v.index_keys();
    view_of[fi] = p.views.size();
    p.views.push_back(std::move(v));
  }
  return view_of;
}

/// The level of each one-sided bound (select.hpp, "Error budget").
struct error_levels {
  double g = 0;           ///< 1 - confidence
  double share = 1;       ///< the primary tests' share of g
  double weight_sum = 0;  ///< of all chosen tests
  double curve = 0;       ///< each bound of a curve test

  double primary(double weight) const { return share * g * weight / (2.0 * weight_sum); }
};

/// `primary`: how many of the chosen tests are primary (they come first).
error_levels levels_of(const chosen_tests& chosen, std::size_t primary, double g, double share) {
  const std::size_t Kc = chosen.list.size() - primary;
  error_levels lv;
  lv.g = g;
  lv.share = Kc > 0 ? share : 1.0;
  for (const auto& ch : chosen.list) lv.weight_sum += ch.weight;
  lv.curve = Kc > 0 ? (1.0 - lv.share) * g / (4.0 * static_cast<double>(Kc)) : 0.0;
  return lv;
}

/// The cells of candidate c on its view v (t.in) and the event in words,
/// with its complement's.
void describe_event(const candidate& c, const family& f, const view& v,
                    const std::function<std::string(std::int64_t)>& name, test& t) {
  t.in.assign(v.cells(), 0);
  switch (f.k) {
    case family::kind::threshold: {
      const auto ix = static_cast<std::size_t>(std::lower_bound(v.cuts.begin(), v.cuts.end(), c.t) -
                                               v.cuts.begin());
      for (std::size_t cell = 0; cell < t.in.size(); ++cell) {
        t.in[cell] = c.flag ? (cell <= ix) : (cell > ix);
      }
      t.description = v.label + (c.flag ? " <= " : " > ") + fmt_num(c.t);
      t.complement = v.label + (c.flag ? " > " : " <= ") + fmt_num(c.t);
      break;
    }
    case family::kind::subsets: {
      for (std::size_t cell = 0; cell + 1 < t.in.size(); ++cell) t.in[cell] = (c.param >> cell) & 1;
      t.description = describe_cells(v, t.in, name);
      break;
    }
    case family::kind::prefix: {
      std::vector<std::uint8_t> pre(v.cells(), 0);
      for (std::size_t j = 0; j < c.param; ++j) pre[f.order[j]] = 1;
      for (std::size_t cell = 0; cell < t.in.size(); ++cell)
        t.in[cell] = c.flag ? pre[cell] : !pre[cell];
      t.description = describe_cells(v, t.in, name);
      break;
    }
  }
  if (t.complement.empty()) {
    std::vector<std::uint8_t> comp(t.in.size());
    for (std::size_t cell = 0; cell < comp.size(); ++cell) comp[cell] = !t.in[cell];
    t.complement = describe_cells(v, comp, name);
  }
}

/// The test of a chosen candidate, on view `vi` of p.
test make_test(const chosen_test& ch, const candidate_pool& pool, const plan& p, std::size_t vi,
               const select_options& opt, const error_levels& lv) {
  const auto& c = pool.cands[ch.cand];
  test t;
  t.view = vi;
  describe_event(c, pool.fams[c.fam], p.views[vi], opt.category_name, t);
  t.ordering = c.ordering;
  t.role = ch.role;
  t.band = ch.role == "curve";
  t.gamma = t.band ? lv.curve : lv.primary(ch.weight);
  t.sel_alpha = static_cast<double>(c.kP) / static_cast<double>(c.nP);
  t.sel_beta = 1.0 - static_cast<double>(c.kQ) / static_cast<double>(c.nQ);
  return t;
}

}  // namespace

plan select_tests(const sample_block& s0, const sample_block& s1, const tradeoff& claim,
                  const select_options& opt) {
  check_selection_inputs(s0, s1, opt);
  plan p = empty_plan(s0, s1, opt);
  if (opt.n_eval[0] == 0 || opt.n_eval[1] == 0) return p;

  const double g = 1.0 - opt.confidence;
  const int C = std::max(0, opt.curve_tests);
  const double share = C > 0 ? opt.primary_share : 1.0;
  const context cx = planning_context(claim, opt, share);

  candidate_pool pool = gather_candidates(s0, s1, opt);
  if (pool.cands.empty()) return p;
  for (auto& c : pool.cands) score_approx(c, cx);

  chosen_tests chosen;
  choose_primary_tests(pool, cx, chosen);
  const std::size_t K = chosen.list.size();
  if (C > 0) choose_curve_tests(pool, C, chosen);

  const auto view_of = add_views(pool, chosen, p);
  const error_levels lv = levels_of(chosen, K, g, share);
  for (const auto& ch : chosen.list) {
    const std::size_t vi = view_of.at(pool.cands[ch.cand].fam);
    p.tests.push_back(make_test(ch, pool, p, vi, opt, lv));
  }
  compact_cut_views(p);
  for (auto& v : p.views) v.prepare();
  return p;
}

}  // namespace fdp::audit
