// node.cpp: Node's destructor, which frees a graph of any depth without recursing.
// A node owns the nodes before it (its edges, and the grad_fn of each input it saved), so the
// default destructor freed a chain of n nodes n calls deep: `loss = loss + f(w)` kept for 300,000
// steps overflowed an 8 MiB stack when the graph went out of scope (PyTorch frees its nodes
// iteratively too). Here the outermost ~Node on a thread moves what it owns onto a thread-local
// list and releases the list's entries one at a time; a ~Node run from inside that loop only
// adds to the list. Tested by tests/test_autograd_edges.cpp ("a deep graph is freed").
#include <utility>
#include <vector>

#include "node.hpp"

namespace wick {
namespace {

// Set when this thread's list has been destroyed: thread-locals die before static objects, so
// a graph held by a global Tensor is freed after it (a review found that use-after-free). Then
// the outermost ~Node uses a list of its own, which the ~Node calls inside it find through
// t_fallback.
thread_local bool t_graveyard_destroyed = false;

struct Graveyard {
  std::vector<std::shared_ptr<Node>> nodes;
  std::vector<Tensor> tensors;
  bool draining = false;
  bool thread_owned = false;
  ~Graveyard() {
    if (thread_owned) t_graveyard_destroyed = true;
  }
};
thread_local Graveyard tl_graveyard{{}, {}, false, true};
thread_local Graveyard* t_fallback = nullptr;

// Moves `from` onto the list; where the list cannot grow, `from` keeps it and frees it the
// recursive way (a destructor must not throw).
template <typename T>
void bury(std::vector<T>& list, T& from) {
  try {
    list.push_back(std::move(from));
  } catch (...) {
  }
}

}  // namespace

Node::~Node() {
  Graveyard* list = t_graveyard_destroyed ? t_fallback : &tl_graveyard;
  Graveyard own;  // used only once the thread's list is gone
  if (list == nullptr) {
    list = &own;
    t_fallback = &own;
  }
  Graveyard& g = *list;
  for (Edge& e : edges) {
    if (e.node) bury(g.nodes, e.node);
  }
  for (Edge& e : list_edges) {
    if (e.node) bury(g.nodes, e.node);
  }
  for (SavedTensor& s : inputs) {
    if (s.data.defined()) bury(g.tensors, s.data);
  }
  if (pending_grad.defined()) bury(g.tensors, pending_grad);
  if (g.draining) return;
  g.draining = true;
  while (!g.nodes.empty() || !g.tensors.empty()) {
    // Released one at a time: a node freed here buries its own inputs instead of recursing.
    if (!g.nodes.empty()) {
      std::shared_ptr<Node> last = std::move(g.nodes.back());
      g.nodes.pop_back();
    } else {
      Tensor last = std::move(g.tensors.back());
      g.tensors.pop_back();
    }
  }
  g.draining = false;
  if (t_fallback == &own) t_fallback = nullptr;
}

}  // namespace wick
