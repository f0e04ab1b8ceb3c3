// A certified bracket [lower, upper]: every numeric answer fdp gives about a
// trade-off function (epsilon, delta, beta, mu) is one, and the true value
// lies inside it. A closed form evaluated in double precision is a bracket
// too, rounded outward by its error bound.
#pragma once

namespace fdp {

struct interval {
  double lower = 0.0;
  double upper = 0.0;
};

}  // namespace fdp
