// fdp compare: one configuration, every accountant side by side.
#include <cstdio>
#include <iostream>

#include "compare_samplers.hpp"
#include "compose_common.hpp"
#include "fdp/budget/classic.hpp"
#include "fdp/budget/rdp.hpp"

namespace fdp::cli {
namespace {

std::string row(const std::string& name, const std::string& value, const std::string& note) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "  %-40s %-26s %s\n", name.c_str(), value.c_str(), note.c_str());
  return buf;
}

// Every accountant's answer for one configuration: epsilon at delta.
struct accountant_answers {
  std::string certified_method;
  interval certified;
  clt_estimate clt;
  classic_report classic;
  rdp_report rdp;
};

// (the estimate at the value it was asked at, as compose --method clt has it)
json clt_estimate_json(const clt_estimate& clt, double delta) {
  json jl;
  if (clt.applicable) {
    jl["applicable"] = true;
    jl["mu"] = num(clt.mu);
    jl["estimates"] = json::array({query("delta", delta, "epsilon", num(clt.epsilon))});
    jl["is_bound"] = false;
  } else {
    jl["applicable"] = false;
    jl["reason"] = clt.reason;
  }
  return jl;
}

// "naive" and "advanced": the same reason when neither applies.
void add_classic_json(json& out, const classic_report& cl) {
  json jn, jadv;
  if (cl.applicable) {
    jn["epsilon"] = num(cl.naive_eps);
    jn["delta"] = num(cl.naive_delta);
    jadv["epsilon"] = num(cl.advanced_eps);
    jadv["delta"] = num(cl.advanced_delta);
    jadv["delta_prime"] = num(cl.advanced_delta_prime);
  } else {
    jn["applicable"] = false;
    jn["reason"] = cl.reason;
    jadv = jn;
  }
  out["naive"] = jn;
  out["advanced"] = jadv;
}

json rdp_json(const rdp_report& rd, double delta) {
  json jr;
  if (rd.applicable) {
    json ji, jst;
    ji["delta"] = delta;
    ji["epsilon"] = num(rd.improved.eps);
    ji["order"] = rd.improved.order;
    jst["delta"] = delta;
    jst["epsilon"] = num(rd.standard.eps);
    jst["order"] = rd.standard.order;
    jr["improved"] = ji;
    jr["standard"] = jst;
  } else {
    jr["applicable"] = false;
    jr["reason"] = rd.reason;
  }
  return jr;
}

json compare_json(const std::vector<spec>& specs, double delta, const accountant_answers& r) {
  json out = envelope("compare");
  json js = json::array();
  for (const auto& s : specs) js.push_back(s.text);
  out["specs"] = js;
  const json relations = spec_assumptions_json(specs);
  if (!relations.empty()) out["assumptions"] = {{"specs", relations}};
  // The certified row: fdp's bracket, a query like compose's.
  out["method"] = r.certified_method;
  out["queries"] = json::array(
      {query("delta", delta, "epsilon", bracket(r.certified.lower, r.certified.upper))});
  out["clt"] = clt_estimate_json(r.clt, delta);
  add_classic_json(out, r.classic);
  out["rdp"] = rdp_json(r.rdp, delta);
  return out;
}

void print_compare_table(const std::vector<spec>& specs, double delta,
                         const accountant_answers& r) {
  std::cout << "epsilon at delta = " << fmt(delta) << " for " << specs.size() << " spec(s):";
  for (const auto& s : specs) std::cout << " " << s.text;
  std::cout << "\n";
  print_spec_assumptions(specs);
  std::cout << "\n" << row("accountant", "epsilon", "what it is");
  std::cout << row("certified f-DP (fdp, " + r.certified_method + ")",
                   "[" + fmt_down(r.certified.lower, 7) + ", " + fmt_up(r.certified.upper, 7) + "]",
                   "bound: the true epsilon is inside");
  const clt_estimate& clt = r.clt;
  if (clt.applicable) {
    std::cout << row("CLT / GDP estimate (DRS, Bu et al.)", fmt(clt.epsilon, 7),
                     "NOT a bound (mu = " + fmt(clt.mu, 6) + ")");
  } else {
    std::cout << row("CLT / GDP estimate", "n/a", clt.reason);
  }
  const classic_report& cl = r.classic;
  if (cl.applicable) {
    std::cout << row("naive composition (D&R Thm 3.16)", fmt(cl.naive_eps, 7),
                     "bound, at delta = " + fmt(cl.naive_delta, 4));
    std::cout << row("advanced composition (D&R Thm 3.20)", fmt(cl.advanced_eps, 7),
                     "bound, delta' = " + fmt(cl.advanced_delta_prime, 3));
  } else {
    std::cout << row("naive / advanced composition", "n/a", cl.reason);
  }
  const rdp_report& rd = r.rdp;
  if (rd.applicable) {
    std::cout << row("RDP, improved conversion (CKS 2020)", fmt(rd.improved.eps, 7),
                     "bound, order " + fmt(rd.improved.order, 4));
    std::cout << row("RDP, standard conversion (Mironov 2017)", fmt(rd.standard.eps, 7),
                     "bound, order " + fmt(rd.standard.order, 4));
  } else {
    std::cout << row("RDP (moments accountant)", "n/a", rd.reason);
  }
  if (cl.applicable) std::cout << "\n  classical delta split: " << cl.allocation << "\n";
}

