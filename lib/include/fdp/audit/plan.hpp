// The objects an audit passes between its stages (docs/architecture.md, "Auditing
// pipeline"):
//
//   sample_block   outputs of one side (one neighbouring input) held in
//                  memory: the selection split, from which tests are chosen;
//   view           a finite partition of the output space into cells, fixed
//                  by the selection split: cut points on one coordinate
//                  (threshold tests and quantile bins), a set of category
//                  keys (categorical outputs, IEEE bit-pattern cells of a
//                  real output), or the leaves of a classification tree
//                  grown on vector outputs;
//   test           a rejection event (a set of cells of one view) and the
//                  ordering of the pair it is a test for, with the error
//                  budget of each of its one-sided confidence bounds;
//   plan           the views and tests chosen on the selection split;
//   eval_counts    per side, the number of evaluation outputs in each cell
//                  of each view: the sufficient statistic of the evaluation
//                  split for the plan. Counts add, so shards (threads,
//                  processes, machines) merge exactly with merge().
//
// Orderings. f-DP must hold for (D, D') and for (D', D). A test of ordering
// 0 has type I error alpha = P0(E) (outputs on input0 falling in the
// rejection event E) and type II error beta = 1 - P1(E); ordering 1 swaps
// the sides. The complement of E as a test of the other ordering (the
// mirror) has errors (beta, alpha): every test is also checked as its
// mirror, from the same counts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fdp/core/raw_vector.hpp"

namespace fdp::audit {

enum class output_type { real, categorical };

/// Outputs of one side, in memory.
struct sample_block {
  output_type type = output_type::real;
  std::size_t dim = 1;  ///< doubles per real output
  // (raw: the sampling threads write every element, and touch the pages first)
  raw_vector<double> real;       ///< size() * dim values, output-major
  raw_vector<std::int64_t> cat;  ///< category keys
  std::size_t size() const { return type == output_type::real ? real.size() / dim : cat.size(); }
};

/// A finite partition of the output space.
struct view {
  enum class kind {
    cuts,        ///< cell(x) = #{c in cuts : c < x[coord]} (cuts sorted, distinct)
    categories,  ///< cell = position of the key in `keys`; keys.size() = any other key
    bits,        ///< like categories, keys = bit_key(x[coord]) (sign, exponent, trailing zeros)
    tree,        ///< leaf of a binary tree over real vectors
    pattern      ///< (pattern of discrete coordinates and atoms, bin of the summed rest)
  };
  struct node {
    int coord = -1;  ///< split coordinate; -1 for a leaf
    double cut = 0;  ///< go left iff x[coord] <= cut
    int left = -1, right = -1;
    int leaf = -1;  ///< leaf (cell) index for leaves
  };
  kind type = kind::cuts;
  std::size_t coord = 0;
  std::vector<double> cuts;
  std::vector<std::int64_t> keys;
  std::vector<node> nodes;
  std::size_t leaves = 0;
  // pattern: discrete coordinates with their sorted values, coordinates with
  // an atom (value), the rest summed; keys = pattern hashes (pattern_key),
  // key_cuts[k] = cut points of the sum within pattern k.
  std::vector<std::size_t> disc;
  std::vector<std::vector<double>> disc_values;
  std::vector<std::size_t> atom_coord;
  std::vector<double> atom_value;
  std::vector<std::size_t> proj;
  std::vector<std::vector<double>> key_cuts;
  std::string label;  ///< e.g. "output", "coordinate 3", "output category"

