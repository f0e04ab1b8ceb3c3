#include "fdp/budget/incremental_pld.hpp"

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <limits>
#include <atomic>
#include <memory>
#include <mutex>
#include <set>
#include <system_error>
#include <thread>

#include "fdp/core/error.hpp"
#include "fdp/ops/pld_grid.hpp"
#include "ops/pld/spectrum.hpp"
#include "ops/pld/sums.hpp"

namespace fdp {
namespace detail {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kU = std::numeric_limits<double>::epsilon() / 2;
constexpr double kTail = 1e-16;   // window tail mass (Chernoff), as compose_options::tail
constexpr int kChannels = 4;      // 0: pess T(P,Q), 1: pess T(Q,P), 2: opt T(P,Q), 3: opt T(Q,P)

std::vector<double> tilts() {
  std::vector<double> t;
  for (int j = -16; j <= 16; ++j) {
    if (j == 0) continue;
    t.push_back((j > 0 ? 1.0 : -1.0) * std::pow(2.0, std::abs(j) - 8.0));
  }
  return t;
}
const std::vector<double>& kTilts() {
  static const std::vector<double> t = tilts();
  return t;
}

// (tilted_log_mgfs and loss_cut are the engine's, ops/pld_internal.hpp; the
// ledger's cuts bisect 60 times, the engine's 40)
constexpr int kCutBisections = 60;

std::int64_t ledger_good_size(std::int64_t n) {
  std::int64_t best = std::int64_t(1) << 62;
  for (std::int64_t p2 = 1; p2 < 2 * n + 2; p2 *= 2)
    for (std::int64_t m : {1, 3, 5})
      if (p2 * m >= n && p2 * m < best) best = p2 * m;
  return best;
}

// fftw-aligned scratch buffers
struct scratch {
  double* r = nullptr;
  fftw_complex* c = nullptr;
  explicit scratch(std::int64_t n) {
    r = fftw_alloc_real(static_cast<std::size_t>(n));
    c = fftw_alloc_complex(static_cast<std::size_t>(n / 2 + 1));
    if (!r || !c) throw std::bad_alloc();
  }
  ~scratch() {
    fftw_free(r);
    fftw_free(c);
  }
  scratch(const scratch&) = delete;
  scratch& operator=(const scratch&) = delete;
};

// Large buffers (the channels' products, cached transforms, the views) are
// allocated and freed at every add (the ledger's trial copy, copy-on-write
// channels). Fresh large blocks come from mmap and cost a page fault per 4 KiB
// on first touch, which dominated an add; freed blocks are kept here for reuse
// instead (size classes 2^k x {4,5,6,7}/4, at most kPoolCap bytes cached).
class block_pool {
 public:
  static block_pool& get() {
    static block_pool* p = new block_pool;  // never destroyed (used until exit)
    return *p;
  }
  static std::size_t size_class(std::size_t bytes) {
    if (bytes < kPoolMin) return bytes;
    std::size_t p2 = kPoolMin / 2;
    while (p2 * 2 < bytes) p2 *= 2;  // p2 < bytes <= 2 p2
    for (std::size_t m : {5, 6, 7, 8})
      if (p2 / 4 * m >= bytes) return p2 / 4 * m;
    return 2 * p2;
  }
  void* take(std::size_t bytes) {
    const std::size_t c = size_class(bytes);
    if (c >= kPoolMin) {
      std::lock_guard<std::mutex> lk(mu_);
      auto it = free_.find(c);
      if (it != free_.end() && !it->second.empty()) {
        void* p = it->second.back();
        it->second.pop_back();
        cached_ -= c;
        return p;
      }
    }
    void* p = std::malloc(c);
    if (!p) throw std::bad_alloc();
    return p;
  }
  void give(void* p, std::size_t bytes) {
    const std::size_t c = size_class(bytes);
    if (c >= kPoolMin) {
      std::lock_guard<std::mutex> lk(mu_);
      if (cached_ + c <= kPoolCap) {
        free_[c].push_back(p);
        cached_ += c;
        return;
      }
    }
    std::free(p);
  }

