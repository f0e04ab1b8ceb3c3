// The single-process distribution of the plain `fdp` binary (distributed.hpp).
#include "../distributed.hpp"

namespace fdp::cli {

const distribution& this_distribution() {
  static const distribution alone;
  return alone;
}

}  // namespace fdp::cli