int run_compare(const args& a) {
  const auto specs = parse_specs(a);
  const double delta = a.number("delta", 0, 1, true, true);
  compose_options o;
  o.delta_hint = delta;
  o.tolerance = a.number_or("tolerance", o.tolerance, 0, 1, true, true);
  if (a.has("sampling")) {
    if (a.value("sampling") != "all")
      throw usage_error("--sampling '" + a.value("sampling") + "' must be 'all'", "sampling");
    return run_compare_samplers(specs, delta, o.tolerance, a.flag("json"));
  }
  const composition c = compose(specs, o);
  const accountant_answers r{c.method(), c.epsilon(delta), clt_estimate_of(specs, delta),
                             classic_account(specs, delta), rdp_account(specs, delta)};
  if (a.flag("json")) {
    json out = compare_json(specs, delta, r);
    out["assumptions"] = {{"tolerance", o.tolerance}};  // (of the certified row)
    print_json(out);
  } else {
    print_compare_table(specs, delta, r);
  }
  return 0;
}

FDP_REGISTER_COMMAND(command{
    "compare",
    "one configuration under every accountant: certified, CLT, naive, advanced, RDP",
    "usage: fdp compare SPEC... --delta D [--tolerance T] [--json]\n"
    "       fdp compare SUBSAMPLED-GAUSSIAN-SPEC --sampling all --delta D [--json]\n\n"
    "Prints epsilon at delta D for the composition of the specs by:\n"
    "  certified f-DP      fdp's bracket (contains the true epsilon)\n"
    "  CLT / GDP           central-limit estimate (Dong, Roth & Su; Bu et al.) -- NOT a bound\n"
    "  naive composition   sum of per-application (eps_i, delta_i) (Dwork & Roth Thm 3.16)\n"
    "  advanced            Dwork & Roth Thm 3.20 (heterogeneous form)\n"
    "  RDP                 Renyi DP (Mironov 2017; sampled Gaussian by Mironov, Talwar &\n"
    "                      Zhang 2019 at integer orders), converted with the standard and\n"
    "                      the improved (Canonne-Kamath-Steinke) rule\n"
    "Specs without a single (eps, delta) pair (Gaussian, subsampled) get an equal share of\n"
    "delta in the classical rows and their certified one-shot epsilon at that share.\n\n"
    "With --sampling all, one DP-SGD run (a subsampled-gaussian spec: sigma, q, times,\n"
    "neighbours) under every batch sampler, as fdp dpsgd --sampling accounts it: Poisson,\n"
    "without-replacement (fixed-size batches), shuffle, balls-in-bins. Each row is that\n"
    "sampler's certified bracket, its certified LOWER bound where no upper bound is proven,\n"
    "or why it is refused under the run's neighbour relation.\n\n"
    "example:\n"
    "  fdp compare subsampled-gaussian:sigma=1.1,q=0.0042666666666666667,times=14062 --delta "
    "1e-5\n"
    "  fdp compare subsampled-gaussian:sigma=1.1,q=0.0042666666666666667,times=14062 --sampling "
    "all --delta 1e-5\n",
    {{"delta", true, false, "delta"},
     {"tolerance", true, false, "relative bracket width of the certified row"},
     {"sampling", true, false,
      "all: the run under every batch sampler (one subsampled-gaussian spec)"},
     {"events", true, true, "dp_accounting-style event file (JSON)"},
     {"json", false, false, "JSON output"}},
    run_compare,
    true});

}  // namespace
}  // namespace fdp::cli
