// node.hpp: a recorded op on the tape (autograd internals, not installed). A Node keeps what
// its backward rule needs: the op's attributes, the inputs and output it saved (detached, so
// no reference cycle through the output's grad_fn), their version counts at save time, and
// one edge per input: the node that made that input, or the leaf to accumulate into.
#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <vector>

#include "wick/autograd.hpp"
#include "wick/dispatch.hpp"

namespace wick {

struct Edge {
  std::shared_ptr<Node> node;      // the input's grad_fn, or null for a leaf / no grad
  std::weak_ptr<TensorImpl> leaf;  // the leaf to accumulate into
  bool needed = false;             // does this input require grad at all?
};

struct SavedTensor {
  Tensor data;  // inputs: the tensor itself; outputs: a detached handle (see save_output)
  uint32_t version = 0;
  bool saved = false;
};

// What a backward rule reads and returns.
struct InputMeta {
  Shape sizes;
  Dtype dtype;
  Device device;
};

class Node {
 public:
  Node() = default;
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  ~Node();  // iterative: a graph of any depth is freed without deep recursion (node.cpp)

  OpId op;
  int num_inputs = 0;
  std::array<InputMeta, 3> input_meta;
  std::array<SavedTensor, 3> inputs;
  SavedTensor output;
  SavedTensor indices;  // max/min over a dim
  // Attributes copied from the OpCall.
  Scalar scalar_a, scalar_b;
  bool has_a = false, has_b = false;
  int64_t dim = 0;
  bool keepdim = false;
  bool over_all = false;
  Shape ints;
  std::array<Edge, 3> edges;
  // A Composite op over a list of tensors (cat) keeps one entry per tensor here instead, and
  // saves no input: its rule reads sizes only.
  std::vector<InputMeta> list_meta;
  std::vector<Edge> list_edges;
  std::weak_ptr<TensorImpl> output_impl;  // for retain_grad() on non-leaf outputs
  bool released = false;                  // saved tensors freed by a backward without retain_graph
  // Scratch for one backward pass (engine.cpp): the pass running through this node now (0:
  // none; claimed atomically, so that a second thread's pass through the same node is refused,
  // not mixed in), and the gradient accumulated for its output so far.
  std::atomic<uint64_t> pass_owner{0};
  Tensor pending_grad;

  const Edge& edge(int i) const { return list_edges.empty() ? edges[i] : list_edges[i]; }
  const InputMeta& meta(int i) const { return list_meta.empty() ? input_meta[i] : list_meta[i]; }

  // The saved tensor, after checking that no in-place op changed it since it was saved.
  const Tensor& input(int i) const;
  // The saved input for its sizes and strides only: no version check, since an in-place write
  // changes its values, not its layout (PyTorch saves an operand's strides apart from it).
  const Tensor& input_layout(int i) const;
  const Tensor& result() const;
  const Tensor& result_indices() const;
};

// Which saved tensors an op's rule reads, and the rule itself: the gradients of the inputs
// given the gradient of the output (undefined where the input needs none).
struct BackwardRule {
  bool needs_inputs = false;
  bool needs_output = false;
  std::array<Tensor, 3> (*fn)(const Node& node, const Tensor& grad) = nullptr;
  // Instead of fn, for ops over a list of tensors: one gradient per listed input.
  std::vector<Tensor> (*list_fn)(const Node& node, const Tensor& grad) = nullptr;
  // With needs_inputs: which inputs to save (bit i: input i). index_select saves its index, not
  // the table it reads from, so an optimizer step on an embedding between the forward and the
  // backward is no version error (as in PyTorch).
  unsigned saved_inputs = 0x7;
  // For view ops (slice, select): adds grad in place into the part of input 0's full gradient
  // that the view covers. The engine calls it instead of fn once that gradient exists and no one
  // else holds it, so the 50 selects of an RNN's time steps cost 50 slices, not 50 zero-filled
  // copies of the whole sequence added one by one.
  void (*add_into)(const Node& node, const Tensor& grad, Tensor& input_grad) = nullptr;
};
const BackwardRule& backward_rule(OpId op);
// rules_scatter.cpp: gather, scatter_add and scatter_reduce.
const BackwardRule& scatter_backward_rule(OpId op);
// rules_unary.cpp: the elementwise unary ops, sigmoid_backward and tanh_backward; null for the
// others.
const BackwardRule* unary_backward_rule(OpId op);

// The gradient summed down to `sizes` (undoes broadcasting).
Tensor sum_to(const Tensor& grad, const Shape& sizes);

}  // namespace wick
