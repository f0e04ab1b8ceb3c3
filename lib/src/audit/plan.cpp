#include "fdp/audit/plan.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace fdp::audit {

void view::index_keys() {
  index_.clear();
  dense_.clear();
  std::int64_t mx = -1;
  bool small = true;
  for (auto k : keys) {
    if (k < 0 || k >= (std::int64_t{1} << 20)) small = false;
    mx = std::max(mx, k);
  }
  if (small && !keys.empty()) {
    dense_.assign(static_cast<std::size_t>(mx) + 1, -1);
    for (std::size_t i = 0; i < keys.size(); ++i)
      dense_[static_cast<std::size_t>(keys[i])] = static_cast<std::int32_t>(i);
  } else {
    index_.reserve(keys.size() * 2);
    for (std::size_t i = 0; i < keys.size(); ++i)
      index_.emplace(keys[i], static_cast<std::uint32_t>(i));
  }
}

void view::prepare() {
  if (type == kind::categories || type == kind::bits || type == kind::pattern) index_keys();
  if (type == kind::pattern) index_pattern();
  table_.clear();
  if (type == kind::cuts && cuts.size() >= 8 && std::isfinite(cuts.front()) &&
      std::isfinite(cuts.back()) && cuts.back() > cuts.front()) {
    // Uniform buckets over [front, back]; a value's cell is the left edge's cell
    // plus the few cut points inside its bucket.
    const std::size_t nb = std::min<std::size_t>(1u << 14, 64 * cuts.size());
    tlo_ = cuts.front();
    tscale_ = static_cast<double>(nb) / (cuts.back() - cuts.front());
    if (!std::isfinite(tscale_) || tscale_ <= 0) return;
    table_.resize(nb + 1);
    for (std::size_t b = 0; b <= nb; ++b) {
      const double edge = tlo_ + static_cast<double>(b) / tscale_;
      table_[b] = static_cast<std::uint32_t>(std::lower_bound(cuts.begin(), cuts.end(), edge) -
                                             cuts.begin());
    }
  }
}

std::size_t view::slow_cut_cell(double y) const {
  return static_cast<std::size_t>(std::lower_bound(cuts.begin(), cuts.end(), y) - cuts.begin());
}

std::size_t view::cells() const {
  switch (type) {
    case kind::cuts:
      return cuts.size() + 1;
    case kind::categories:
    case kind::bits:
      return keys.size() + 1;
    case kind::tree:
      return leaves;
    case kind::pattern: {
      std::size_t c = 1;  // other
      for (const auto& k : key_cuts) c += k.size() + 1;
      return c;
    }
  }
  return 0;
}

std::int64_t view::pattern_key(const double* x, double& sum) const {
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&h](std::uint64_t v) {
    h ^= v;
    h *= 1099511628211ull;
  };
  for (std::size_t k = 0; k < disc.size(); ++k) {
    const auto& vals = disc_values[k];
    const double y = x[disc[k]];
    const auto it = std::lower_bound(vals.begin(), vals.end(), y);
    mix(it != vals.end() && *it == y ? static_cast<std::uint64_t>(it - vals.begin()) : 0xFFFFu);
  }
  for (std::size_t k = 0; k < atom_coord.size(); ++k)
    mix(x[atom_coord[k]] == atom_value[k] ? 0x10001u : 0x10002u);
  sum = 0;
  for (std::size_t k = 0; k < proj.size(); ++k) {
    const double y = x[proj[k]];
    bool atom = false;
    for (std::size_t a = 0; a < atom_coord.size(); ++a) {
      if (atom_coord[a] == proj[k] && y == atom_value[a]) atom = true;
    }
    if (!atom) sum += y;
  }
  return static_cast<std::int64_t>(h & 0x7FFFFFFFFFFFFFFFull);
}

void view::index_pattern() {
  offset_.assign(keys.size() + 1, 0);
  std::size_t c = 0;
  for (std::size_t k = 0; k < keys.size(); ++k) {
    offset_[k] = c;
    c += key_cuts[k].size() + 1;
  }
  offset_[keys.size()] = c;
}

std::size_t view::cell_of_key(std::int64_t key) const {
  if (!dense_.empty()) {
    if (key >= 0 && static_cast<std::uint64_t>(key) < dense_.size()) {
      const auto c = dense_[static_cast<std::size_t>(key)];
      if (c >= 0) return static_cast<std::size_t>(c);
    }
    return keys.size();
  }
  auto it = index_.find(key);
  return it == index_.end() ? keys.size() : it->second;
}

