// fdp.audit and fdp.audit_one_run over NumPy arrays: the library's audits of
// in-memory outputs (audit_outputs, audit_one_run), with the claim built as
// `fdp audit --claim` builds it, so the answers match the CLI's on the same
// data written to files. Results go back as plain dicts; python/fdp/_audit.py
// wraps them.
#include <pybind11/stl.h>

#include <cmath>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "fdp/audit/audit.hpp"
#include "fdp/audit/one_run.hpp"
#include "fdp/audit/sample_file.hpp"
#include "fdp/ops/compose.hpp"
#include "fdp/ops/spec.hpp"

namespace fdp::python {
namespace {

// As the CLI's claim_from: the composed claim, exact where the composition
// is, else its certified lower curve at 800 points.
tradeoff claim_of(const std::vector<std::string>& texts) {
  if (texts.empty()) throw std::invalid_argument("audit: claim must name at least one spec");
  std::vector<spec> specs;
  for (const auto& t : texts) specs.push_back(parse_spec(t));
  const composition c = compose(specs);
  if (c.is_exact()) return *c.exact();
  return tradeoff(c.lower_curve(800));
}

std::string ordering_text(int o) {
  return o == 0 ? "alpha on input0, beta on input1" : "alpha on input1, beta on input0";
}

py::object witness_of(const audit::audit_report& rep) {
  const audit::audit_result& r = rep.result;
  if (!r.w) return py::none();
  const audit::test& t = rep.tests.tests[r.tests[r.w->test].index];
  py::dict w;
  w["alpha"] = r.w->alpha;
  w["beta"] = r.w->beta;
  w["claim_beta"] = r.w->claim_beta;
  w["event"] = r.w->mirror ? t.complement : t.description;
  w["ordering"] = ordering_text(r.w->mirror ? 1 - t.ordering : t.ordering);
  return std::move(w);
}

py::dict curve_of(const audit::audit_result& r) {
  const auto pts = audit::empirical_curve(r);
  std::vector<double> a, lo, hi, est;
  for (const auto& p : pts) {
    a.push_back(p.alpha);
    lo.push_back(p.beta_lower);
    hi.push_back(p.beta_upper);
    est.push_back(p.beta_estimate);
  }
  const std::vector<py::ssize_t> shape{static_cast<py::ssize_t>(pts.size())};
  py::dict c;
  c["alpha"] = array_from(a, shape);
  c["tests_beta_lower"] = array_from(lo, shape);
  c["beta_upper"] = array_from(hi, shape);
  c["beta_estimate"] = array_from(est, shape);
  return c;
}

py::dict report_dict(const audit::audit_report& rep, const std::string& claim_text) {
  const audit::audit_result& r = rep.result;
  py::dict d;
  d["verdict"] = r.verdict;
  d["reason"] = r.reason;
  d["claim"] = claim_text;
  d["confidence"] = r.confidence;
  d["delta"] = r.delta;
  d["epsilon_lower"] = r.epsilon_lower;
  d["mu_lower"] = r.mu_lower;
  d["witness"] = witness_of(rep);
  d["samples"] = py::make_tuple(rep.samples[0], rep.samples[1]);
  d["samples_needed"] = r.samples_needed ? py::cast(*r.samples_needed) : py::none();
  d["nothing_learned"] = r.nothing_learned;
  d["notes"] = rep.notes;
  d["curve"] = curve_of(r);
  return d;
}

py::dict audit_arrays(const in_array& x0, const in_array& x1,
                      const std::vector<std::string>& claims, double confidence, double delta,
                      double selection_fraction, int curve_tests, bool bit_features,
                      std::int64_t group) {
  audit::audit_options o;
  o.confidence = confidence;
  o.delta = delta;
  o.selection_fraction = selection_fraction;
  o.curve_tests = curve_tests;
  o.bit_features = bit_features;
  o.group = group;
  o.oracle = false;
  const std::vector<double> v0 = copy_of(x0), v1 = copy_of(x1);
  std::string text;
  for (std::size_t i = 0; i < claims.size(); ++i) text += (i ? " (x) " : "") + claims[i];
  audit::audit_report rep;
  {
    py::gil_scoped_release release;
    rep = audit::audit_outputs(v0, v1, claim_of(claims), o);
  }
  return report_dict(rep, text);
}

py::dict one_run_arrays(const in_array& scores, const std::vector<int>& included,
                        std::int64_t guesses, double delta, double confidence) {
  audit::score_table t;
  t.path = "scores";
  if (included.size() != static_cast<std::size_t>(scores.size()))
    throw std::invalid_argument("audit_one_run: scores and included must have the same length");
  // Non-finite scores are placed as a score file's would be (sortable, the same order).
  for (py::ssize_t i = 0; i < scores.size(); ++i)
    t.rows.push_back({audit::nonfinite_output(scores.data()[i]),
                      included[static_cast<std::size_t>(i)] != 0, "", ""});
  audit::one_run_result r;
  {
    py::gil_scoped_release release;
    r = audit::audit_one_run(t, guesses, delta, confidence);
  }
  py::dict d;
  d["canaries"] = r.canaries;
  d["guesses"] = r.guesses;
  d["guessed_in"] = r.guessed_in;
  d["correct"] = r.correct;
  d["included"] = r.included;
  d["epsilon_lower"] = r.epsilon_lower;
  d["delta"] = r.delta;
  d["confidence"] = r.confidence;
  d["p_value_at_zero"] = r.p_value_at_zero;
  d["mu_lower"] = r.mu_lower;
  return d;
}

}  // namespace

void bind_audit(py::module_& m) {
  m.def("audit", &audit_arrays, py::arg("samples0"), py::arg("samples1"), py::arg("claims"),
        py::arg("confidence"), py::arg("delta"), py::arg("selection_fraction"),
        py::arg("curve_tests"), py::arg("bit_features"), py::arg("group"));
  m.def("audit_one_run", &one_run_arrays, py::arg("scores"), py::arg("included"),
        py::arg("guesses"), py::arg("delta"), py::arg("confidence"));
  m.def("one_run_p_value", &audit::one_run_p_value, py::arg("canaries"), py::arg("guesses"),
        py::arg("correct"), py::arg("epsilon"), py::arg("delta"));
}

}  // namespace fdp::python
