#include "fdp/ops/neighbours.hpp"

#include <stdexcept>

namespace fdp {

const std::vector<std::string>& neighbour_words() {
  static const std::vector<std::string> words = {"add-remove", "zero-out", "replace-one"};
  return words;
}

neighbour_relation parse_neighbours(const std::string& word) {
  const auto& w = neighbour_words();
  for (std::size_t i = 0; i < w.size(); ++i)
    if (w[i] == word) return static_cast<neighbour_relation>(i);
  throw std::invalid_argument("neighbours = '" + word +
                              "' must be one of add-remove, zero-out, replace-one");
}

std::string to_string(neighbour_relation n) {
  return neighbour_words().at(static_cast<std::size_t>(n));
}

}  // namespace fdp
