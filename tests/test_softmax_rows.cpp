// test_softmax_rows.cpp: softmax and log_softmax over contiguous rows, the CPU path that takes
// short rows in groups (vec_kernels.cpp's softmax_rows: a group's logs or reciprocals as one
// vector loop, each row's max halved in registers). Row lengths around the max's 16-lane
// vectors and 64-element steps and around the group sizes, row counts that leave a partial
// group, rows with NaN, +inf and -inf at every lane position; against long double, and bit for
// bit against the same row computed alone and on another thread count.
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "reference.hpp"

using namespace wick;

namespace {

const float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

// Row r of the input: values in [-8, 8) from a small generator, with r's special values.
std::vector<float> make_rows(int64_t rows, int64_t n) {
  std::vector<float> v(static_cast<size_t>(rows * n));
  uint32_t state = 12345;
  for (float& x : v) {
    state = state * 1664525u + 1013904223u;
    x = static_cast<float>(state >> 8) / static_cast<float>(1 << 24) * 16.0f - 8.0f;
  }
  for (int64_t r = 0; r < rows; ++r) {
    float* row = v.data() + r * n;
    const int64_t at = (r * 7) % n;  // a different lane position for each row
    switch (r % 6) {
      case 1:
        row[at] = kNaN;  // the row is NaN
        break;
      case 2:
        for (int64_t i = 0; i < n; ++i) row[i] = -kInf;  // 0 / 0: NaN
        break;
      case 3:
        row[at] = kInf;  // inf - inf: NaN
        break;
      case 4:
        row[at] = -kInf;            // softmax 0, log_softmax -inf there
        row[(at + 1) % n] = 80.0f;  // a max far above the rest
        break;
      default:
        break;
    }
  }
  return v;
}

// PyTorch's result for row `row` in long double.
std::vector<long double> reference_row(const float* row, int64_t n, bool log_form) {
  long double shift = -INFINITY;
  bool nan = false;
  for (int64_t i = 0; i < n; ++i) {
    nan = nan || std::isnan(row[i]);
    shift = std::max<long double>(shift, row[i]);
  }
  std::vector<long double> out(static_cast<size_t>(n));
  if (nan || shift == INFINITY || shift == -INFINITY) {
    for (auto& x : out) x = NAN;
    return out;
  }
  long double total = 0;
  for (int64_t i = 0; i < n; ++i) total += std::exp(static_cast<long double>(row[i]) - shift);
  for (int64_t i = 0; i < n; ++i) {
    const long double v = static_cast<long double>(row[i]) - shift;
    out[static_cast<size_t>(i)] = log_form ? v - std::log(total) : std::exp(v) / total;
  }
  return out;
}

bool same_bits(const Tensor& a, const Tensor& b) {
  const std::vector<float> x = a.to_vector<float>(), y = b.to_vector<float>();
  return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("softmax over contiguous rows: short and long rows, partial groups, NaN and inf",
          "[softmax]") {
  const int previous_threads = get_num_threads();
  for (int64_t n : {1, 3, 15, 16, 17, 31, 33, 63, 64, 65, 127, 255, 256, 257, 1000, 4097}) {
    for (int64_t rows : {1, 7, 16, 37}) {
      const std::vector<float> values = make_rows(rows, n);
      const Tensor x = tensor(values, {rows, n});
      for (bool log_form : {false, true}) {
        INFO((log_form ? "log_softmax" : "softmax") << " of [" << rows << ", " << n << "]");
        set_num_threads(1);
        const Tensor one = log_form ? log_softmax(x, 1) : softmax(x, 1);
        set_num_threads(2);
        const Tensor two = log_form ? log_softmax(x, 1) : softmax(x, 1);
        CHECK(same_bits(one, two));
        const std::vector<float> got = one.to_vector<float>();
        int64_t bad = 0, alone_differs = 0;
        std::string first_bad;
        for (int64_t r = 0; r < rows; ++r) {
          const float* row = values.data() + r * n;
          const std::vector<long double> want = reference_row(row, n, log_form);
          for (int64_t i = 0; i < n; ++i) {
            const long double w = want[static_cast<size_t>(i)];
            const float g = got[static_cast<size_t>(r * n + i)];
            bool ok = false;
            if (std::isnan(w)) {
              ok = std::isnan(g);
            } else if (std::isinf(w)) {
              ok = g == w;
            } else {
              // x - max rounded to float32 (as in PyTorch: an error of |x - max| 2^-24 in the
              // exponent), exp within 2 float32 ulps, the sum in double, one rounding of the
              // output; a log_softmax output also carries the log's error, about 2^-23.
              const long double shifted = w != 0 ? std::fabs(std::log(std::fabs(w))) : 0;
              const long double tol =
                  log_form ? 0x1p-22L + 0x1p-22L * std::fabs(w)
                           : (0x1p-21L + 0x1p-23L * shifted) * std::fabs(w) + 0x1p-140L;
              ok = std::fabs(g - w) <= tol;
            }
            if (!ok && bad++ == 0) {
              std::ostringstream text;
              text << "row " << r << " element " << i << " (x = " << row[i]
                   << "): " << std::hexfloat << g << ", want " << static_cast<double>(w);
              first_bad = text.str();
            }
          }
          // The row alone (a group of one) gives the same bits as inside its group.
          const Tensor alone =
              log_form ? log_softmax(x.narrow(0, r, 1), 1) : softmax(x.narrow(0, r, 1), 1);
          alone_differs += !same_bits(alone, one.narrow(0, r, 1).contiguous());
        }
        INFO("first bad element: " << first_bad);
        CHECK(bad == 0);
        CHECK(alone_differs == 0);
      }
    }
  }
  set_num_threads(previous_threads);
}
