#include "fdp/audit/stats_io.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "fdp/core/bounded_reader.hpp"

namespace fdp::audit {
namespace {

std::string hex(double x) {
  char b[64];
  std::snprintf(b, sizeof b, "%a", x);
  return b;
}

struct reader {
  // The first line (the format's name) is read with the default line limit,
  // so that a file of another kind fails there; later lines may be long.
  explicit reader(bounded_line_reader& l) : lines(l), name(l.path()) {}
  bounded_line_reader& lines;
  std::string name;
  std::uint64_t line = 0;
  std::string cur;

  [[noreturn]] void fail(const std::string& what) const {
    throw std::invalid_argument(name + ":" + std::to_string(line) + ": " + what);
  }
  std::string next() {
    if (!lines.next(cur)) fail("unexpected end of file");
    line = lines.line();
    lines.set_max_line(kMaxStatsLineBytes);
    return cur;
  }
  /// A line "KEY rest"; returns rest.
  std::string keyed(const std::string& key) {
    next();
    if (cur.compare(0, key.size(), key) != 0 ||
        (cur.size() > key.size() && cur[key.size()] != ' ')) {
      fail("expected '" + key + "'");
    }
    return cur.size() > key.size() ? cur.substr(key.size() + 1) : std::string();
  }
  double number(std::istringstream& ss) {
    std::string t;
    if (!(ss >> t)) fail("missing number");
    char* end = nullptr;
    const double v = std::strtod(t.c_str(), &end);
    if (end == t.c_str() || *end) fail("bad number '" + t + "'");
    return v;
  }
  std::uint64_t count(std::istringstream& ss) {
    std::string t;
    if (!(ss >> t)) fail("missing integer");
    // (strtoull takes "-1" as 2^64 - 1: digits only)
    if (t.find_first_not_of("0123456789") != std::string::npos) fail("bad integer '" + t + "'");
    errno = 0;
    char* end = nullptr;
    const unsigned long long v = std::strtoull(t.c_str(), &end, 10);
    if (end == t.c_str() || *end || errno == ERANGE) fail("bad integer '" + t + "'");
    return v;
  }
  std::int64_t integer(std::istringstream& ss) {
    std::string t;
    if (!(ss >> t)) fail("missing integer");
    char* end = nullptr;
    const long long v = std::strtoll(t.c_str(), &end, 10);
    if (end == t.c_str() || *end) fail("bad integer '" + t + "'");
    return v;
  }
};

const char* kind_text(view::kind k) {
  switch (k) {
    case view::kind::cuts:
      return "cuts";
    case view::kind::categories:
      return "categories";
    case view::kind::bits:
      return "bits";
    case view::kind::tree:
      return "tree";
    case view::kind::pattern:
      return "pattern";
  }
  return "?";
}

void write_plan_body(std::ostream& os, const plan& p) {
  os << "type " << (p.type == output_type::real ? "real" : "categorical") << "\n";
  os << "dim " << p.dim << "\n";
  os << "confidence " << hex(p.confidence) << "\n";
  os << "selection " << p.selection[0] << " " << p.selection[1];
  if (p.group > 1) os << " " << p.group;  // (absent for neighbours: older files read the same)
  os << "\n";
  os << "views " << p.views.size() << "\n";
  for (const auto& v : p.views) {
    os << "view " << kind_text(v.type) << " " << v.coord << " " << v.cuts.size() << " "
       << v.keys.size() << " " << v.nodes.size() << " " << v.leaves << "\n";
    os << "label " << v.label << "\n";
    os << "cuts";
    for (double c : v.cuts) os << " " << hex(c);
    os << "\nkeys";
    for (auto k : v.keys) os << " " << k;
    os << "\n";
    for (const auto& nd : v.nodes) {
      os << "node " << nd.coord << " " << hex(nd.cut) << " " << nd.left << " " << nd.right << " "
         << nd.leaf << "\n";
    }
    if (v.type == view::kind::pattern) {
      os << "pattern " << v.disc.size() << " " << v.atom_coord.size() << " " << v.proj.size()
         << "\n";
      for (std::size_t k = 0; k < v.disc.size(); ++k) {
        os << "disc " << v.disc[k] << " " << v.disc_values[k].size();
        for (double x : v.disc_values[k]) os << " " << hex(x);
        os << "\n";
      }
      for (std::size_t k = 0; k < v.atom_coord.size(); ++k)
        os << "atom " << v.atom_coord[k] << " " << hex(v.atom_value[k]) << "\n";
      os << "proj";
      for (auto j : v.proj) os << " " << j;
      os << "\n";
      for (const auto& cu : v.key_cuts) {
        os << "keycuts " << cu.size();
        for (double x : cu) os << " " << hex(x);
        os << "\n";
      }
    }
  }
  os << "tests " << p.tests.size() << "\n";
  for (const auto& t : p.tests) {
    os << "test " << t.view << " " << t.ordering << " " << hex(t.gamma) << " " << (t.band ? 1 : 0)
       << " " << hex(t.sel_alpha) << " " << hex(t.sel_beta) << "\n";
    os << "role " << t.role << "\n";
    os << "desc " << t.description << "\n";
    os << "comp " << t.complement << "\n";
    os << "in ";
    for (auto b : t.in) os << (b ? '1' : '0');
    os << "\n";
  }
}

/// A line "KEY N"; returns N.
std::size_t read_count_line(reader& r, const std::string& key) {
  std::istringstream ss(r.keyed(key));
  return r.count(ss);
}

/// The plan's lines before its views: type, dim, confidence, selection.
void read_plan_header(reader& r, plan& p) {
  {
    const std::string t = r.keyed("type");
    if (t == "real")
      p.type = output_type::real;
    else if (t == "categorical")
      p.type = output_type::categorical;
    else
      r.fail("unknown type '" + t + "'");
  }
  p.dim = read_count_line(r, "dim");
  {
    std::istringstream ss(r.keyed("confidence"));
    p.confidence = r.number(ss);
    if (!(p.confidence > 0 && p.confidence < 1)) r.fail("confidence must be in (0, 1)");
  }
  {
    std::istringstream ss(r.keyed("selection"));
    p.selection[0] = r.count(ss);
    p.selection[1] = r.count(ss);
    long long g = 1;
    if (ss >> g) {
      if (g < 1 || g > 1000000) r.fail("group size must be in [1, 1000000]");
      p.group = g;
    }
  }
}

view::kind read_view_kind(reader& r, std::istringstream& ss) {
  std::string k;
  ss >> k;
  if (k == "cuts") return view::kind::cuts;
  if (k == "categories") return view::kind::categories;
  if (k == "bits") return view::kind::bits;
  if (k == "tree") return view::kind::tree;
  if (k == "pattern") return view::kind::pattern;
  r.fail("unknown view kind '" + k + "'");
}

/// How many cuts, keys and tree nodes follow a "view" line.
struct view_sizes {
  std::size_t cuts = 0, keys = 0, nodes = 0;
};

/// The "view KIND COORD NCUTS NKEYS NNODES LEAVES" line: sets v's kind,
/// coordinate and leaves, returns the sizes of what follows.
view_sizes read_view_line(reader& r, const plan& p, view& v) {
  std::istringstream ss(r.keyed("view"));
  v.type = read_view_kind(r, ss);
  v.coord = r.count(ss);
  if (v.coord >= p.dim && p.type == output_type::real) r.fail("coordinate out of range");
  view_sizes n;
  n.cuts = r.count(ss);
  n.keys = r.count(ss);
  n.nodes = r.count(ss);
  v.leaves = r.count(ss);
  return n;
}

void read_tree_nodes(reader& r, const plan& p, std::size_t nn, view& v) {
  for (std::size_t j = 0; j < nn; ++j) {
    std::istringstream ns(r.keyed("node"));
    view::node nd;
    nd.coord = static_cast<int>(r.integer(ns));
    nd.cut = r.number(ns);
    nd.left = static_cast<int>(r.integer(ns));
    nd.right = static_cast<int>(r.integer(ns));
    nd.leaf = static_cast<int>(r.integer(ns));
    if (nd.coord >= static_cast<int>(p.dim)) r.fail("node coordinate out of range");
    v.nodes.push_back(nd);
  }
}

/// Children and leaves must index into the tree; checked once all nodes are
/// read, since a child may come after its parent.
void check_tree_links(reader& r, const view& v) {
  const std::size_t nn = v.nodes.size();
  for (const auto& nd : v.nodes) {
    if (nd.coord >= 0 && (nd.left < 0 || nd.right < 0 || nd.left >= static_cast<int>(nn) ||
                          nd.right >= static_cast<int>(nn))) {
      r.fail("tree node child out of range");
    }
    if (nd.coord < 0 && (nd.leaf < 0 || nd.leaf >= static_cast<int>(v.leaves)))
      r.fail("tree leaf out of range");
  }
  if (v.type == view::kind::tree && v.nodes.empty()) r.fail("empty tree");
}

/// "N x1 ... xN" on the rest of a line, in ascending order (else fails with `unsorted`).
std::vector<double> read_sorted_numbers(reader& r, std::istringstream& ss,
                                        const std::string& unsorted) {
  const std::size_t n = r.count(ss);
  std::vector<double> xs;
  for (std::size_t q = 0; q < n; ++q) xs.push_back(r.number(ss));
  if (!std::is_sorted(xs.begin(), xs.end())) r.fail(unsorted);
  return xs;
}

std::size_t read_pattern_coord(reader& r, std::istringstream& ss, const plan& p) {
  const std::size_t j = r.count(ss);
  if (j >= p.dim) r.fail("pattern coordinate out of range");
  return j;
}

/// The lines of a pattern view after its nodes: pattern, disc, atom, proj, keycuts.
void read_pattern(reader& r, const plan& p, std::size_t nkeys, view& v) {
  std::istringstream ps(r.keyed("pattern"));
  const std::size_t nd = r.count(ps), na = r.count(ps), np = r.count(ps);
  for (std::size_t k = 0; k < nd; ++k) {
    std::istringstream ds(r.keyed("disc"));
    v.disc.push_back(read_pattern_coord(r, ds, p));
    v.disc_values.push_back(read_sorted_numbers(r, ds, "discrete values must be sorted"));
  }
  for (std::size_t k = 0; k < na; ++k) {
    std::istringstream as(r.keyed("atom"));
    v.atom_coord.push_back(read_pattern_coord(r, as, p));
    v.atom_value.push_back(r.number(as));
  }
  {
    std::istringstream js(r.keyed("proj"));
    for (std::size_t k = 0; k < np; ++k) v.proj.push_back(read_pattern_coord(r, js, p));
  }
  for (std::size_t k = 0; k < nkeys; ++k) {
    std::istringstream cs(r.keyed("keycuts"));
    v.key_cuts.push_back(read_sorted_numbers(r, cs, "cut points must be sorted"));
  }
}

view read_view(reader& r, const plan& p) {
  view v;
  const view_sizes n = read_view_line(r, p, v);
  v.label = r.keyed("label");
  {
    std::istringstream cs(r.keyed("cuts"));
    for (std::size_t j = 0; j < n.cuts; ++j) v.cuts.push_back(r.number(cs));
  }
  {
    std::istringstream ks(r.keyed("keys"));
    for (std::size_t j = 0; j < n.keys; ++j) v.keys.push_back(r.integer(ks));
  }
  read_tree_nodes(r, p, n.nodes, v);
  check_tree_links(r, v);
  if (v.type == view::kind::pattern) read_pattern(r, p, n.keys, v);
  if (v.type == view::kind::cuts && !std::is_sorted(v.cuts.begin(), v.cuts.end()))
    r.fail("cut points must be sorted");
  v.prepare();
  return v;
}

test read_test(reader& r, const plan& p) {
  test t;
  std::istringstream ss(r.keyed("test"));
  t.view = r.count(ss);
  if (t.view >= p.views.size()) r.fail("test view out of range");
  t.ordering = static_cast<int>(r.integer(ss));
  t.gamma = r.number(ss);
  t.band = r.count(ss) != 0;
  t.sel_alpha = r.number(ss);
  t.sel_beta = r.number(ss);
  if (!(t.gamma > 0 && t.gamma < 1) || (t.ordering != 0 && t.ordering != 1))
    r.fail("bad test parameters");
  t.role = r.keyed("role");
  t.description = r.keyed("desc");
  t.complement = r.keyed("comp");
  const std::string in = r.keyed("in");
  if (in.size() != p.views[t.view].cells()) r.fail("event mask has the wrong number of cells");
  for (char c : in) {
    if (c != '0' && c != '1') r.fail("event mask must be 0/1");
    t.in.push_back(c == '1');
  }
  return t;
}

plan read_plan_body(reader& r) {
  plan p;
  read_plan_header(r, p);
  const std::size_t nv = read_count_line(r, "views");
  for (std::size_t i = 0; i < nv; ++i) p.views.push_back(read_view(r, p));
  const std::size_t nt = read_count_line(r, "tests");
  for (std::size_t i = 0; i < nt; ++i) p.tests.push_back(read_test(r, p));
  if (p.total_error() > 1.0 - p.confidence + 1e-12)
    r.fail("the tests' error levels exceed 1 - confidence");
  return p;
}

plan read_plan_file(bounded_line_reader& lines) {
  reader r{lines};
  if (r.next() != "fdp-audit-plan 1")
    r.fail("not an fdp audit plan file (first line must be 'fdp-audit-plan 1')");
  plan p = read_plan_body(r);
  if (r.next() != "end") r.fail("expected 'end'");
  return p;
}

}  // namespace

void write_plan(std::ostream& os, const plan& p) {
  os << "fdp-audit-plan 1\n";
  write_plan_body(os, p);
  os << "end\n";
}

void write_plan(const std::string& path, const plan& p) {
  std::ofstream f(path);
  if (!f) throw std::invalid_argument(path + ": cannot open for writing");
  write_plan(f, p);
  if (!f) throw std::runtime_error(path + ": write failed");
}

plan read_plan(std::istream& is, const std::string& name) {
  bounded_line_reader lines(is, name);
  return read_plan_file(lines);
}

plan read_plan(const std::string& path) {
  bounded_line_reader lines(path, "plan file");
  return read_plan_file(lines);
}

void write_stats(const std::string& path, const plan& p, const eval_counts& c) {
  std::ofstream f(path);
  if (!f) throw std::invalid_argument(path + ": cannot open for writing");
  f << "fdp-audit-stats 1\n";
  write_plan_body(f, p);
  if (!c.streams.empty()) {
    f << "streams";
    for (const auto& st : c.streams) f << " " << st.first << " " << st.second;
    f << "\n";
  }
  f << "counts " << c.n[0] << " " << c.n[1] << "\n";
  for (int s = 0; s < 2; ++s) {
    for (std::size_t v = 0; v < c.cells[s].size(); ++v) {
      f << "cells " << s << " " << v;
      for (auto x : c.cells[s][v]) f << " " << x;
      f << "\n";
    }
  }
  f << "end\n";
  if (!f) throw std::runtime_error(path + ": write failed");
}

void read_stats(const std::string& path, plan& p, eval_counts& c) {
  bounded_line_reader lines(path, "stats file");
  reader r{lines};
  if (r.next() != "fdp-audit-stats 1")
    r.fail("not an fdp audit stats file (first line must be 'fdp-audit-stats 1')");
  p = read_plan_body(r);
  c.init(p);
  {
    // optional: "streams SEED BLOCK ..." (mechanism shards), then "counts"
    std::string line = r.next();
    if (line.compare(0, 8, "streams ") == 0) {
      std::istringstream ss(line.substr(8));
      std::string t;
      std::vector<std::uint64_t> v;
      while (ss >> t) {
        std::istringstream one(t);
        v.push_back(r.count(one));
      }
      if (v.empty() || v.size() % 2 != 0) r.fail("'streams' needs pairs of integers (seed, block)");
      for (std::size_t i = 0; i < v.size(); i += 2) c.streams.emplace_back(v[i], v[i + 1]);
      line = r.next();
    }
    if (line.compare(0, 7, "counts ") != 0) r.fail("expected 'counts'");
    std::istringstream ss(line.substr(7));
    c.n[0] = r.count(ss);
    c.n[1] = r.count(ss);
  }
  for (int s = 0; s < 2; ++s) {
    for (std::size_t v = 0; v < p.views.size(); ++v) {
      std::istringstream ss(r.keyed("cells"));
      if (r.integer(ss) != s || r.count(ss) != v) r.fail("cells out of order");
      std::uint64_t sum = 0;
      for (auto& x : c.cells[s][v]) sum += (x = r.count(ss));
      if (sum != c.n[s]) r.fail("cell counts do not add up to the side's count");
    }
  }
  if (r.next() != "end") r.fail("expected 'end'");
}

std::uint64_t plan_fingerprint(const plan& p) {
  std::ostringstream os;
  write_plan_body(os, p);
  const std::string s = os.str();
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : s) {
    h ^= ch;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace fdp::audit
