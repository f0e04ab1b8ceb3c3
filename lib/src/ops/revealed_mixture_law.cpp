// revealed_mixture_law (fdp/ops/loss_law.hpp): a pair whose output names
// which of several pairs produced it. Branch i, drawn with the same
// probability w_i under both hypotheses, contributes w_i P_i and w_i Q_i on
// its own copy of the output space, so the density ratio on that copy is
// dQ_i/dP_i and the law of the loss is the w-mixture of the branch laws:
// masses, infinite masses and atoms add with weights w_i. Revealing the
// branch can only help a test, so when the true mechanism is a
// post-processing of (branch, output) — e.g. truncated Poisson sampling,
// whose "was the batch cut" is independent of the differing record — this
// law is a sound (dominating) description of it.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "fdp/ops/loss_law.hpp"
#include "ops/pld/numbers.hpp"

namespace fdp {
namespace {

class revealed_mixture_impl final : public loss_law {
 public:
  explicit revealed_mixture_impl(std::vector<weighted_law> branches)
      : branches_(std::move(branches)) {
    double var = 0.0;
    for (const auto& b : branches_) var += b.weight * b.law->scale() * b.law->scale();
    scale_ = std::sqrt(var);
    atoms_ = merged_atoms();
  }
  mass2 mass(double a, double b) const override {
    mass2 m;
    for (const auto& br : branches_) {
      const mass2 x = br.law->mass(a, b);
      m.p += br.weight * x.p;
      m.q += br.weight * x.q;
    }
    return m;
  }
  double p_neg_inf() const override {
    double s = 0.0;
    for (const auto& b : branches_) s += b.weight * b.law->p_neg_inf();
    return s;
  }
  double q_pos_inf() const override {
    double s = 0.0;
    for (const auto& b : branches_) s += b.weight * b.law->q_pos_inf();
    return s;
  }
  double lo() const override {
    double v = std::numeric_limits<double>::infinity();
    for (const auto& b : branches_) v = std::min(v, b.law->lo());
    return v;
  }
  double hi() const override {
    double v = -std::numeric_limits<double>::infinity();
    for (const auto& b : branches_) v = std::max(v, b.law->hi());
    return v;
  }
  std::vector<loss_atom> atoms() const override { return atoms_; }
  bool atomic() const override {
    return std::all_of(branches_.begin(), branches_.end(),
                       [](const weighted_law& b) { return b.law->atomic(); });
  }
  // (a mixture of symmetric pairs is symmetric: swapping P and Q in every
  // branch swaps them in the whole)
  bool symmetric() const override {
    return std::all_of(branches_.begin(), branches_.end(),
                       [](const weighted_law& b) { return b.law->symmetric(); });
  }
  // Consistent when every branch is: branch i's P- and Q-mass are of one
  // outcome set in its own copy of the output space, so the weighted sums
  // are the masses of the union of those sets. Their accuracy: the worst
  // branch's, plus the weighting and the sum's roundings ((k + 1) u for k
  // branches, all terms positive). A boundary moves only within its branch.
  bool consistent_masses() const override {
    return atoms_.empty() &&
           std::all_of(branches_.begin(), branches_.end(),
                       [](const weighted_law& b) { return b.law->consistent_masses(); });
  }
  double mass_rel() const override {
    double r = 0.0;
    for (const auto& b : branches_) r = std::max(r, b.law->mass_rel());
    return r + static_cast<double>(branches_.size() + 1) * detail::kU;
  }
  double boundary_error(double lo, double hi) const override {
    double e = 0.0;
    for (const auto& b : branches_) {
      const double eb = b.law->boundary_error(lo, hi);
      if (!(eb >= 0)) return -1.0;
      e = std::max(e, eb);
    }
    return e;
  }
  // (for grid sizing only: the branches' spreads, weighted; the spread of
  // their means is left out)
  double scale() const override { return scale_; }
  std::string describe() const override {
    std::string s = "revealed-mixture(";
    for (std::size_t i = 0; i < branches_.size(); ++i) {
      if (i) s += "; ";
      s += std::to_string(branches_[i].weight) + " x " + branches_[i].law->describe();
    }
    return s + ")";
  }

 private:
  // Every branch's atoms with their weights, sorted, equal losses merged.
  std::vector<loss_atom> merged_atoms() const {
    std::vector<loss_atom> all;
    for (const auto& b : branches_) {
      for (loss_atom a : b.law->atoms()) {
        a.p *= b.weight;
        a.q *= b.weight;
        all.push_back(a);
      }
    }
    std::sort(all.begin(), all.end(),
              [](const loss_atom& x, const loss_atom& y) { return x.loss < y.loss; });
    std::vector<loss_atom> merged;
    for (const auto& a : all) {
      if (!merged.empty() && merged.back().loss == a.loss) {
        merged.back().p += a.p;
        merged.back().q += a.q;
      } else {
        merged.push_back(a);
      }
    }
    return merged;
  }
  std::vector<weighted_law> branches_;
  std::vector<loss_atom> atoms_;
  double scale_ = 0.0;
};

}  // namespace

std::unique_ptr<loss_law> revealed_mixture_law(std::vector<weighted_law> branches) {
  if (branches.empty()) throw std::invalid_argument("revealed_mixture_law: no branches");
  double total = 0.0;
  for (const auto& b : branches) {
    if (!b.law || !(b.weight > 0.0) || !std::isfinite(b.weight))
      throw std::invalid_argument(
          "revealed_mixture_law: every branch needs a law and a weight in (0, 1]");
    total += b.weight;
  }
  if (std::abs(total - 1.0) > 1e-12)
    throw std::invalid_argument("revealed_mixture_law: the weights must sum to 1 (got " +
                                std::to_string(total) + ")");
  for (auto& b : branches) b.weight /= total;
  return std::make_unique<revealed_mixture_impl>(std::move(branches));
}

}  // namespace fdp