 private:
  static constexpr std::size_t kPoolMin = std::size_t(64) << 10;
  static constexpr std::size_t kPoolCap = std::size_t(192) << 20;
  std::mutex mu_;
  std::map<std::size_t, std::vector<void*>> free_;
  std::size_t cached_ = 0;
};

// fftw scratch of one thread, kept between calls (grown on demand).
scratch& scratch_for(std::int64_t n) {
  thread_local std::unique_ptr<scratch> s;
  thread_local std::int64_t size = 0;
  if (!s || size < n) {
    s.reset();
    s = std::make_unique<scratch>(n);
    size = n;
  }
  return *s;
}

}  // namespace

template <class T>
struct pooled {
  using value_type = T;
  pooled() = default;
  template <class U>
  pooled(const pooled<U>&) {}
  T* allocate(std::size_t n) { return static_cast<T*>(block_pool::get().take(n * sizeof(T))); }
  void deallocate(T* p, std::size_t n) { block_pool::get().give(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const pooled<U>&) const { return true; }
  template <class U>
  bool operator!=(const pooled<U>&) const { return false; }
};
using cvec = std::vector<std::complex<double>, pooled<std::complex<double>>>;
using dvec = std::vector<double, pooled<double>>;

// One discretized law in one channel.
struct ipld_term {
  std::vector<double> x, e;
  double off = 0.0;
  std::int64_t k0 = 0;
  double fin = 0.0, all = 0.0, l2 = 0.0, s0 = 0.0, e0 = 0.0, a0 = 0.0;
  double inf = 0.0;   // mass at +inf
  double inf_err = 0.0;  // its error bound (finite mass folded into it; 0: none)
  bool full = true;   // no mass removed by the discretization (see compose_grid)
  std::vector<double> km, ke;
  // e with the discretization's shifts discounted (shift_discounted_errors;
  // empty: none), its sum and tilted log-sums
  std::vector<double> a, ka;
};

struct ipld_group {
  std::string key;
  std::shared_ptr<const loss_law> law;
  bool symmetric = true;
  ipld_term term[kChannels];
  // cached transforms (size N/2+1) for the FFT size spec_n
  std::int64_t spec_n = 0;
  cvec spec[kChannels];
  std::uint64_t last_use = 0;
  std::size_t spec_bytes() const {
    std::size_t b = 0;
    for (const auto& v : spec) b += v.capacity() * sizeof(std::complex<double>);
    return b;
  }
};

namespace {

ipld_term make_term(const grid_pmf& g, bool use_p, double h) {
  ipld_term t;
  const std::size_t n = g.p.size();
  if (!use_p) {
    t.x = g.q;
    t.off = g.offset;
    t.k0 = g.k0;
    t.e = g.err_q;
    t.fin = 0.0;
    for (double v : t.x) t.fin += v;
    t.all = std::min(1.0, t.fin + g.q_pos_inf);
  } else {
    t.x.assign(g.p.rbegin(), g.p.rend());
    t.off = -g.offset;
    t.k0 = -(g.k0 + static_cast<std::int64_t>(n) - 1);
    t.e.assign(g.err_p.rbegin(), g.err_p.rend());
    t.fin = 0.0;
    for (double v : t.x) t.fin += v;
    t.all = std::min(1.0, t.fin + g.p_neg_inf);
  }
  t.inf = use_p ? g.p_neg_inf : g.q_pos_inf;
  t.inf_err = use_p ? g.p_neg_inf_err : g.q_pos_inf_err;
  t.full = g.dropped_p == 0 && g.dropped_q == 0 && g.leftover == 0;
  if (t.e.size() != t.x.size()) t.e.assign(t.x.size(), 0.0);
  double s2 = 0.0;
  for (std::size_t k = 0; k < t.x.size(); ++k) {
    t.e[k] += 8 * kU * std::fabs(t.x[k]);
    s2 += t.x[k] * t.x[k];
    t.s0 += std::max(0.0, t.x[k]);
    t.e0 += t.e[k];
  }
  t.l2 = std::sqrt(s2);
  tilted_log_mgfs(t.x, t.off, h, t.k0, kTilts(), t.km);
  tilted_log_mgfs(t.e, t.off, h, t.k0, kTilts(), t.ke);
  t.a = shift_discounted_errors(g, use_p, t.e, h);
  if (!t.a.empty()) {
    for (double v : t.a) t.a0 += v;
    tilted_log_mgfs(t.a, t.off, h, t.k0, kTilts(), t.ka);
  }
  return t;
}

// Rounding of z^n by repeated squaring: an error made at a squaring is raised
// to the power of the squarings after it, so the relative error grows like
// n (not log n) multiplications' worth; count n (+ the product into Z).
double mults_for(std::int64_t n) { return static_cast<double>(n) + 1.0; }

}  // namespace
}  // namespace detail

using detail::ipld_group;
using detail::ipld_term;
using detail::kChannels;

struct incremental_pld::channel {
  detail::cvec Z;
  double off = 0.0;
  std::int64_t base = 0, top = 0;
  double err_in = 0.0, mults = 0.0;
  // Mass at +inf: prod T^n (1 - prod (1 - I/T)^n), T a term's total mass (1
  // for a full measure; see compose_grid). inf_lg = sum n log1p(-I/T),
  // inf_lt = sum n log T over the terms that are not full; and what its
  // rounding error bound needs: the sums' additions (inf_adds), their
  // applications (inf_apps, and of terms that are not full, nf_apps), and
  // the mass of a single application (exact, no rounding).
  double inf_lg = 0.0, inf_lt = 0.0, inf_one = 0.0;
  double inf_err = 0.0;  // sum n x the terms' folded-mass errors (d m_inf / d I <= n)
  std::int64_t inf_adds = 0, inf_apps = 0, nf_apps = 0;
  std::vector<double> K;
  // mass-error bounds, flat (acc0) and per tilt (acc), as in compose_grid
  detail::error_bound_acc acc0;
  std::vector<detail::error_bound_acc> acc;
  bool shifts = false;
  channel() : K(detail::kTilts().size(), 0.0), acc(detail::kTilts().size()) {}

