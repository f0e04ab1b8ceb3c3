// Spec kind "mixture-gaussian": P = N(0, sigma^2) against a mixture of
// shifted Gaussians Q = sum_i p_i N(c_i, sigma^2) (gaussian_mixture_law),
// the pair of a Gaussian mechanism whose sensitivity is itself random: a
// record that moves the answer by c_i with probability p_i (mixtures of
// sensitivities; the user-level DP-SGD step, a user's K examples in a
// Poisson batch, is subsampled-gaussian:...,group=K). Under add/remove
// neighbours both orders count (the law carries them). No closed form: the
// composition is the PLD engine's.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "ops/kind_support.hpp"

namespace fdp {
namespace {

// "a;b;c" as numbers, each checked by parse_number (named by the key).
std::vector<double> number_list(const spec& s, const char* key) {
  std::vector<double> v;
  std::stringstream in(s.string(key));
  std::string item;
  while (std::getline(in, item, ';'))
    v.push_back(parse_number(item, "spec '" + s.text + "': " + key));
  if (v.empty() || v.size() > 1000)
    throw std::invalid_argument("spec '" + s.text + "': " + key +
                                " must list 1 to 1000 numbers separated by ';'");
  return v;
}

compose_term term(const spec& s) {
  const double sigma = s.number("sigma");
  std::vector<double> c = number_list(s, "sensitivities"), w = number_list(s, "weights");
  if (c.size() != w.size())
    throw std::invalid_argument("spec '" + s.text + "': sensitivities and weights must list as " +
                                "many numbers (" + std::to_string(c.size()) + " and " +
                                std::to_string(w.size()) + ")");
  try {
    compose_term t;
    t.law = gaussian_mixture_law(sigma, std::move(c), std::move(w));
    return t;
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("spec '" + s.text + "': " + e.what());
  }
}

// The ledger's record: sigma, then each shift and weight by position (the
// law as composed).
ledger_form ledger(const spec& s, const kinds::stored_points*) {
  ledger_form f;
  f.law = term(s).law;
  f.key_name = "mixture-gaussian";
  f.key_values.emplace_back("sigma", s.number("sigma"));
  const std::vector<double> c = number_list(s, "sensitivities"), w = number_list(s, "weights");
  for (std::size_t i = 0; i < c.size(); ++i) {
    f.key_values.emplace_back("c" + std::to_string(i), c[i]);
    f.key_values.emplace_back("w" + std::to_string(i), w[i]);
  }
  return f;
}

// sigma meeting mu-GDP if the composition were that of the largest shift
// (a start only: the mixture is more private).
double start_sigma(const spec& probe, double mu) {
  double top = 1.0;
  try {
    const std::vector<double> c = number_list(probe, "sensitivities");
    top = *std::max_element(c.begin(), c.end());
  } catch (const std::invalid_argument&) {
  }
  return std::max(1e-6, top) * std::sqrt(static_cast<double>(probe.times)) / mu;
}

std::vector<calibration_param> calibration() {
  return {kinds::calibrate_noise("sigma", start_sigma), kinds::calibrate_times()};
}

}  // namespace

spec_kind spec_kind_mixture_gaussian() {
  spec_kind k;
  k.name = "mixture-gaussian";
  k.doc =
      "N(0, sigma^2) against sum_i p_i N(c_i, sigma^2): a Gaussian mechanism with random "
      "sensitivity";
  k.example = "mixture-gaussian:sigma=2,sensitivities=0;1;2,weights=0.9;0.09;0.01";
  k.keys = {required_key("sigma", "SIGMA", kPositive, "noise standard deviation"),
            text_key("sensitivities", "C1;C2;...", "the shifts c_i >= 0 (one > 0), ';'-separated"),
            text_key("weights", "P1;P2;...", "their probabilities p_i > 0, summing to 1")};
  k.term = term;
  k.calibration = calibration();
  k.ledger = ledger;
  return k;
}

}  // namespace fdp
