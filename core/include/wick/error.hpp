// error.hpp: the exceptions wick throws, and the one helper that builds their messages.
// Every rejection of user input is a wick::Error (a std::exception) or one of its kinds below;
// messages name the op and each operand's shape, dtype and device (see detail::fail).
// Tested in tests/test_errors.cpp.
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace wick {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};
// Operand shapes that do not fit the op (broadcast, matmul, view sizes, rank).
class ShapeError : public Error {
  using Error::Error;
};
// An operand's dtype is not accepted, or two dtypes cannot be combined.
class DtypeError : public Error {
  using Error::Error;
};
// Operands on different devices, or a device this build or machine does not have.
class DeviceError : public Error {
  using Error::Error;
};
// A dim or an index outside its range.
class IndexError : public Error {
  using Error::Error;
};
// A bad argument that is not a shape, dtype, device or index (e.g. a negative step).
class ValueError : public Error {
  using Error::Error;
};
// An allocation failed; the message says how much was asked for and where.
class OutOfMemoryError : public Error {
  using Error::Error;
};
// A CUDA runtime or cuBLAS call failed; the message names the call, the op and the device.
class CudaError : public Error {
  using Error::Error;
};
// Misuse of autograd: backward without a graph, a freed graph, a tensor changed in place.
class AutogradError : public Error {
  using Error::Error;
};

namespace detail {

template <typename... Parts>
std::string str_cat(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

// Throws ErrorKind with "op: " followed by the parts. Marked cold and noinline so that the
// checks on the hot path stay a compare and a never-taken branch.
template <typename ErrorKind, typename... Parts>
[[noreturn]] __attribute__((noinline, cold)) void fail(const char* op, const Parts&... parts) {
  throw ErrorKind(str_cat(op, ": ", parts...));
}

}  // namespace detail
}  // namespace wick

// WICK_CHECK(cond, Kind, op, parts...): throws wick::Kind with "op: parts..." when cond is false.
#define WICK_CHECK(cond, Kind, ...)                    \
  do {                                                 \
    if (__builtin_expect(!(cond), 0)) {                \
      ::wick::detail::fail<::wick::Kind>(__VA_ARGS__); \
    }                                                  \
  } while (0)
