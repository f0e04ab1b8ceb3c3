// Prints fdp's Edgeworth and normal approximations of a composed trade-off
// function as JSON, for papers/edgeworth/reproduce.py. (The `fdp` command line
// does not expose the Edgeworth approximation yet; this driver calls the
// library function fdp::edgeworth_beta directly.)
//
// usage: fdp_paper_edgeworth laplace MU N ALPHA...
//        fdp_paper_edgeworth subsampled-gaussian SIGMA Q N ALPHA...
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "fdp/ops/edgeworth.hpp"

int main(int argc, char** argv) {
  try {
    if (argc < 4) {
      std::fprintf(stderr,
                   "usage: %s laplace MU N ALPHA... | subsampled-gaussian SIGMA Q N ALPHA...\n",
                   argv[0]);
      return 2;
    }
    const std::string kind = argv[1];
    fdp::loss_cumulants one;
    int next = 0;
    if (kind == "laplace") {
      one = fdp::laplace_loss_cumulants(std::atof(argv[2]));
      next = 3;
    } else if (kind == "subsampled-gaussian" && argc >= 5) {
      one = fdp::subsampled_gaussian_loss_cumulants(std::atof(argv[2]), std::atof(argv[3]));
      next = 4;
    } else {
      std::fprintf(stderr, "unknown mechanism '%s'\n", kind.c_str());
      return 2;
    }
    const long long n = std::atoll(argv[next++]);
    const fdp::loss_cumulants c = fdp::times(one, n);
    // The reverse pair T(Q, P): its loss is -L, with the roles of P and Q swapped.
    const fdp::loss_cumulants r{-c.mean_q, c.var_q, -c.k3_q, -c.mean_p, c.var_p, -c.k3_p};
    std::printf(
        "{\"cumulants\": {\"mean_p\": %.17g, \"var_p\": %.17g, \"k3_p\": %.17g, "
        "\"mean_q\": %.17g, \"var_q\": %.17g, \"k3_q\": %.17g},\n \"beta\": [",
        c.mean_p, c.var_p, c.k3_p, c.mean_q, c.var_q, c.k3_q);
    for (int i = next; i < argc; ++i) {
      const double a = std::atof(argv[i]);
      std::printf(
          "%s{\"alpha\": %.17g, \"edgeworth\": %.17g, \"normal\": %.17g, "
          "\"edgeworth_reverse\": %.17g, \"normal_reverse\": %.17g}",
          i == next ? "" : ", ", a, fdp::edgeworth_beta(c, a), fdp::normal_beta(c, a),
          fdp::edgeworth_beta(r, a), fdp::normal_beta(r, a));
    }
    std::printf("],\n \"is_bound\": false}\n");
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fdp_paper_edgeworth: %s\n", e.what());
    return 1;
  }
}
