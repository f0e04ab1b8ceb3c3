// Umbrella header for the mechanism layer (fdp::mech).
#pragma once

#include "fdp/mech/accuracy.hpp"
#include "fdp/mech/flawed/laplace.hpp"
#include "fdp/mech/flawed/noisy_max.hpp"
#include "fdp/mech/flawed/sparse_vector.hpp"
#include "fdp/mech/gaussian.hpp"
#include "fdp/mech/laplace.hpp"
#include "fdp/mech/mechanism.hpp"
#include "fdp/mech/neighbours.hpp"
#include "fdp/mech/randomized_response.hpp"
#include "fdp/mech/registry.hpp"
#include "fdp/mech/rng.hpp"
#include "fdp/mech/selection.hpp"
#include "fdp/mech/sparse_vector.hpp"
