#include "fdp/budget/incremental_pld.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <atomic>
#include <memory>
#include <mutex>
#include <set>
#include <system_error>
#include <thread>

#include "fdp/core/error.hpp"
#include "ops/pld/pld_grid.hpp"
#include "ops/pld/spectrum.hpp"
#include "ops/pld/numbers.hpp"
#include "ops/pld/terms.hpp"

namespace fdp {
namespace detail {

namespace {
constexpr double kTail = 1e-16;  // window tail mass (Chernoff), as compose_options::tail
constexpr int kChannels = 4;     // 0: pess T(P,Q), 1: pess T(Q,P), 2: opt T(P,Q), 3: opt T(Q,P)

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

// (the ledger's cuts bisect 60 times, compose's 40)
constexpr int kCutBisections = 60;

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
  bool operator==(const pooled<U>&) const {
    return true;
  }
  template <class U>
  bool operator!=(const pooled<U>&) const {
    return false;
  }
};
using cvec = std::vector<std::complex<double>, pooled<std::complex<double>>>;
using dvec = std::vector<double, pooled<double>>;

struct ipld_group {
  std::string key;
  std::shared_ptr<const loss_law> law;
  bool symmetric = true;
  oriented_term term[kChannels];  // the channels' oriented terms, with their sums at kTilts()
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

oriented_term make_term(const grid_pmf& g, bool use_p, double h) {
  oriented_term t = orient(g, use_p, h);
  tilt_sums(t, h, kTilts());
  return t;
}

// Rounding of z^n by repeated squaring: an error made at a squaring is raised
// to the power of the squarings after it, so the relative error grows like
// n (not log n) multiplications' worth; count n (+ the product into Z).
double mults_for(std::int64_t n) { return static_cast<double>(n) + 1.0; }

}  // namespace
}  // namespace detail

using detail::ipld_group;
using detail::kChannels;

struct incremental_pld::channel {
  detail::cvec Z;                 // the running product of the terms' spectra
  detail::composition_sums sums;  // the certificate's sums over the terms (ops/pld/terms.hpp)
  double mults = 0.0;             // complex multiplications into Z per frequency (its rounding)
  channel() : sums(detail::kTilts()) {}

  // The Chernoff window [klo, khi] (grid indices) for tail mass kTail per side.
  void window(double h, std::int64_t& klo, std::int64_t& khi) const {
    double y_lo, y_hi;
    sums.window(detail::kTail, y_lo, y_hi);
    sums.meet_crossed(y_lo, y_hi);
    sums.indices(y_lo, y_hi, h, klo, khi);
  }
};

incremental_pld::incremental_pld(double h, double window, double cut) : h_(h), cut_(cut) {
  detail::require_finite_pos(h, "incremental_pld", "h");
  detail::require(cut > 0 && cut <= 1e-9, "incremental_pld", "cut", cut, "must be in (0, 1e-9]");
  detail::require(std::isfinite(window) && window > 0, "incremental_pld", "window", window,
                  "must be finite and > 0");
  for (int c = 0; c < kChannels; ++c) ch_.push_back(std::make_shared<channel>());
  touch();
  N_ = detail::good_size(std::max<std::int64_t>(1024, static_cast<std::int64_t>(window / h)));
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
    for (const auto& t : g->term)
      need = std::max<std::int64_t>(need, static_cast<std::int64_t>(t.x.size()));
  return need;
}

// Multiplies the channels' products by the group's transforms to the power n
// (computing the transforms at the current N if needed).
void incremental_pld::incorporate(std::size_t gi, std::int64_t n, bool fresh_power, bool keep) {
  ipld_group& g = *groups_[gi];
  const std::size_t nc = static_cast<std::size_t>(N_ / 2 + 1);
  // The term's transform at N_ (valid until the next); and Z *= S^n.
  const auto transform = [&](int c) {
    return detail::thread_fft(N_, detail::fft_backend::fftw).forward(g.term[c].x);
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
      if (h.get() != &g && h->spec_bytes() > 0 && (!oldest || h->last_use < oldest->last_use))
        oldest = h.get();
    if (!oldest) break;
    total -= oldest->spec_bytes();
    for (auto& v : oldest->spec) detail::cvec().swap(v);
    oldest->spec_n = 0;
  }
}

void incremental_pld::replan(std::int64_t N, bool keep) {
  const std::int64_t need = needed_size();
  if (N < need) N = detail::good_size(need * 2);
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
      if (counts_[i] > 0) ch_[c]->sums.add(groups_[i]->term[c], counts_[i], h_);
  }
  // rebuild the products of all channels (the forward ones are unchanged,
  // but a full replan keeps the bookkeeping in one place)
  replan(N_);
  --replans_;
}

