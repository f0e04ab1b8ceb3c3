#include "fdp/mech/mechanism.hpp"

#include <charconv>
#include <cmath>
#include <stdexcept>
#include <variant>

#include "fdp/core/error.hpp"

namespace fdp::mech {

std::string mechanism::spec() const {
  std::string s = name();
  const auto ps = params();
  for (std::size_t i = 0; i < ps.size(); ++i) {
    s += (i == 0 ? ":" : ",");
    s += ps[i].first + "=" + ps[i].second;
  }
  return s;
}

std::string mechanism::claim_spec() const {
  using detail::fmt_param;
  struct visitor {
    std::string operator()(const eps_delta& f) const {
      return "epsdelta:eps=" + fmt_param(f.eps) +
             (f.delta > 0 ? ",delta=" + fmt_param(f.delta) : "");
    }
    std::string operator()(const gaussian& f) const { return "gdp:mu=" + fmt_param(f.mu); }
    std::string operator()(const laplace& f) const { return "laplace:eps=" + fmt_param(f.mu); }
    std::string operator()(const identity&) const { return "id"; }
    std::string operator()(const curve&) const { return {}; }
  };
  return std::visit(visitor{}, claim().get());
}

void mechanism::check_input(const std::vector<double>& answers) const {
  detail::check_answers_finite(name(), answers);
  (void)shape(answers.size());
}

void mechanism::sample(const std::vector<double>&, rng_stream&, std::size_t, double*) const {
  throw std::logic_error(name() + ": categorical outputs; call sample() with an int64 buffer");
}

void mechanism::sample(const std::vector<double>&, rng_stream&, std::size_t, std::int64_t*) const {
  throw std::logic_error(name() + ": real outputs; call sample() with a double buffer");
}

std::string mechanism::token(std::int64_t index, std::size_t) const {
  return "r" + std::to_string(index);
}

namespace detail {

void check_answers_finite(const std::string& name, const std::vector<double>& answers) {
  if (answers.empty()) {
    throw std::invalid_argument(name + "(answers=[]): needs at least one query answer");
  }
  for (std::size_t i = 0; i < answers.size(); ++i) {
    if (!std::isfinite(answers[i])) {
      const std::string param = "answers[" + std::to_string(i) + "]";
      fdp::detail::throw_domain(name.c_str(), param.c_str(), answers[i], "must be finite");
    }
  }
}

std::string fmt_param(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

}  // namespace detail
}  // namespace fdp::mech
