// Shared by compose / curve / group: parsing specs and printing brackets.
#pragma once

#include <string>
#include <vector>

#include "cli.hpp"
#include "fdp/ops/compose.hpp"

namespace fdp::cli {

std::vector<spec> parse_specs(const args& a);
compose_options compose_options_from(const args& a);
/// A memory size: bytes, or a number with K, M, G or T (powers of 1024);
/// 0 (no ceiling) or 64M .. 1T (usage_error otherwise).
std::size_t parse_memory(const std::string& text, const std::string& what);
/// One line on how the memory ceiling shaped c's grid ("" when it did not),
/// and its JSON name (none, refinement_stopped, coarsened, chernoff_only).
std::string grid_limit_note(const composition& c, const compose_options& o);
std::string grid_limit_name(const composition& c);
/// The alpha grid used by curve output: uniform points plus log-spaced points near 0.
std::vector<double> alpha_grid(int points);
/// Writes alpha,beta_lower,beta_upper to a file (or stdout for "-").
void write_curve_csv(const composition& c, int points, const std::string& path);

}  // namespace fdp::cli