  /// Builds the key index (call after filling `keys`).
  void index_keys();
  /// Builds every lookup structure of the view (key index, pattern offsets,
  /// the bucket table of cut points). Call once the view is filled.
  void prepare();
  /// cuts: the cell of the value y (#{c in cuts : c < y}).
  std::size_t cut_cell(double y) const {
    const std::size_t m = cuts.size();
    std::size_t c;
    if (!table_.empty()) {
      const double b = (y - tlo_) * tscale_;
      if (!(b >= 0)) return y <= cuts.front() ? 0 : slow_cut_cell(y);  // below the table (or NaN)
      if (b >= static_cast<double>(table_.size() - 1))
        return y > cuts.back() ? m : slow_cut_cell(y);
      c = table_[static_cast<std::size_t>(b)];
      // The bucket's cell is exact up to the cut points inside the bucket.
      while (c < m && cuts[c] < y) ++c;
      while (c > 0 && !(cuts[c - 1] < y)) --c;
      return c;
    }
    return slow_cut_cell(y);
  }
  std::size_t cells() const;
  std::size_t cell_of(const double* x) const;
  std::size_t cell_of_key(std::int64_t key) const;
  /// pattern: the pattern hash and the summed continuous part of x.
  std::int64_t pattern_key(const double* x, double& sum) const;
  /// pattern: first cell of each key (call after index_keys()).
  void index_pattern();

 private:
  std::unordered_map<std::int64_t, std::uint32_t> index_;
  std::vector<std::int32_t> dense_;   // key -> cell for small non-negative keys
  std::vector<std::size_t> offset_;   // pattern: first cell of key k; back() = other
  std::vector<std::uint32_t> table_;  // cuts: cell of the left edge of each bucket
  double tlo_ = 0, tscale_ = 0;
  std::size_t slow_cut_cell(double y) const;
};

/// The IEEE-754 bit-pattern cell of a double: sign, biased exponent and the
/// number of trailing zero bits of the 52-bit fraction (capped at 52; zero
/// and subnormals have their own keys). Two doubles share a key iff they lie
/// in the same binade with the same sign and their lowest set bit is at the
/// same position. Exposes the input-dependent output grids of floating-point
/// samplers (Mironov, "On significance of the least significant bits for
/// differential privacy", CCS 2012).
std::int64_t bit_key(double x);
std::string describe_bit_key(std::int64_t key);

struct test {
  std::size_t view = 0;
  std::vector<std::uint8_t> in;        ///< in[cell] != 0: the cell is in the rejection event
  int ordering = 0;                    ///< 0: alpha on input0, beta on input1; 1: swapped
  double gamma = 0.0;                  ///< one-sided error budget of each confidence bound
  bool band = false;                   ///< curve test: also lower bounds (4 bounds, else 2)
  std::string role;                    ///< "epsilon", "mu", "claim" or "curve"
  std::string description;             ///< the event, in words
  std::string complement;              ///< its complement, in words (the mirror test's event)
  double sel_alpha = 0, sel_beta = 0;  ///< point estimates on the selection split
};

struct plan {
  output_type type = output_type::real;
  std::size_t dim = 1;
  std::vector<view> views;
  std::vector<test> tests;
  std::uint64_t selection[2] = {0, 0};  ///< selection-split sizes per side
  double confidence = 0.95;
  /// The group size its inputs were audited under (audit_options::group):
  /// shards of a group audit must be merged against the group claim, so the
  /// plan carries it (a third number on the "selection" line when > 1).
  std::int64_t group = 1;
  /// Sum over tests of (2 or 4) * gamma; at most 1 - confidence.
  double total_error() const;
};

struct eval_counts {
  std::uint64_t n[2] = {0, 0};
  /// cells[side][view][cell]
  std::vector<std::vector<std::uint64_t>> cells[2];
  /// The random streams the counts were drawn from: (seed, first RNG block)
  /// of each mechanism evaluation merged in (none for sample files).
  /// merge() refuses a stream seen twice: the same outputs counted twice
  /// would narrow every confidence bound without new evidence.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> streams;
  void init(const plan& p);
  /// Adds another shard's counts (same plan).
  void merge(const eval_counts& other);
  /// Outputs of `side` in the rejection event of `t`.
  std::uint64_t count(int side, const test& t) const;
};

/// Adds `count` real outputs (dim doubles each) of `side` to the counts.
void accumulate(const plan& p, int side, const double* x, std::size_t count, eval_counts& c);
/// Adds categorical outputs (keys) of `side`; weight[i] copies of key[i]
/// (weight null: one each).
void accumulate(const plan& p, int side, const std::int64_t* key, const std::uint64_t* weight,
                std::size_t count, eval_counts& c);

}  // namespace fdp::audit