  void add_sums(const ipld_term& t, std::int64_t n) {
    const double nn = static_cast<double>(n);
    off += nn * t.off;
    base += n * t.k0;
    top += n * (t.k0 + static_cast<std::int64_t>(t.x.size()) - 1);
    if (t.inf > 0) {
      const double tot = t.full ? 1.0 : t.all;
      if (!t.full) inf_lt += nn * std::log(tot), nf_apps += n;
      inf_lg += nn * std::log1p(-std::min(1.0, t.inf / tot));
      inf_adds += 1;
      inf_apps += n;
      inf_one = t.inf;
    }
    inf_err += nn * t.inf_err;
    err_in += nn * t.l2;
    // (a term with errors but no finite mass counts too: its factor is D)
    const double le0 = std::log(t.e0);
    acc0.add(std::log(t.s0), le0, t.a.empty() ? le0 : std::log(t.a0), nn);
    for (std::size_t i = 0; i < K.size(); ++i) {
      K[i] += nn * t.km[i];
      acc[i].add(t.km[i], t.ke[i], t.a.empty() ? t.ke[i] : t.ka[i], nn);
    }
    shifts = shifts || !t.a.empty();
  }

  // The Chernoff window [klo, khi] (grid indices) for tail mass kTail per side.
  void window(double h, std::int64_t& klo, std::int64_t& khi) const {
    const double lt = std::log(detail::kTail);
    double y_hi = off + static_cast<double>(top) * h, y_lo = off + static_cast<double>(base) * h;
    const auto& ts = detail::kTilts();
    for (std::size_t i = 0; i < ts.size(); ++i) {
      if (!std::isfinite(K[i])) continue;
      const double y = (K[i] - lt) / ts[i];
      if (ts[i] > 0) y_hi = std::min(y_hi, y);
      else y_lo = std::max(y_lo, y);
    }
    // crossed bounds: at most 2 kTail of finite mass in all (see compose_grid)
    if (y_hi < y_lo) {
      const double ybot = off + static_cast<double>(base) * h, ytop = off + static_cast<double>(top) * h;
      y_hi = y_lo = 0.5 * (std::max(y_hi, ybot) + std::min(y_lo, ytop));
    }
    klo = static_cast<std::int64_t>(std::floor((y_lo - off) / h)) - 1;
    khi = static_cast<std::int64_t>(std::ceil((y_hi - off) / h)) + 1;
    klo = std::max(klo, base);
    khi = std::min(khi, top);
    if (khi < klo) khi = klo;
  }
};

// A channel's composed distribution on its window, with the certificate's terms
// (the query side of composed_pld, pld_grid.hpp).
struct incremental_pld::view {
  std::uint64_t version = ~std::uint64_t(0);
  double h = 0.0, off = 0.0;
  std::int64_t k0 = 0, top = 0;
  detail::dvec m, sm, se;
  double m_inf = 0.0, m_inf_rel = 0.0, m_inf_err = 0.0, tail_lo = 0.0, tail_hi = 0.0, fft_l2 = 0.0, err0 = 0.0;
  std::vector<double> K, err_k;
  bool active = false;

  void reset() {
    version = ~std::uint64_t(0);
    h = off = 0.0;
    k0 = top = 0;
    m.clear();
    sm.clear();
    se.clear();
    m_inf = m_inf_rel = m_inf_err = tail_lo = tail_hi = fft_l2 = err0 = 0.0;
    K.clear();
    err_k.clear();
    active = false;
  }

