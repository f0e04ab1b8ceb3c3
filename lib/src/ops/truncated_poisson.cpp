// Truncated Poisson sampling's dominating law (fdp/ops/truncated_poisson.hpp).
#include "fdp/ops/truncated_poisson.hpp"

#include <boost/math/special_functions/beta.hpp>
#include <stdexcept>
#include <string>

#include "fdp/core/tradeoff.hpp"

namespace fdp {

namespace {

// P(Binomial(n, q) >= k) for 1 <= k <= n: the regularized incomplete beta
// I_q(k, n - k + 1).
double binomial_at_least(double n, double k, double q) {
  return boost::math::ibeta(k, n - k + 1.0, q);
}

}  // namespace

truncation_split truncated_poisson_split(double q, std::int64_t max_batch,
                                         std::int64_t dataset_size) {
  if (!(q > 0.0 && q <= 1.0))
    throw std::invalid_argument("truncated Poisson: q must be in (0, 1], got " + std::to_string(q));
  if (max_batch < 1 || dataset_size < 1)
    throw std::invalid_argument(
        "truncated Poisson: max-batch and dataset-size must be integers >= 1");
  truncation_split s;
  const double n = static_cast<double>(dataset_size), b = static_cast<double>(max_batch);
  if (max_batch >= dataset_size) return s;  // (at most N - 1 others: never cut)
  s.p_cut = binomial_at_least(n - 1.0, b, q);
  if (s.p_cut > 0.0) {
    // E[q B/(K+1); K >= B] = (B/N) P(Binomial(N, q) >= B + 1), term by term:
    // q/(k+1) C(N-1, k) q^k (1-q)^{N-1-k} = (1/N) C(N, k+1) q^{k+1} (1-q)^{N-k-1}
    s.rate_cut = std::min(q, b * binomial_at_least(n, b + 1.0, q) / (n * s.p_cut));
  }
  return s;
}

std::shared_ptr<const loss_law> poisson_gaussian_law(double sigma, double d, double q,
                                                     neighbour_relation rel) {
  if (rel != neighbour_relation::replace_one) return subsampled_gaussian_law(sigma, d, q);
  if (q == 1.0) return make_law(gaussian(2.0 * d / sigma));
  return gaussian_mixture_pair_law(sigma, {0.0, -d}, {1.0 - q, q}, {0.0, d}, {1.0 - q, q});
}

std::shared_ptr<const loss_law> truncated_poisson_gaussian_law(double sigma, double d, double q,
                                                               std::int64_t max_batch,
                                                               std::int64_t dataset_size,
                                                               neighbour_relation rel) {
  const truncation_split s = truncated_poisson_split(q, max_batch, dataset_size);
  auto uncut = poisson_gaussian_law(sigma, d, q, rel);
  if (!(s.p_cut > 0.0) || !(s.rate_cut > 0.0)) return uncut;
  const neighbour_relation cut_rel = rel == neighbour_relation::add_remove
                                         ? neighbour_relation::add_remove
                                         : neighbour_relation::replace_one;
  auto cut = poisson_gaussian_law(sigma, 2.0 * d, s.rate_cut, cut_rel);
  if (s.p_cut >= 1.0) return cut;
  return revealed_mixture_law({{1.0 - s.p_cut, std::move(uncut)}, {s.p_cut, std::move(cut)}});
}

}  // namespace fdp
