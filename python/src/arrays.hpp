// Element-wise maps over NumPy arrays, computed in C++ with the GIL
// released: the inputs are copied into C++ vectors first (forcecast: any real
// dtype is converted to float64; shapes must agree, broadcasting is done by
// the Python layer), so no Python object is touched while the loop runs.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "fdp/core/interval.hpp"

namespace fdp::python {

namespace py = pybind11;
using in_array = py::array_t<double, py::array::c_style | py::array::forcecast>;

inline std::vector<double> copy_of(const in_array& a) {
  return std::vector<double>(a.data(), a.data() + a.size());
}

inline std::vector<py::ssize_t> shape_of(const in_array& a) {
  return std::vector<py::ssize_t>(a.shape(), a.shape() + a.ndim());
}

inline void require_same_shape(const in_array& a, const in_array& b, const char* what) {
  if (shape_of(a) != shape_of(b))
    throw std::invalid_argument(std::string(what) + ": the two arrays must have the same shape");
}

inline py::array_t<double> array_from(const std::vector<double>& v,
                                      const std::vector<py::ssize_t>& shape) {
  py::array_t<double> out(shape);
  std::copy(v.begin(), v.end(), out.mutable_data());
  return out;
}

/// f(x_i) for every element; a throw from f propagates (as ValueError).
template <class F>
py::array_t<double> map_unary(const in_array& x, F f) {
  std::vector<double> v = copy_of(x);
  {
    py::gil_scoped_release release;
    for (double& e : v) e = f(e);
  }
  return array_from(v, shape_of(x));
}

/// f(x_i, y_i) for arrays of one shape.
template <class F>
py::array_t<double> map_binary(const in_array& x, const in_array& y, F f, const char* what) {
  require_same_shape(x, y, what);
  std::vector<double> v = copy_of(x);
  const std::vector<double> w = copy_of(y);
  {
    py::gil_scoped_release release;
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = f(v[i], w[i]);
  }
  return array_from(v, shape_of(x));
}

/// An interval-valued f over x: the arrays of lower and upper ends.
template <class F>
std::pair<py::array_t<double>, py::array_t<double>> map_interval(const in_array& x, F f) {
  const std::vector<double> v = copy_of(x);
  std::vector<double> lo(v.size()), hi(v.size());
  {
    py::gil_scoped_release release;
    for (std::size_t i = 0; i < v.size(); ++i) {
      const interval r = f(v[i]);
      lo[i] = r.lower;
      hi[i] = r.upper;
    }
  }
  return {array_from(lo, shape_of(x)), array_from(hi, shape_of(x))};
}

}  // namespace fdp::python