  double loss(std::size_t j) const { return off + static_cast<double>(k0 + static_cast<std::int64_t>(j)) * h; }
  std::size_t first_above(double eps) const {
    const double x = (eps - off) / h - static_cast<double>(k0);
    if (x < 0) return 0;
    if (x >= static_cast<double>(m.size())) return m.size();
    std::size_t j = static_cast<std::size_t>(std::floor(x));
    while (j < m.size() && loss(j) <= eps) ++j;
    return j;
  }
  double fin_raw(double eps, std::size_t j) const {
    if (j >= m.size()) return 0.0;
    return sm[j] - std::exp(eps - loss(j)) * se[j];
  }
  double slack(std::size_t j) const {
    return fft_l2 * std::sqrt(static_cast<double>(m.size() - std::min(j, m.size())));
  }
  double tail_above(double eps) const {
    double b = tail_hi;
    const auto& ts = detail::kTilts();
    for (std::size_t i = 0; i < ts.size(); ++i)
      if (ts[i] > 0 && std::isfinite(K[i])) b = std::min(b, std::exp(K[i] - ts[i] * eps));
    return b;
  }
  double mass_error_above(double eps) const {
    double b = err0;
    const auto& ts = detail::kTilts();
    for (std::size_t i = 0; i < ts.size(); ++i)
      if (ts[i] > 0 && std::isfinite(err_k[i])) b = std::min(b, std::exp(err_k[i] - ts[i] * eps));
    return b;
  }
  // (m_inf_rel: the relative rounding error bound of m_inf, set with it, and
  // m_inf_err the absolute one of the masses folded into it; without them
  // lower == upper == m_inf beyond the support, a few ulps off the truth
  // either way)
  double upper(double eps) const {
    const double mi = m_inf * (1 + m_inf_rel) + m_inf_err;
    if (eps >= off + static_cast<double>(top) * h) return std::min(1.0, mi);
    const std::size_t j = first_above(eps);
    double fin = std::max(0.0, fin_raw(eps, j)) + slack(j) + tail_above(eps) + mass_error_above(eps);
    if (j == 0) fin += tail_lo;
    return std::min(1.0, detail::sum_up(mi, fin));
  }
  double lower(double eps) const {
    const std::size_t j = first_above(eps);
    const double fin = fin_raw(eps, j) - slack(j) - tail_lo - tail_hi - mass_error_above(eps);
    return std::min(1.0, detail::sum_down(std::max(0.0, m_inf * (1 - m_inf_rel) - m_inf_err), std::max(0.0, fin)));
  }
};

incremental_pld::incremental_pld(double h, double window, double cut) : h_(h), cut_(cut) {
  detail::require_finite_pos(h, "incremental_pld", "h");
  detail::require(cut > 0 && cut <= 1e-9, "incremental_pld", "cut", cut, "must be in (0, 1e-9]");
  detail::require(std::isfinite(window) && window > 0, "incremental_pld", "window", window,
                  "must be finite and > 0");
  for (int c = 0; c < kChannels; ++c) ch_.push_back(std::make_shared<channel>());
  touch();
  N_ = detail::ledger_good_size(std::max<std::int64_t>(1024, static_cast<std::int64_t>(window / h)));
  if (N_ > (std::int64_t(1) << 26)) {
    throw evaluation_error("incremental_pld: a window of " + detail::format_value(window) +
                           " at h = " + detail::format_value(h) + " exceeds the FFT size limit");
  }
  for (auto& c : ch_) c->Z.assign(static_cast<std::size_t>(N_ / 2 + 1), {1.0, 0.0});
}

std::int64_t incremental_pld::needed_size() const {
  std::int64_t need = 0;
  for (int c = 0; c < kChannels; ++c) {
    if ((c == 1 || c == 3) && !reverse_) continue;
    std::int64_t klo, khi;
    ch_[c]->window(h_, klo, khi);
    need = std::max(need, khi - klo + 1);
  }
  for (const auto& g : groups_)
    for (const auto& t : g->term) need = std::max<std::int64_t>(need, static_cast<std::int64_t>(t.x.size()));
  return need;
}

// Multiplies the channels' products by the group's transforms to the power n
// (computing the transforms at the current N if needed).
void incremental_pld::incorporate(std::size_t gi, std::int64_t n, bool fresh_power, bool keep) {
  ipld_group& g = *groups_[gi];
  const std::size_t nc = static_cast<std::size_t>(N_ / 2 + 1);
  const auto pl = detail::fftw_plans_for(N_);
  // The term's transform at N_, in the scratch buffer; and Z *= S^n.
  const auto transform = [&](int c) {
    const ipld_term& t = g.term[c];
    detail::scratch& s = detail::scratch_for(N_);
    std::fill(s.r, s.r + N_, 0.0);
    std::copy(t.x.begin(), t.x.end(), s.r);
    fftw_execute_dft_r2c(pl->fwd, s.r, s.c);
    return reinterpret_cast<const std::complex<double>*>(s.c);
  };
  const auto multiply = [&](int c, const std::complex<double>* S) {
    if (ch_[c].use_count() > 1) ch_[c] = std::make_shared<channel>(*ch_[c]);
    channel& C = *ch_[c];
    if (n == 1 && !fresh_power) {
      for (std::size_t j = 0; j < nc; ++j) C.Z[j] *= S[j];
      C.mults += 1.0;
    } else {
      detail::mul_pow_all(C.Z.data(), S, nc, n);
      C.mults += detail::mults_for(n);
    }
  };
  const auto active = [&](int c) { return reverse_ || (c != 1 && c != 3); };
  if (!keep && g.spec_n != N_) {
    // Multiplied in straight from the FFT's output, nothing cached (a
    // replay: most groups are never added again, and caching hundreds of
    // transforms costs more in fresh pages than the FFTs they would save).
    for (auto& v : g.spec) detail::cvec().swap(v);
    g.spec_n = 0;
    for (int c = 0; c < kChannels; ++c)
      if (active(c)) multiply(c, transform(c));
    return;
  }
  for (int c = 0; c < kChannels; ++c) {
    if (!active(c) || (g.spec_n == N_ && g.spec[c].size() == nc)) continue;
    const std::complex<double>* S = transform(c);
    g.spec[c].assign(S, S + nc);
  }
  // all channels' transforms now exist at N_ (the reverse ones when active)
  for (int c = 0; c < kChannels; ++c)
    if (active(c)) multiply(c, g.spec[c].data());
  g.spec_n = N_;
  // Keep the cached transforms within a memory budget: drop those of the
  // groups used least recently (they are recomputed, one FFT each, if needed).
  static std::atomic<std::uint64_t> clock{0};  // (engines may live in different threads)
  g.last_use = ++clock;
  constexpr std::size_t kCacheBytes = std::size_t(256) << 20;
  std::size_t total = 0;
  for (const auto& h : groups_) total += h->spec_bytes();
  while (total > kCacheBytes) {
    ipld_group* oldest = nullptr;
    for (const auto& h : groups_)
      if (h.get() != &g && h->spec_bytes() > 0 && (!oldest || h->last_use < oldest->last_use)) oldest = h.get();
    if (!oldest) break;
    total -= oldest->spec_bytes();
    for (auto& v : oldest->spec) detail::cvec().swap(v);
    oldest->spec_n = 0;
  }
}

void incremental_pld::replan(std::int64_t N, bool keep) {
  const std::int64_t need = needed_size();
  if (N < need) N = detail::ledger_good_size(need * 2);
  if (N > (std::int64_t(1) << 26)) {
    throw evaluation_error("incremental_pld: the composed window needs an FFT of " +
                           std::to_string(N) + " points, above the limit of 2^26");
  }
  N_ = N;
  ++replans_;
  for (int c = 0; c < kChannels; ++c) {
    if (ch_[c].use_count() > 1) ch_[c] = std::make_shared<channel>(*ch_[c]);
    ch_[c]->Z.assign(static_cast<std::size_t>(N_ / 2 + 1), {1.0, 0.0});
    ch_[c]->mults = 0.0;
  }
  for (std::size_t i = 0; i < groups_.size(); ++i) {
    if (counts_[i] > 0) incorporate(i, counts_[i], true, keep);
  }
  touch();
}

void incremental_pld::enable_reverse() {
  if (reverse_) return;
  reverse_ = true;
  for (int c : {1, 3}) {
    if (ch_[c].use_count() > 1) ch_[c] = std::make_shared<channel>(*ch_[c]);
    *ch_[c] = channel();
    ch_[c]->Z.assign(static_cast<std::size_t>(N_ / 2 + 1), {1.0, 0.0});
    for (std::size_t i = 0; i < groups_.size(); ++i)
      if (counts_[i] > 0) ch_[c]->add_sums(groups_[i]->term[c], counts_[i]);
  }
  // rebuild the products of all channels (the forward ones are unchanged,
  // but a full replan keeps the bookkeeping in one place)
  replan(N_);
  --replans_;
}

namespace {

// A group's four discretized channels (the expensive step of a first add).
// Depends only on its arguments, so groups can be built in parallel.
std::shared_ptr<ipld_group> build_group(const std::string& key, const std::shared_ptr<const loss_law>& law,
                                        const incremental_pld::garbler& garble, double h, double cut) {
  if (!law) throw std::invalid_argument("incremental_pld::add(law): null law");
  auto g = std::make_shared<ipld_group>();
  g->key = key;
  g->law = law;
  g->symmetric = law->symmetric();
  const auto at = law->atoms();
  double off = 0.0;
  if (!at.empty()) off = at.front().loss - h * std::floor(at.front().loss / h);
  const double lo = detail::loss_cut(*law, cut, false, detail::kCutBisections);
  const double hi = detail::loss_cut(*law, cut, true, detail::kCutBisections);
  const grid_pmf pess = discretize(*law, h, off, lo, hi, pld_side::pessimistic);
  std::shared_ptr<const loss_law> ol = garble ? garble(h) : nullptr;
  grid_pmf opt;
  if (ol) {
    const auto oat = ol->atoms();
    double ooff = 0.0;
    if (!oat.empty()) ooff = oat.front().loss - h * std::floor(oat.front().loss / h);
    opt = discretize(*ol, h, ooff, detail::loss_cut(*ol, cut, false, detail::kCutBisections),
                     detail::loss_cut(*ol, cut, true, detail::kCutBisections), pld_side::optimistic);
  } else {
    opt = discretize(*law, h, off, lo, hi, pld_side::optimistic);
  }
  g->term[0] = detail::make_term(pess, false, h);
  g->term[1] = detail::make_term(pess, true, h);
  g->term[2] = detail::make_term(opt, false, h);
  g->term[3] = detail::make_term(opt, true, h);
  return g;
}

}  // namespace

std::size_t incremental_pld::register_group(const std::string& key,
                                           const std::shared_ptr<const loss_law>& law,
                                           const garbler& garble, bool& fresh) {
  if (!law) throw std::invalid_argument("incremental_pld::add(law): null law");
  auto it = index_.find(key);
  fresh = it == index_.end();
  if (!fresh) return it->second;
  return insert_group(build_group(key, law, garble, h_, cut_));
}

std::size_t incremental_pld::insert_group(std::shared_ptr<detail::ipld_group> g) {
  const std::size_t gi = groups_.size();
  index_[g->key] = gi;
  groups_.push_back(std::move(g));
  counts_.push_back(0);
  return gi;
}

void incremental_pld::count(std::size_t gi, std::int64_t n) {
  counts_[gi] += n;
  applications_ += n;
  for (int c = 0; c < kChannels; ++c) {
    if ((c == 1 || c == 3) && !reverse_) continue;
    if (ch_[c].use_count() > 1) ch_[c] = std::make_shared<channel>(*ch_[c]);
    ch_[c]->add_sums(groups_[gi]->term[c], n);
  }
}

void incremental_pld::prepare(const std::string& key, const std::shared_ptr<const loss_law>& law,
                              const garbler& garble) {
  bool fresh = false;
  register_group(key, law, garble, fresh);
}

bool incremental_pld::prepared(const std::string& key) const { return index_.count(key) > 0; }

void incremental_pld::use_both_orders() {
  enable_reverse();
  touch();
}

double incremental_pld::needed_window() const { return static_cast<double>(needed_size()) * h_; }

void incremental_pld::add(const std::string& key, const std::shared_ptr<const loss_law>& law,
                          std::int64_t n, const garbler& garble) {
  detail::require(n >= 1 && n <= 1000000000000LL, "incremental_pld::add", "n",
                  static_cast<long long>(n), "must be in [1, 1e12]");
  bool fresh = false;
  const std::size_t gi = register_group(key, law, garble, fresh);
  count(gi, n);
  if (!groups_[gi]->symmetric && !reverse_) {
    enable_reverse();  // sums of the reverse channels and every product rebuilt
  } else if (needed_size() > N_) {
    replan(N_);
  } else {
    incorporate(gi, n, fresh && n > 1);
  }
  touch();
}

void incremental_pld::add_batch(const std::vector<batch_item>& items) {
  for (const auto& it : items) {
    detail::require(it.n >= 1 && it.n <= 1000000000000LL, "incremental_pld::add_batch", "n",
                    static_cast<long long>(it.n), "must be in [1, 1e12]");
    if (!it.law) throw std::invalid_argument("incremental_pld::add(law): null law");
  }
  // The new groups' discretizations (most of a replay's time: a ledger with
  // 500 distinct subsampled Gaussians spends 65% of it there) are
  // independent: build them on all cores, then insert them in order.
  {
    std::vector<std::size_t> fresh_items;
    std::set<std::string> seen;
    for (std::size_t i = 0; i < items.size(); ++i)
      if (!index_.count(items[i].key) && seen.insert(items[i].key).second) fresh_items.push_back(i);
    std::vector<std::shared_ptr<ipld_group>> built(fresh_items.size());
    std::vector<std::exception_ptr> failed(fresh_items.size());
    std::atomic<std::size_t> next{0};
    const auto work = [&] {
      for (std::size_t j; (j = next.fetch_add(1)) < fresh_items.size();) {
        const batch_item& it = items[fresh_items[j]];
        try {
          built[j] = build_group(it.key, it.law, it.garble, h_, cut_);
        } catch (...) {
          failed[j] = std::current_exception();
        }
      }
    };
    const unsigned hw = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
    const std::size_t extra = std::min<std::size_t>(hw, fresh_items.size()) - (fresh_items.empty() ? 0 : 1);
    {
      std::vector<std::thread> pool;
      struct joiner {
        std::vector<std::thread>& p;
        ~joiner() {
          for (auto& t : p)
            if (t.joinable()) t.join();
        }
      } join_all{pool};
      try {
        for (std::size_t t = 0; t < extra; ++t) pool.emplace_back(work);
      } catch (const std::system_error&) {
        // no more threads (a process limit): the ones started and this one do the work
      }
      work();
    }
    for (const auto& e : failed)
      if (e) std::rethrow_exception(e);
    for (auto& g : built) insert_group(std::move(g));
  }
  bool any = false;
  for (const auto& it : items) {
    bool fresh = false;
    const std::size_t gi = register_group(it.key, it.law, it.garble, fresh);
    if (!groups_[gi]->symmetric && !reverse_) {
      reverse_ = true;
      for (int c : {1, 3}) {
        if (ch_[c].use_count() > 1) ch_[c] = std::make_shared<channel>(*ch_[c]);
        *ch_[c] = channel();
        for (std::size_t i = 0; i < groups_.size(); ++i)
          if (counts_[i] > 0) ch_[c]->add_sums(groups_[i]->term[c], counts_[i]);
      }
    }
    count(gi, it.n);
    any = true;
  }
  if (any) {
    replan(N_, false);
    --replans_;
  }
  touch();
}

void incremental_pld::touch() {
  static std::atomic<std::uint64_t> counter{0};
  version_ = ++counter;
}

const incremental_pld::view& incremental_pld::get_view(int c) const {
  if (views_.v.size() != static_cast<std::size_t>(kChannels)) views_.v.resize(kChannels);
  if (!views_.v[c]) views_.v[c] = std::make_shared<view>();
  view& v = *views_.v[c];
  if (v.version == version_) return v;
  const channel& C = *ch_[c];
  v.reset();  // keeps the buffers' capacity
  v.h = h_;
  v.off = C.off;
  v.top = C.top;
  v.active = true;
  v.K = C.K;
  if (applications_ == 0) {
    // nothing composed: the identity (delta(eps) = max(0, 1 - e^eps))
    v.k0 = 0;
    v.off = 0.0;
    v.top = 0;
    v.m = {1.0};
    v.err_k.assign(C.K.size(), -detail::kInf);
    v.sm = {1.0, 0.0};
    v.se = {1.0, 0.0};
    v.version = version_;
    return v;
  }
  std::int64_t klo, khi;
  C.window(h_, klo, khi);
  const std::int64_t W = khi - klo + 1;
  if (W > N_) throw evaluation_error("incremental_pld: window larger than the FFT (internal)");
  const std::size_t nc = static_cast<std::size_t>(N_ / 2 + 1);
  const auto pl = detail::fftw_plans_for(N_);
  detail::scratch& s = detail::scratch_for(N_);
  std::memcpy(static_cast<void*>(s.c), C.Z.data(), nc * sizeof(fftw_complex));
  fftw_execute_dft_c2r(pl->bwd, s.c, s.r);
  const double invN = 1.0 / static_cast<double>(N_);
  double z2 = 0.0;
  for (std::int64_t i = 0; i < N_; ++i) {
    const double x = s.r[i] * invN;
    z2 += x * x;
  }
  const double zn = std::sqrt(z2);
  const double gamma = 10.0 * detail::kU * std::log2(static_cast<double>(N_));
  v.fft_l2 = gamma * (C.err_in + zn) + 3.0 * detail::kU * C.mults * zn + detail::kU;
  v.k0 = klo;
  v.m.resize(static_cast<std::size_t>(W));
  for (std::int64_t K = klo; K <= khi; ++K) {
    std::int64_t idx = (K - C.base) % N_;
    if (idx < 0) idx += N_;
    v.m[static_cast<std::size_t>(K - klo)] = s.r[idx] * invN;
  }
  v.m_inf_err = C.inf_err;
  if (C.inf_apps == 1 && C.nf_apps == 0 && C.inf_err == 0) {
    // one application of one full measure whose mass at +inf is the law's
    // own (nothing folded into it): that mass, exactly
    v.m_inf = C.inf_one;
    v.m_inf_rel = 0.0;
  } else {
    v.m_inf = std::max(0.0, -std::exp(C.inf_lt) * std::expm1(C.inf_lg));
    // log1p, expm1, exp: 2 u each; n x log1p(.): u; a sum of k same-sign
    // terms: k u; -expm1(L) moves by at most L's relative error (|L| e^L /
    // (1 - e^L) <= 1); log T of a term that is not full: u per application
    // (T rounds near 1), so exp(inf_lt) carries nf_apps u. Doubled.
    v.m_inf_rel = 2.0 * detail::kU * (10.0 + static_cast<double>(C.inf_adds) + static_cast<double>(C.nf_apps));
  }
  const auto& ts = detail::kTilts();
  const double ytop = C.off + static_cast<double>(khi) * h_, ybot = C.off + static_cast<double>(klo) * h_;
  v.tail_hi = 0.0;
  v.tail_lo = 0.0;
  if (khi < C.top) {
    double b = 1.0;
    for (std::size_t i = 0; i < ts.size(); ++i)
      if (ts[i] > 0 && std::isfinite(C.K[i])) b = std::min(b, std::exp(C.K[i] - ts[i] * ytop));
    v.tail_hi = b;
  }
  if (klo > C.base) {
    double b = 1.0;
    for (std::size_t i = 0; i < ts.size(); ++i)
      if (ts[i] < 0 && std::isfinite(C.K[i])) b = std::min(b, std::exp(C.K[i] - ts[i] * ybot));
    v.tail_lo = b;
  }
  // (the shifts' bound holds for t >= 0 only: it bounds nu{> eps - l} by a
  // Chernoff bound; see compose_grid)
  v.err0 = std::exp(C.acc0.log_product());
  if (C.shifts) v.err0 = std::min(v.err0, std::exp(C.acc0.log_shift()));
  v.err_k.resize(ts.size());
  for (std::size_t i = 0; i < ts.size(); ++i) {
    v.err_k[i] = C.acc[i].log_product();
    if (C.shifts && ts[i] > 0) v.err_k[i] = std::min(v.err_k[i], C.acc[i].log_shift());
  }
  // suffix sums (compensated) and e^{-(lambda_i - lambda_j)}-weighted sums
  const std::size_t n = v.m.size();
  v.sm.assign(n + 1, 0.0);
  v.se.assign(n + 1, 0.0);
  const double eh = std::exp(-h_);
  double comp = 0.0;
  for (std::size_t j = n; j-- > 0;) {
    const double y = v.m[j] - comp;
    const double t = v.sm[j + 1] + y;
    comp = (t - v.sm[j + 1]) - y;
    v.sm[j] = t;
    v.se[j] = v.m[j] + eh * v.se[j + 1];
  }
  v.version = version_;  // valid only once complete
  return v;
}

double incremental_pld::delta_up(double eps) const {
  double d = get_view(0).upper(eps);
  if (reverse_) d = std::max(d, get_view(1).upper(eps));
  return d;
}

double incremental_pld::delta_lo(double eps) const {
  double d = get_view(2).lower(eps);
  if (reverse_) d = std::max(d, get_view(3).lower(eps));
  return d;
}

interval incremental_pld::delta(double eps) const {
  if (std::isnan(eps)) detail::throw_domain("incremental_pld::delta", "eps", eps, "must not be NaN");
  if (applications_ == 0) {
    const double d = std::max(0.0, -std::expm1(eps));
    return {d, d};
  }
  return {delta_lo(eps), delta_up(eps)};
}

interval incremental_pld::epsilon(double delta) const {
  detail::require_in(delta, 0.0, 1.0, "incremental_pld::epsilon", "delta");
  if (applications_ == 0) return {0.0, 0.0};
  return {solve_eps([&](double e) { return delta_lo(e); }, delta, false),
          solve_eps([&](double e) { return delta_up(e); }, delta, true)};
}

}  // namespace fdp
