// How two datasets are neighbours, for the accounting of subsampled
// mechanisms: the one list of relations and their words, used by the spec
// key `neighbours=` of the subsampled kinds and by `fdp dpsgd --neighbours`.
//   add-remove   one record added or removed (the default);
//   zero-out     one record replaced by a "zero" record that contributes
//                nothing (replace-special; Kairouz et al. 2021);
//   replace-one  one record replaced by any other.
#pragma once

#include <string>
#include <vector>

namespace fdp {

enum class neighbour_relation { add_remove, zero_out, replace_one };

/// "add-remove", "zero-out", "replace-one", in the enum's order.
const std::vector<std::string>& neighbour_words();

/// The relation a word names; std::invalid_argument
/// "neighbours = 'W' must be one of add-remove, zero-out, replace-one".
neighbour_relation parse_neighbours(const std::string& word);

std::string to_string(neighbour_relation n);

}  // namespace fdp
