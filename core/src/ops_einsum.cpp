// ops_einsum.cpp: einsum (torch.einsum), an arrangement of other ops. The equation names each
// operand's dims with letters (and "..." for any number of broadcast dims); a letter repeated
// within one operand takes that operand's diagonal, a letter in several operands multiplies
// along it, and a letter missing from the output is summed over. Steps:
//  1. parse: letters to labels ('A'-'Z' then 'a'-'z', PyTorch's order for an implicit output),
//     the "..." dims right-aligned across operands as extra labels;
//  2. per operand: diagonals (the repeated dims moved last, flattened, every (1 + n + n^2 ...)th
//     element picked by index_select), then a sum over the labels no one else needs;
//  3. left to right, each operand is contracted into the running result by one matmul: shared
//     labels needed later are its batch dims, shared labels not needed are its K, the others
//     its M and N (a shared label of size 1 on one side is summed on the other first);
//  4. the labels left that the output lacks are summed, and the rest permuted to its order.
// Every step is a differentiable op (permute, reshape, index_select, sum, matmul), so the
// gradient comes with them, on every device. Errors name einsum, the equation and the shapes.
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "internal.hpp"
#include "wick/ops.hpp"

namespace wick {
namespace {

constexpr int kLetters = 52;  // 'A'-'Z' are labels 0-25, 'a'-'z' 26-51; "..." dims follow

using Labels = std::vector<int>;

struct Term {
  Labels labels;          // one per letter, in order, with kEllipsis where "..." stands
  bool ellipsis = false;  // "..." appears
};
constexpr int kEllipsis = -1;

[[noreturn]] void fail(const std::string& equation, const std::string& what) {
  detail::fail<ValueError>("einsum", "equation \"", equation, "\": ", what);
}

int label_of(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return 26 + (c - 'a');
  return -2;
}

std::string subscript(int label) {
  if (label >= kLetters) return "of \"...\"";
  return std::string(
      1, label < 26 ? static_cast<char>('A' + label) : static_cast<char>('a' + label - 26));
}

// One side of "->", or one operand's subscripts: letters, spaces, at most one "...".
Term parse_term(const std::string& equation, const std::string& text) {
  Term t;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ') continue;
    if (c == '.') {
      if (text.compare(i, 3, "...") != 0) fail(equation, "a '.' outside \"...\"");
      if (t.ellipsis) fail(equation, "\"...\" appears twice in one operand");
      t.ellipsis = true;
      t.labels.push_back(kEllipsis);
      i += 2;
      continue;
    }
    const int label = label_of(c);
    if (label < 0) fail(equation, std::string("'") + c + "' is not a letter");
    t.labels.push_back(label);
  }
  return t;
}

// A tensor whose dims are named by labels.
struct Named {
  Tensor t;
  Labels labels;
};

int64_t position(const Labels& labels, int label) {
  return std::find(labels.begin(), labels.end(), label) - labels.begin();
}
bool has(const Labels& labels, int label) {
  return std::find(labels.begin(), labels.end(), label) != labels.end();
}

// The diagonal over every label repeated in x's labels.
Named take_diagonals(Named x, const std::string& equation) {
  // Each diagonal moves the kept labels forward and its own label last, so the scan starts
  // over after one (it went on from i + 1, and "iijj" never saw the j's: found by review);
  // every diagonal removes dims, so the scans end.
  for (size_t i = 0; i < x.labels.size();) {
    const int label = x.labels[i];
    std::vector<int64_t> at;
    for (size_t j = i; j < x.labels.size(); ++j) {
      if (x.labels[j] == label) at.push_back(static_cast<int64_t>(j));
    }
    if (at.size() < 2) {
      ++i;
      continue;
    }
    const int64_t n = x.t.size(at[0]);
    for (int64_t d : at) {
      if (x.t.size(d) != n) {
        fail(equation, "subscript " + subscript(label) + " repeated over dims of sizes " +
                           std::to_string(n) + " and " + std::to_string(x.t.size(d)) + " of " +
                           describe(x.t));
      }
    }
    Shape order, kept_sizes;
    Labels kept_labels;
    for (int64_t d = 0; d < x.t.dim(); ++d) {
      if (std::find(at.begin(), at.end(), d) != at.end()) continue;
      order.push_back(d);
      kept_sizes.push_back(x.t.size(d));
      kept_labels.push_back(x.labels[static_cast<size_t>(d)]);
    }
    // Element (k, k, ..., k) of the flattened repeated dims is k * (1 + n + n^2 + ...).
    int64_t step = 0, power = 1, flat = 1;
    for (size_t r = 0; r < at.size(); ++r, power *= n) step += power;
    for (int64_t d : at) {
      order.push_back(d);
      flat *= n;
    }
    Shape flat_sizes = kept_sizes;
    flat_sizes.push_back(flat);
    const Tensor picks = arange(n, TensorOptions(kInt64).device(x.t.device())) * step;
    x.t = x.t.permute(order).reshape(flat_sizes).index_select(-1, picks);
    kept_labels.push_back(label);
    x.labels = kept_labels;
    i = 0;
  }
  return x;
}

// x summed over the labels for which drop(label) holds.
template <typename Drop>
Named sum_labels(Named x, Drop&& drop) {
  Shape dims;
  Labels kept;
  for (size_t d = 0; d < x.labels.size(); ++d) {
    if (drop(x.labels[d])) {
      dims.push_back(static_cast<int64_t>(d));
    } else {
      kept.push_back(x.labels[d]);
    }
  }
  if (dims.empty()) return x;
  return {x.t.sum(dims), kept};
}

// a and b contracted, keeping the labels in `keep` (the output's and later operands').
Named contract(Named a, Named b, const Labels& keep) {
  auto needed = [&](int label) { return has(keep, label); };
  // A shared label not needed later, of size 1 on one side: summed on each side apart
  // (sum_i a_i * b_0 = (sum_i a_i) * b_0), so that K has equal sizes.
  auto lone_or_mismatched = [&](const Named& self, const Named& other, int label) {
    if (needed(label)) return false;
    if (!has(other.labels, label)) return true;
    return self.t.size(position(self.labels, label)) != other.t.size(position(other.labels, label));
  };
  const Named a0 = a;
  a = sum_labels(a, [&](int l) { return lone_or_mismatched(a0, b, l); });
  b = sum_labels(b, [&](int l) { return lone_or_mismatched(b, a0, l); });
  Labels batch, k_labels, m_labels, n_labels;
  for (int l : a.labels) {
    if (!has(b.labels, l)) {
      m_labels.push_back(l);
    } else if (needed(l)) {
      batch.push_back(l);
    } else {
      k_labels.push_back(l);
    }
  }
  for (int l : b.labels) {
    if (!has(a.labels, l)) n_labels.push_back(l);
  }
  auto sizes_of = [](const Named& x, const Labels& ls) {
    Shape s;
    for (int l : ls) s.push_back(x.t.size(position(x.labels, l)));
    return s;
  };
  auto product = [](const Shape& s) {
    int64_t p = 1;
    for (int64_t v : s) p *= v;
    return p;
  };
  auto order_of = [](const Named& x, std::initializer_list<const Labels*> groups) {
    Shape order;
    for (const Labels* g : groups) {
      for (int l : *g) order.push_back(position(x.labels, l));
    }
    return order;
  };
  const Shape a_batch = sizes_of(a, batch), b_batch = sizes_of(b, batch);
  const Shape m_sizes = sizes_of(a, m_labels), n_sizes = sizes_of(b, n_labels);
  const int64_t m = product(m_sizes), n = product(n_sizes), k = product(sizes_of(a, k_labels));
  Shape a_shape = a_batch, b_shape = b_batch;
  a_shape.push_back(m);
  a_shape.push_back(k);
  b_shape.push_back(k);
  b_shape.push_back(n);
  const Tensor lhs = a.t.permute(order_of(a, {&batch, &m_labels, &k_labels})).reshape(a_shape);
  const Tensor rhs = b.t.permute(order_of(b, {&batch, &k_labels, &n_labels})).reshape(b_shape);
  const Tensor product_mn = matmul(lhs, rhs);  // batch dims broadcast (1 against n)
  Shape out_sizes;
  for (size_t i = 0; i < batch.size(); ++i)
    out_sizes.push_back(product_mn.size(static_cast<int64_t>(i)));
  for (int64_t size : m_sizes) out_sizes.push_back(size);
  for (int64_t size : n_sizes) out_sizes.push_back(size);
  Labels out_labels = batch;
  out_labels.insert(out_labels.end(), m_labels.begin(), m_labels.end());
  out_labels.insert(out_labels.end(), n_labels.begin(), n_labels.end());
  return {product_mn.reshape(out_sizes), out_labels};
}

}  // namespace

Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands) {
  const char* name = "einsum";
  WICK_CHECK(!operands.empty(), ValueError, name, "takes at least one operand (equation \"",
             equation, "\")");
  for (const Tensor& t : operands) detail::check_defined(name, {&t});
  for (const Tensor& t : operands) {
    WICK_CHECK(t.device() == operands[0].device(), DeviceError, name,
               "operands on different devices: ", describe(operands[0]), " and ", describe(t));
    WICK_CHECK(t.dtype() == operands[0].dtype(), DtypeError, name,
               "operands of different dtypes: ", describe(operands[0]), " and ", describe(t));
  }
  // 1. Parse.
  const size_t arrow = equation.find("->");
  const std::string lhs = equation.substr(0, arrow);
  std::vector<Term> terms;
  for (size_t begin = 0;;) {
    const size_t comma = lhs.find(',', begin);
    terms.push_back(parse_term(equation, lhs.substr(begin, comma - begin)));
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  if (terms.size() != operands.size()) {
    fail(equation, "names " + std::to_string(terms.size()) + " operands, but " +
                       std::to_string(operands.size()) + " were given");
  }
  // The "..." dims of each operand, right-aligned: label kLetters + e for the e-th of the
  // widest operand's.
  int64_t ellipsis_dims = 0;
  std::vector<Named> named;
  std::array<int, kLetters> counts{};
  for (size_t i = 0; i < terms.size(); ++i) {
    const Term& term = terms[i];
    const Tensor& t = operands[i];
    const int64_t letters = static_cast<int64_t>(term.labels.size()) - (term.ellipsis ? 1 : 0);
    if (term.ellipsis ? t.dim() < letters : t.dim() != letters) {
      fail(equation, "operand " + std::to_string(i) + " has " + std::to_string(letters) +
                         " subscripts" + (term.ellipsis ? " and \"...\"" : "") + " for " +
                         describe(t));
    }
    ellipsis_dims = std::max(ellipsis_dims, term.ellipsis ? t.dim() - letters : 0);
  }
  for (size_t i = 0; i < terms.size(); ++i) {
    const Term& term = terms[i];
    Named x{operands[i], {}};
    const int64_t letters = static_cast<int64_t>(term.labels.size()) - (term.ellipsis ? 1 : 0);
    const int64_t mine = term.ellipsis ? x.t.dim() - letters : 0;
    for (int label : term.labels) {
      if (label == kEllipsis) {
        for (int64_t e = ellipsis_dims - mine; e < ellipsis_dims; ++e) {
          x.labels.push_back(kLetters + static_cast<int>(e));
        }
      } else {
        x.labels.push_back(label);
        ++counts[static_cast<size_t>(label)];
      }
    }
    named.push_back(x);
  }
  // The output's labels. "..." dims that an explicit output leaves out are summed, as PyTorch.
  Labels output;
  if (arrow == std::string::npos) {
    // Implicit: the "..." dims, then each letter that appears once, in label order.
    for (int64_t e = 0; e < ellipsis_dims; ++e) output.push_back(kLetters + static_cast<int>(e));
    for (int l = 0; l < kLetters; ++l) {
      if (counts[static_cast<size_t>(l)] == 1) output.push_back(l);
    }
  } else {
    const Term out = parse_term(equation, equation.substr(arrow + 2));
    for (int label : out.labels) {
      if (label == kEllipsis) {
        for (int64_t e = 0; e < ellipsis_dims; ++e)
          output.push_back(kLetters + static_cast<int>(e));
        continue;
      }
      if (counts[static_cast<size_t>(label)] == 0) {
        fail(equation, "the output names a subscript that no operand has");
      }
      if (has(output, label)) fail(equation, "the output names a subscript twice");
      output.push_back(label);
    }
  }
  // Every label's size: equal, or 1 (broadcast) against n.
  std::array<int64_t, kLetters + Shape::kMaxDims> size_of;
  size_of.fill(-1);
  for (size_t i = 0; i < named.size(); ++i) {
    const Named& x = named[i];
    for (size_t d = 0; d < x.labels.size(); ++d) {
      int64_t& s = size_of[static_cast<size_t>(x.labels[d])];
      const int64_t here = x.t.size(static_cast<int64_t>(d));
      if (s == -1 || s == 1) {
        if (s == -1 || here != 1) s = here;
      } else if (here != 1 && here != s) {
        std::string shapes;
        for (const Tensor& t : operands) shapes += (shapes.empty() ? "" : ", ") + describe(t);
        fail(equation, "subscript " + subscript(x.labels[d]) + " has size " + std::to_string(here) +
                           " in operand " + std::to_string(i) +
                           ", which does not broadcast with size " + std::to_string(s) +
                           " (operands " + shapes + ")");
      }
    }
  }
  // 2. Diagonals, then sums over labels that only this operand has and the output lacks.
  for (size_t i = 0; i < named.size(); ++i) {
    named[i] = take_diagonals(named[i], equation);
    named[i] = sum_labels(named[i], [&](int l) {
      if (has(output, l)) return false;
      for (size_t j = 0; j < named.size(); ++j) {
        if (j != i && has(named[j].labels, l)) return false;
      }
      return true;
    });
  }
  // 3. Contractions, left to right.
  Named result = named[0];
  for (size_t i = 1; i < named.size(); ++i) {
    Labels keep = output;
    for (size_t j = i + 1; j < named.size(); ++j) {
      keep.insert(keep.end(), named[j].labels.begin(), named[j].labels.end());
    }
    result = contract(result, named[i], keep);
  }
  // 4. What the output lacks is summed; the rest goes to the output's order (for one operand,
  // a view of it where nothing was summed or picked, as PyTorch's).
  result = sum_labels(result, [&](int l) { return !has(output, l); });
  Shape order;
  for (int l : output) order.push_back(position(result.labels, l));
  return result.t.permute(order);
}

}  // namespace wick
