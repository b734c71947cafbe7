// print.cpp: std::ostream << tensor, laid out as PyTorch's _tensor_str does: a shared element
// format chosen from all shown values (integers as "1.", fixed "%.4f", or scientific "%.4e"
// when the values span more than 1000x or leave [1e-4, 1e8)), right-aligned columns, rows
// wrapped at 80 characters, and "..." summaries past 1000 elements (3 items each side).
#include <cctype>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "internal.hpp"
#include "wick/ops.hpp"

namespace wick {
namespace {

// Values pass through long double: its 64-bit mantissa holds every int64 exactly (double's
// 53 bits would print 2^53 + 1 as 2^53).
using Value = long double;

constexpr int64_t kThreshold = 1000;
constexpr int64_t kEdgeItems = 3;
constexpr int kLineWidth = 80;

struct Formatter {
  Dtype dtype;
  bool int_mode = false;
  bool sci_mode = false;
  size_t width = 1;

  std::string format(Value value) const {
    const double v = static_cast<double>(value);
    char buf[64];
    if (dtype == kBool) return v != 0 ? "True" : "False";
    if (dtype == kInt64) {
      std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(value));
      return buf;
    }
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    if (sci_mode) {
      std::snprintf(buf, sizeof buf, "%.4e", v);
    } else if (int_mode) {
      std::snprintf(buf, sizeof buf, "%.0f.", v);
    } else {
      std::snprintf(buf, sizeof buf, "%.4f", v);
    }
    return buf;
  }
  std::string padded(Value v) const {
    std::string s = format(v);
    return std::string(width > s.size() ? width - s.size() : 0, ' ') + s;
  }
};

// A summarised print reads only the first and last kEdgeItems of each long dim: `all` holds
// those (the "kept" tensor below, row-major), and an index i of a dim of n maps to its place
// among them.
int64_t kept_index(int64_t i, int64_t n, bool summarise) {
  return summarise && n > 2 * kEdgeItems && i >= n - kEdgeItems ? i - (n - 2 * kEdgeItems) : i;
}
int64_t kept_size(int64_t n, bool summarise) {
  return summarise && n > 2 * kEdgeItems ? 2 * kEdgeItems : n;
}
int64_t kept_inner(const Shape& sizes, size_t depth, bool summarise) {
  int64_t inner = 1;
  for (size_t d = depth + 1; d < sizes.size(); ++d) inner *= kept_size(sizes[d], summarise);
  return inner;
}

// The values a summarised print shows, as a nested walk would visit them.
void collect(const std::vector<Value>& all, const Shape& sizes, size_t depth, int64_t base,
             bool summarise, std::vector<Value>& shown) {
  if (depth == sizes.size()) {
    shown.push_back(all[static_cast<size_t>(base)]);
    return;
  }
  int64_t n = sizes[depth];
  const int64_t inner = kept_inner(sizes, depth, summarise);
  for (int64_t i = 0; i < n; ++i) {
    if (summarise && n > 2 * kEdgeItems && i == kEdgeItems) i = n - kEdgeItems;
    collect(all, sizes, depth + 1, base + kept_index(i, n, summarise) * inner, summarise, shown);
  }
}

Formatter make_formatter(Dtype dtype, const std::vector<Value>& shown) {
  Formatter f{dtype};
  if (is_floating(dtype)) {
    std::vector<Value> finite;
    for (double v : shown) {
      if (std::isfinite(v)) finite.push_back(v);
    }
    if (!finite.empty()) {
      f.int_mode = true;
      double max_abs = 0, min_abs = INFINITY;
      for (double v : finite) {
        f.int_mode = f.int_mode && v == std::ceil(v);
        double a = std::fabs(v);
        if (a != 0) {
          max_abs = std::max(max_abs, a);
          min_abs = std::min(min_abs, a);
        }
      }
      if (f.int_mode) {
        f.sci_mode = min_abs != INFINITY && (max_abs / min_abs > 1000.0 || max_abs > 1e8);
      } else if (min_abs != INFINITY) {
        f.sci_mode = max_abs / min_abs > 1000.0 || max_abs > 1e8 || min_abs < 1e-4;
      }
    }
  }
  // As PyTorch: floats take their width from the non-zero finite values only (nan, inf and 0
  // are padded to it); integers and bools from every value.
  for (Value v : shown) {
    if (is_floating(dtype) && (v == 0 || !std::isfinite(static_cast<double>(v)))) continue;
    f.width = std::max(f.width, f.format(v).size());
  }
  return f;
}

void write(std::string& out, const std::vector<Value>& all, const Shape& sizes, size_t depth,
           int64_t base, bool summarise, const Formatter& f, size_t indent) {
  int64_t n = sizes[depth];
  const int64_t inner = kept_inner(sizes, depth, summarise);
  out += '[';
  bool last_dim = depth + 1 == sizes.size();
  size_t per_line = std::max<size_t>(1, (kLineWidth - indent - depth) / (f.width + 2));
  size_t on_line = 0;
  for (int64_t i = 0; i < n; ++i) {
    bool skip = summarise && n > 2 * kEdgeItems && i == kEdgeItems;
    if (i > 0) {
      if (last_dim) {
        out += ',';
        if (++on_line >= per_line) {
          out += '\n' + std::string(indent + depth + 1, ' ');
          on_line = 0;
        } else {
          out += ' ';
        }
      } else {
        out += ',' + std::string(sizes.size() - depth - 1, '\n') +
               std::string(indent + depth + 1, ' ');
      }
    }
    if (skip) {
      out += last_dim ? " ..." : "...";
      i = n - kEdgeItems - 1;
      continue;
    }
    const int64_t at = base + kept_index(i, n, summarise) * inner;
    if (last_dim) {
      out += f.padded(all[static_cast<size_t>(at)]);
    } else {
      write(out, all, sizes, depth + 1, at, summarise, f, indent);
    }
  }
  out += ']';
}

// PyTorch's style of node name: "log_softmax" -> "LogSoftmaxBackward0".
std::string backward_name(const Tensor& t) {
  AutogradHooks* hooks = autograd_hooks();
  std::string op = hooks != nullptr ? hooks->grad_fn_name(t) : std::string();
  std::string name;
  bool upper = true;
  for (char c : op) {
    if (c == '_') {
      upper = true;
      continue;
    }
    name += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return name + "Backward0";
}
}  // namespace

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  if (!t.defined()) return os << "[ Tensor (undefined) ]";
  bool summarise = t.numel() > kThreshold;
  // Summarised, only the edges of each long dim are copied off the tensor: a print of a
  // billion elements reads a few hundred (it copied them all, and a 2^40-element expanded
  // tensor threw std::bad_alloc).
  Tensor kept = t.detach();
  if (summarise) {
    for (int64_t d = 0; d < t.dim(); ++d) {
      const int64_t n = t.sizes()[d];
      if (n > 2 * kEdgeItems) {
        kept = cat({kept.narrow(d, 0, kEdgeItems), kept.narrow(d, n - kEdgeItems, kEdgeItems)}, d);
      }
    }
  }
  std::vector<Value> all;
  if (t.dtype() == kInt64) {
    for (int64_t v : kept.to_vector<int64_t>()) all.push_back(static_cast<Value>(v));
  } else {
    for (double v : kept.to_vector<double>()) all.push_back(v);
  }
  std::vector<Value> shown;
  if (t.dim() == 0) {
    shown = all;
  } else if (t.numel() > 0) {
    collect(all, t.sizes(), 0, 0, summarise, shown);
  }
  Formatter f = make_formatter(t.dtype(), shown);
  std::string out = "tensor(";
  if (t.dim() == 0) {
    out += f.format(all[0]);
  } else if (t.numel() == 0) {
    out += "[]";
    if (!(t.dim() == 1)) {
      out += ", size=(";
      for (int64_t i = 0; i < t.dim(); ++i) {
        out += (i ? ", " : "") + std::to_string(t.sizes()[i]);
      }
      out += t.dim() == 1 ? ",)" : ")";
    }
  } else {
    write(out, all, t.sizes(), 0, 0, summarise, f, 7);
  }
  if (!t.device().is_cpu()) out += ", device='" + t.device().str() + "'";
  // int64 and bool values show their dtype; an empty tensor names it, as PyTorch does.
  const bool implied = t.numel() > 0 && (t.dtype() == kInt64 || t.dtype() == kBool);
  if (t.dtype() != kDefaultFloat && !implied) {
    out += std::string(", dtype=") + dtype_name(t.dtype());
  }
  if (t.requires_grad()) {
    out += t.is_leaf() ? ", requires_grad=True" : ", grad_fn=<" + backward_name(t) + ">";
  }
  out += ')';
  return os << out;
}

}  // namespace wick