namespace {

// A group's four discretized channels (the expensive step of a first add).
// Depends only on its arguments, so groups can be built in parallel.
std::shared_ptr<ipld_group> build_group(const std::string& key,
                                        const std::shared_ptr<const loss_law>& law,
                                        const incremental_pld::garbler& garble, double h,
                                        double cut) {
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
    opt =
        discretize(*ol, h, ooff, detail::loss_cut(*ol, cut, false, detail::kCutBisections),
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
    ch_[c]->sums.add(groups_[gi]->term[c], n, h_);
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
    const std::size_t extra =
        std::min<std::size_t>(hw, fresh_items.size()) - (fresh_items.empty() ? 0 : 1);
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
          if (counts_[i] > 0) ch_[c]->sums.add(groups_[i]->term[c], counts_[i], h_);
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

// A channel's composed distribution on its window, with its certificate:
// the kernel's composed_pld, from the channel's sums and the inverse of its
// running product (ops/pld/terms.hpp).
struct incremental_pld::view {
  std::uint64_t version = ~std::uint64_t(0);
  std::optional<composed_pld> c;
};

const composed_pld& incremental_pld::get_view(int c) const {
  if (views_.v.size() != static_cast<std::size_t>(kChannels)) views_.v.resize(kChannels);
  if (!views_.v[c]) views_.v[c] = std::make_shared<view>();
  view& v = *views_.v[c];
  if (v.version == version_) return *v.c;
  const channel& C = *ch_[c];
  std::int64_t klo, khi;
  C.window(h_, klo, khi);
  const std::int64_t W = khi - klo + 1;
  if (W > N_) throw evaluation_error("incremental_pld: window larger than the FFT (internal)");
  detail::real_fft& fft = detail::thread_fft(N_, detail::fft_backend::fftw);
  const double* z = fft.inverse(C.Z.data());
  const double scale = fft.inverse_scale();
  double z2 = 0.0;
  for (std::int64_t i = 0; i < N_; ++i) z2 += (z[i] * scale) * (z[i] * scale);
  detail::window_masses w;
  w.klo = klo;
  w.windowed = true;
  w.m.resize(static_cast<std::size_t>(W));
  for (std::int64_t K = klo; K <= khi; ++K) {
    std::int64_t idx = (K - C.sums.base) % N_;
    if (idx < 0) idx += N_;
    w.m[static_cast<std::size_t>(K - klo)] = z[idx] * scale;
  }
  w.fft_l2 = detail::fft_rounding_normwise(C.sums.err_in, C.mults, N_, std::sqrt(z2));
  v.c = composed_pld::from_sums(C.sums, h_, std::move(w));
  v.version = version_;  // valid only once complete
  return *v.c;
}

double incremental_pld::delta_up(double eps) const {
  double d = get_view(0).delta_upper(eps);
  if (reverse_) d = std::max(d, get_view(1).delta_upper(eps));
  return d;
}

double incremental_pld::delta_lo(double eps) const {
  double d = get_view(2).delta_lower(eps);
  if (reverse_) d = std::max(d, get_view(3).delta_lower(eps));
  return d;
}

interval incremental_pld::delta(double eps) const {
  if (std::isnan(eps))
    detail::throw_domain("incremental_pld::delta", "eps", eps, "must not be NaN");
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
