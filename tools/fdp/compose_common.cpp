#include "compose_common.hpp"

#include "fdp/ops/events.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <variant>

namespace fdp::cli {

std::vector<spec> parse_specs(const args& a) {
  if (a.positional().empty() && !a.has("events")) {
    throw usage_error("at least one SPEC (or --events FILE) is required (see 'fdp " + a.command() +
                      " --help')");
  }
  std::vector<spec> out;
  for (const auto& s : a.positional()) out.push_back(parse_spec(s));
  // (dp_accounting-style event files, fdp/ops/events.hpp: composed with the specs)
  for (const auto& f : a.all("events")) {
    const std::vector<spec> more = read_events_file(f);
    out.insert(out.end(), more.begin(), more.end());
  }
  return out;
}

json spec_assumptions_json(const std::vector<spec>& specs) {
  json all = json::array();
  for (const auto& s : specs) {
    const auto words = spec_assumptions(s);
    if (words.empty()) continue;
    json j;
    j["spec"] = s.text;
    for (const auto& [key, word] : words) j[key] = word;
    all.push_back(j);
  }
  return all;
}

// "  assumes: add-remove neighbours, poisson sampling (subsampled-gaussian:...)"
void print_spec_assumptions(const std::vector<spec>& specs) {
  for (const auto& s : specs) {
    const auto words = spec_assumptions(s);
    if (words.empty()) continue;
    std::string line;
    for (const auto& [key, word] : words) line += (line.empty() ? "" : ", ") + word + " " + key;
    std::cout << "  assumes: " << line << " (" << s.text << ")\n";
  }
}

compose_options compose_options_from(const args& a) {
  compose_options o;
  const std::string m = a.value_or("method", "auto");
  if (m == "auto")
    o.method = compose_method::automatic;
  else if (m == "exact")
    o.method = compose_method::exact;
  else if (m == "pld" || m == "clt")
    o.method = m == "pld" ? compose_method::pld : compose_method::automatic;
  else
    throw usage_error("--method '" + m + "' must be one of auto, exact, pld, clt");
  o.tolerance = a.number_or("tolerance", o.tolerance, 0, 1, true, true);
  if (a.has("max-memory")) o.max_memory = parse_memory(a.value("max-memory"), "--max-memory");
  // The grid is tuned for the smallest delta asked about.
  const auto deltas = a.numbers("delta", 0, 1);
  // (delta = 0 is answered from the loss support; it does not tune the grid)
  for (double d : deltas)
    if (d > 0) o.delta_hint = std::min(o.delta_hint, std::max(1e-300, d));
  // A diagnostic for developers (docs/numerics.md): each grid pass, side and
  // window on stderr. The library itself reads no environment.
  if (const char* t = std::getenv("FDP_TRACE_REFINE"); t && *t && std::string(t) != "0") {
    o.trace = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  }
  return o;
}

std::size_t parse_memory(const std::string& text, const std::string& what) {
  std::string digits = text;
  double unit = 1.0;
  if (!digits.empty()) {
    const char u = static_cast<char>(std::toupper(static_cast<unsigned char>(digits.back())));
    const double k = 1024.0;
    if (u == 'K' || u == 'M' || u == 'G' || u == 'T') {
      unit = u == 'K' ? k : u == 'M' ? k * k : u == 'G' ? k * k * k : k * k * k * k;
      digits.pop_back();
    }
  }
  const double v = parse_number(digits, what) * unit;
  if (v != 0.0 && !(v >= 64.0 * 1024 * 1024 && v <= 1024.0 * 1024 * 1024 * 1024)) {
    throw usage_error(what + " = " + text + " must be 0 (no ceiling) or in [64M, 1T]");
  }
  return static_cast<std::size_t>(v);
}

std::string grid_limit_note(const composition& c, const compose_options& o) {
  const std::string ceiling = "the memory ceiling (--max-memory " +
                              fmt(static_cast<double>(o.max_memory) / (1 << 20), 6) + "M)";
  switch (c.grid_limited()) {
    case composition::grid_limit::refinement_stopped:
      return "a finer grid would pass " + ceiling + ": the brackets are the best certified so far";
    case composition::grid_limit::coarsened:
      return "the grid was made coarser to fit " + ceiling +
             ": certified, but wider than a finer grid's";
    case composition::grid_limit::chernoff_only:
      return "no composed grid fits " + ceiling +
             ": upper ends are Chernoff bounds from the terms' moment generating functions, lower "
             "ends are trivial";
    case composition::grid_limit::none:
      break;
  }
  return "";
}

std::vector<double> alpha_grid(int points) {
  std::vector<double> xs;
  const int nu = std::max(2, points / 2), nl = std::max(0, points - nu);
  for (int i = 0; i < nu; ++i) xs.push_back(static_cast<double>(i) / (nu - 1));
  for (int i = 0; i < nl; ++i) xs.push_back(std::pow(10.0, -8.0 + 7.7 * i / std::max(1, nl - 1)));
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  return xs;
}

std::vector<double> curve_alphas(const composition& c, int points) {
  std::vector<double> grid = alpha_grid(points);
  // An exact polygon's kinks belong on the grid, so plots show them sharp.
  if (c.is_exact() && !std::holds_alternative<gaussian>(c.exact()->get()) &&
      !std::holds_alternative<laplace>(c.exact()->get())) {
    const curve poly = to_curve_exact(*c.exact());
    if (poly.size() <= 10000) grid.insert(grid.end(), poly.alpha().begin(), poly.alpha().end());
    std::sort(grid.begin(), grid.end());
    grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
  }
  return grid;
}

void write_curve_csv(const composition& c, int points, const std::string& path) {
  std::ofstream file;
  std::ostream* os = &std::cout;
  if (path != "-") {
    file.open(path);
    if (!file) throw usage_error("--curve-out '" + path + "': cannot be opened for writing");
    os = &file;
  }
  os->precision(17);  // round-trip precision: printed brackets must still contain the truth
  *os << "alpha,beta_lower,beta_upper\n";
  for (double a : curve_alphas(c, points)) {
    const interval b = c.beta(a);
    *os << a << "," << b.lower << "," << b.upper << "\n";
  }
}

json curve_json(const composition& c, int points) {
  json pts = json::array();
  for (double a : curve_alphas(c, points)) {
    const interval b = c.beta(a);
    pts.push_back(query("alpha", a, "beta", bracket(b.lower, b.upper)));
  }
  return pts;
}

std::vector<double> queries::answered_deltas() const {
  if (none) return {1e-5};
  return deltas;
}

queries read_queries(const args& a) {
  queries q;
  q.deltas = a.numbers("delta", 0, 1);
  q.epsilons = a.numbers("eps", -1e300, 1e300);
  q.alphas = a.numbers("alpha", 0, 1);
  q.none = q.deltas.empty() && q.epsilons.empty() && q.alphas.empty() && !a.has("curve-out");
  return q;
}

void add_answers_json(json& out, const query_answers& r) {
  json qs = json::array();
  const auto add = [&](const std::vector<answer>& answers, const char* at, const char* value) {
    for (const answer& x : answers)
      qs.push_back(query(at, x.at, value, bracket(x.value.lower, x.value.upper)));
  };
  add(r.epsilon, "delta", "epsilon");
  add(r.delta, "epsilon", "delta");
  add(r.beta, "alpha", "beta");
  out["queries"] = qs;
}

json tolerance_json(double tolerance, bool met) {
  return {{"tolerance", tolerance}, {"tolerance_met", met}};
}

void print_answers(const query_answers& r, const std::function<std::string(double)>& show_point) {
  const auto print = [&](const std::vector<answer>& answers, const char* what_at) {
    for (const answer& x : answers)
      std::cout << "  " << what_at << show_point(x.at) << ":  [" << fmt_down(x.value.lower) << ", "
                << fmt_up(x.value.upper) << "]\n";
  };
  print(r.epsilon, "epsilon at delta=");
  print(r.delta, "delta at epsilon=");
  print(r.beta, "beta at alpha=");
}

void print_gdp_summary(const interval& mu) {
  std::cout << "  GDP summary (smallest mu with f >= G_mu):  [" << fmt_down(mu.lower) << ", "
            << fmt_up(mu.upper) << "]\n";
}

std::vector<option_def> query_command_options(std::vector<option_def> own) {
  own.insert(own.end(), {{"delta", true, true, "epsilon at this delta"},
                         {"eps", true, true, "delta at this epsilon"},
                         {"alpha", true, true, "beta at this alpha"},
                         {"mu", false, false, "report the GDP summary"},
                         {"method", true, false, "auto|exact|pld (compose: also clt)"},
                         {"tolerance", true, false, "relative bracket width"},
                         {"max-memory", true, false, "memory ceiling (default 2G)"},
                         {"events", true, true, "dp_accounting-style event file (JSON)"},
                         {"json", false, false, "JSON output"}});
  return own;
}

}  // namespace fdp::cli