std::size_t view::cell_of(const double* x) const {
  switch (type) {
    case kind::cuts:
      return cut_cell(x[coord]);
    case kind::bits:
      return cell_of_key(bit_key(x[coord]));
    case kind::tree: {
      int i = 0;
      while (nodes[static_cast<std::size_t>(i)].coord >= 0) {
        const node& nd = nodes[static_cast<std::size_t>(i)];
        i = x[nd.coord] <= nd.cut ? nd.left : nd.right;
      }
      return static_cast<std::size_t>(nodes[static_cast<std::size_t>(i)].leaf);
    }
    case kind::pattern: {
      double sum;
      const auto k = cell_of_key(pattern_key(x, sum));
      if (k >= keys.size()) return offset_.back();
      const auto& cu = key_cuts[k];
      return offset_[k] +
             static_cast<std::size_t>(std::lower_bound(cu.begin(), cu.end(), sum) - cu.begin());
    }
    case kind::categories:
      break;
  }
  throw std::logic_error("view::cell_of: a categorical view takes keys");
}

std::int64_t bit_key(double x) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  const std::uint64_t s = u >> 63, e = (u >> 52) & 0x7FF, f = u & ((std::uint64_t{1} << 52) - 1);
  const std::uint64_t tz = f == 0 ? 52 : static_cast<std::uint64_t>(__builtin_ctzll(f));
  return static_cast<std::int64_t>((s << 17) | (e << 6) | tz);
}

std::string describe_bit_key(std::int64_t key) {
  const auto u = static_cast<std::uint64_t>(key);
  const int s = static_cast<int>(u >> 17), e = static_cast<int>((u >> 6) & 0x7FF),
            tz = static_cast<int>(u & 63);
  std::string out = s ? "-" : "+";
  if (e == 0) {
    out += tz == 52 ? "0" : "subnormal";
  } else {
    out += "2^" + std::to_string(e - 1023);
  }
  out += "/tz" + std::to_string(tz);
  return out;
}

double plan::total_error() const {
  double s = 0;
  for (const auto& t : tests) s += (t.band ? 4.0 : 2.0) * t.gamma;
  return s;
}

void eval_counts::init(const plan& p) {
  streams.clear();
  for (int s = 0; s < 2; ++s) {
    n[s] = 0;
    cells[s].assign(p.views.size(), {});
    for (std::size_t v = 0; v < p.views.size(); ++v) cells[s][v].assign(p.views[v].cells(), 0);
  }
}

void eval_counts::merge(const eval_counts& o) {
  for (const auto& st : o.streams) {
    if (std::find(streams.begin(), streams.end(), st) != streams.end()) {
      throw std::invalid_argument(
          "audit: two shards drew from the same random stream (seed " + std::to_string(st.first) +
          ", shard " + std::to_string(st.second >> 20) +
          "): their outputs would be counted twice; give each shard its own --shard index");
    }
  }
  for (int s = 0; s < 2; ++s) {
    if (o.cells[s].size() != cells[s].size())
      throw std::invalid_argument("eval_counts::merge: different plans");
    n[s] += o.n[s];
    for (std::size_t v = 0; v < cells[s].size(); ++v) {
      if (o.cells[s][v].size() != cells[s][v].size()) {
        throw std::invalid_argument("eval_counts::merge: different plans");
      }
      for (std::size_t i = 0; i < cells[s][v].size(); ++i) cells[s][v][i] += o.cells[s][v][i];
    }
  }
  streams.insert(streams.end(), o.streams.begin(), o.streams.end());
}

std::uint64_t eval_counts::count(int side, const test& t) const {
  const auto& c = cells[side][t.view];
  std::uint64_t k = 0;
  for (std::size_t i = 0; i < c.size() && i < t.in.size(); ++i) {
    if (t.in[i]) k += c[i];
  }
  return k;
}

void accumulate(const plan& p, int side, const double* x, std::size_t count, eval_counts& c) {
  const std::size_t d = p.dim;
  for (std::size_t v = 0; v < p.views.size(); ++v) {
    const view& w = p.views[v];
    auto* cnt = c.cells[side][v].data();
    if (w.type == view::kind::cuts) {
      const std::size_t j = w.coord;
      for (std::size_t i = 0; i < count; ++i) ++cnt[w.cut_cell(x[i * d + j])];
    } else {
      for (std::size_t i = 0; i < count; ++i) ++cnt[w.cell_of(x + i * d)];
    }
  }
  c.n[side] += count;
}

void accumulate(const plan& p, int side, const std::int64_t* key, const std::uint64_t* weight,
                std::size_t count, eval_counts& c) {
  std::uint64_t total = 0;
  for (std::size_t v = 0; v < p.views.size(); ++v) {
    const view& w = p.views[v];
    auto* cnt = c.cells[side][v].data();
    total = 0;
    for (std::size_t i = 0; i < count; ++i) {
      const std::uint64_t wt = weight ? weight[i] : 1;
      cnt[w.cell_of_key(key[i])] += wt;
      total += wt;
    }
  }
  if (p.views.empty()) {
    for (std::size_t i = 0; i < count; ++i) total += weight ? weight[i] : 1;
  }
  c.n[side] += total;
}

}  // namespace fdp::audit
