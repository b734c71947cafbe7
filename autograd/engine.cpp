// engine.cpp: the tape. record() turns each differentiable op on tensors that require grad
// into a Node; backward() walks the graph from the root in reverse topological order,
// accumulating gradients per node and into leaves' .grad(). Gradients are computed with grad
// mode off (no double backward), cast to each input's dtype and device.
#include <algorithm>
#include <array>
#include <atomic>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "node.hpp"
#include "wick/fork_guard.hpp"
#include "wick/ops.hpp"

namespace wick {
namespace {

// Inputs are saved as they are: the graph only points backwards, so holding an input cannot
// make a cycle. Outputs are saved detached (a new handle on the same storage), because the
// output's own autograd slot points at this node.
SavedTensor save_input(const Tensor& t) { return SavedTensor{t, t.storage()->version(), true}; }
SavedTensor save_output(const Tensor& t) {
  return SavedTensor{t.detach(), t.storage()->version(), true};
}

const Tensor& check_saved(const SavedTensor& s, OpId op, bool released, bool values = true) {
  // A rule that reads a tensor its BackwardRule does not save is a bug in wick, not in the
  // caller's graph: say so rather than blame a second backward.
  WICK_CHECK(released || s.saved, AutogradError, "backward", "internal error: the rule of ",
             op_name(op), " read a tensor its BackwardRule does not save");
  if (released) {
    detail::fail<AutogradError>(
        "backward",
        "trying to backward through the graph a second time (or directly access saved tensors "
        "after they have already been freed) at op ",
        op_name(op), "; pass retain_graph=true to the first backward() if you need it twice");
  }
  if (values && s.data.storage()->version() != s.version) {
    detail::fail<AutogradError>(
        "backward", "one of the tensors needed for gradient computation has been modified by an ",
        "in-place operation: ", describe(s.data), " saved by ", op_name(op), " is at version ",
        s.data.storage()->version(), "; expected version ", s.version);
  }
  return s.data;
}

// The nodes one backward pass has claimed, released when the pass ends or throws.
struct PassClaims {
  std::vector<Node*> nodes;
  PassClaims() = default;
  PassClaims(const PassClaims&) = delete;
  PassClaims& operator=(const PassClaims&) = delete;
  ~PassClaims() {
    for (Node* node : nodes) {
      node->pending_grad = Tensor();  // a pass that threw leaves no gradient behind
      node->pass_owner.store(0, std::memory_order_release);
    }
  }
};

// ---- grad-ready hooks (autograd::register_grad_ready_hook) ----
struct ReadyHook {
  uint64_t handle;
  std::weak_ptr<TensorImpl> leaf;
  autograd::GradReadyHook fn;
};
struct ReadyHookRegistry {
  std::mutex mutex;
  uint64_t next_handle = 1;
  std::unordered_map<const TensorImpl*, std::vector<ReadyHook>> by_leaf;
  std::atomic<size_t> count{0};  // read without the lock: backward's fast path
};
// Never destroyed: a thread may run backward while the program exits (a review crashed a
// function-local registry's destroyed map that way), and its lock is guarded across fork.
ReadyHookRegistry& ready_hooks() {
  static ReadyHookRegistry* registry = [] {
    auto* made = new ReadyHookRegistry;
    detail::guard_across_fork(made->mutex, detail::ForkRank::kReadyHooks);
    return made;
  }();
  return *registry;
}
// Made when the library loads, before any thread: a fork during the first call's
// initialisation would leave the child waiting on its guard (as the allocator's cache).
[[maybe_unused]] ReadyHookRegistry& g_ready_hooks_at_load = ready_hooks();

bool has_ready_hook(const TensorImpl* leaf) {
  ReadyHookRegistry& r = ready_hooks();
  if (r.count.load(std::memory_order_relaxed) == 0) return false;
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.by_leaf.count(leaf) != 0;
}

void fire_ready_hooks(const std::shared_ptr<TensorImpl>& leaf) {
  std::vector<autograd::GradReadyHook> fns;
  {
    ReadyHookRegistry& r = ready_hooks();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.by_leaf.find(leaf.get());
    if (it == r.by_leaf.end()) return;
    for (const ReadyHook& h : it->second) {
      if (h.leaf.lock() == leaf) fns.push_back(h.fn);  // not a reused address
    }
  }
  const Tensor t(leaf);
  for (const auto& fn : fns) fn(t);
}

// Per backward pass: the edges still to run into each hooked leaf, and whether it got any.
struct LeafCountdown {
  int edges_left = 0;
  bool received = false;
};

class Engine final : public AutogradHooks {
 public:
  // The gradient stripes are made with the engine, when the library loads (before any thread
  // could fork during their first use).
  Engine() { (void)leaf_mutex(nullptr); }

  void record(const OpCall& call) override {
    if (!op_differentiable(call.op)) return;
    const BackwardRule& rule = backward_rule(call.op);
    const bool listed = !call.list.empty();
    WICK_CHECK(listed ? rule.list_fn != nullptr && !rule.needs_inputs : rule.fn != nullptr,
               AutogradError, std::string(op_name(call.op)).c_str(),
               "is marked differentiable but has no backward rule for its inputs");
    auto node = std::make_shared<Node>();
    node->op = call.op;
    node->num_inputs = listed ? static_cast<int>(call.list.size()) : call.num_inputs;
    if (listed) {
      node->list_meta.resize(call.list.size());
      node->list_edges.resize(call.list.size());
    }
    bool any = false;
    for (int i = 0; i < node->num_inputs; ++i) {
      const Tensor& in = listed ? call.list[i] : call.in(i);
      (listed ? node->list_meta[i] : node->input_meta[i]) =
          InputMeta{in.sizes(), in.dtype(), in.device()};
      if (rule.needs_inputs && ((rule.saved_inputs >> i) & 1u) != 0)
        node->inputs[i] = save_input(in);
      Edge& e = listed ? node->list_edges[i] : node->edges[i];
      e.needed = in.requires_grad();
      any = any || e.needed;
      if (e.needed) {
        if (in.grad_fn()) {
          e.node = in.grad_fn();
        } else {
          e.leaf = in.impl_ptr();
        }
      }
    }
    if (!any) return;
    Tensor& out = call.out(0);
    if (rule.needs_output) node->output = save_output(out);
    if (call.num_outputs > 1 && call.outputs[1]->defined())
      node->indices = save_output(call.out(1));
    node->scalar_a = call.scalar_a;
    node->scalar_b = call.scalar_b;
    node->has_a = call.has_a;
    node->has_b = call.has_b;
    node->dim = call.dim;
    node->keepdim = call.keepdim;
    node->over_all = call.over_all;
    node->ints = call.ints;
    node->output_impl = out.impl_ptr();
    TensorImpl& impl = out.impl();
    if (!impl.autograd) impl.autograd = std::make_unique<AutogradMeta>();
    impl.autograd->grad_fn = std::move(node);
    impl.requires_grad = true;
  }

  void check_inplace(const Tensor& target, const char* op, bool recorded) override {
    if (target.is_leaf()) {
      detail::fail<AutogradError>(op, "a leaf tensor that requires grad is being used in an ",
                                  "in-place operation: ", describe(target),
                                  "; wrap the update in wick::NoGradGuard");
    }
    if (!recorded) {
      detail::fail<AutogradError>(op, "is not differentiable in place in wick: ", describe(target),
                                  " is part of a graph; use the out-of-place op");
    }
    // PyTorch rewrites the history of every view sharing the storage (CopySlices); wick keeps
    // one history per tensor, so a write that views would see behind their history is refused.
    if (target.storage()->has_grad_views()) {
      detail::fail<AutogradError>(
          op, "in-place operations on a view that is part of a graph, or on a tensor whose ",
          "views are, are not supported by wick's autograd: ", describe(target),
          "; clone() it first or use the out-of-place op");
    }
  }

  Tensor save_before_inplace(OpId op, const Tensor& target) override {
    if (!op_differentiable(op) || !backward_rule(op).needs_inputs) return Tensor();
    return target.detach().clone();  // detached: the copy is not recorded
  }

  void record_inplace(const OpCall& call, const Tensor& before) override {
    const Tensor& target = call.out(0);
    // The target's old value (a copy, or a handle for its sizes and dtype when the backward
    // reads no input), carrying the target's history until now.
    Tensor prior = before.defined() ? before : target.detach();
    if (target.requires_grad()) {
      TensorImpl& impl = prior.impl();
      impl.autograd = std::make_unique<AutogradMeta>();
      impl.autograd->grad_fn = target.grad_fn();
      impl.requires_grad = true;
    }
    OpCall inputs_before = call;
    for (int i = 0; i < call.num_inputs; ++i) {
      if (call.inputs[i]->is_same(target)) inputs_before.inputs[i] = &prior;
    }
    // Every recorded in-place op takes the target as an input (copy_ too, with a zero
    // gradient), so a target in the graph always gets a new node here.
    record(inputs_before);
  }

  std::string grad_fn_name(const Tensor& t) override { return wick::grad_fn_name(t); }

  void backward(const Tensor& root, const Tensor& gradient, bool retain_graph) override {
    WICK_CHECK(root.requires_grad(), AutogradError, "backward",
               "the tensor does not require grad and has no grad_fn: ", describe(root));
    Tensor seed = gradient;
    if (!seed.defined()) {
      WICK_CHECK(root.numel() == 1, AutogradError, "backward",
                 "grad can be implicitly created only for scalar outputs, got ", describe(root),
                 "; pass a gradient tensor");
      seed = ones_like(root);
    } else {
      WICK_CHECK(seed.sizes() == root.sizes(), ShapeError, "backward", "gradient ", describe(seed),
                 " does not match the output ", describe(root));
      WICK_CHECK(seed.device() == root.device(), DeviceError, "backward", "gradient ",
                 describe(seed), " is on another device than the output ", describe(root));
      // As PyTorch's validate_outputs: the gradient takes the output's dtype.
      if (seed.dtype() != root.dtype()) seed = seed.to(root.dtype());
    }
    NoGradGuard no_grad;
    if (!root.grad_fn()) {
      accumulate(root.impl_ptr(), seed);
      if (has_ready_hook(root.unsafe_impl())) fire_ready_hooks(root.impl_ptr());
      return;
    }
    // Topological order by DFS (iterative, so deep graphs don't exhaust the stack); reverse
    // postorder puts every node before the nodes it feeds. Each node is claimed for this pass
    // (Node::pass_owner) and collects its incoming gradient in place, so no hash map is needed.
    // A node another thread's pass holds is an AutogradError: PyTorch runs such passes
    // concurrently, but here their gradients would mix in the shared scratch (a review got
    // wrong gradients 2 times in 200 that way).
    static std::atomic<uint64_t> epochs{0};
    const uint64_t epoch = ++epochs;
    PassClaims claims;
    auto first_visit = [&](Node* node) {
      claims.nodes.push_back(node);  // before the claim, so that a claim is always released
      uint64_t owner = 0;
      if (node->pass_owner.compare_exchange_strong(owner, epoch, std::memory_order_acq_rel)) {
        return true;
      }
      claims.nodes.pop_back();
      if (owner == epoch) return false;
      detail::fail<AutogradError>(
          "backward", "another thread's backward is running through the graph of ", describe(root),
          " (", op_name(node->op),
          " node); wick runs one pass per graph at a time: wait for it, or build a graph per "
          "thread");
    };
    std::vector<Node*> order;
    {
      std::vector<std::pair<Node*, int>> stack{{root.grad_fn().get(), 0}};
      first_visit(root.grad_fn().get());
      while (!stack.empty()) {
        auto& [node, next] = stack.back();
        if (next < node->num_inputs) {
          Node* child = node->edge(next++).node.get();
          if (child != nullptr && first_visit(child)) {
            child->pending_grad = Tensor();
            stack.push_back({child, 0});
          }
        } else {
          order.push_back(node);
          stack.pop_back();
        }
      }
      std::reverse(order.begin(), order.end());  // root first
    }
    // Leaves with a grad-ready hook: how many edges of this pass lead into each (counted down
    // as the edges run; at zero the leaf's gradient is final for this pass).
    std::unordered_map<const TensorImpl*, LeafCountdown> countdown;
    if (ready_hooks().count.load(std::memory_order_relaxed) != 0) {
      for (Node* node : order) {
        for (int i = 0; i < node->num_inputs; ++i) {
          const Edge& e = node->edge(i);
          if (!e.needed || e.node) continue;
          if (auto leaf = e.leaf.lock(); leaf && has_ready_hook(leaf.get())) {
            ++countdown[leaf.get()].edges_left;
          }
        }
      }
    }
    root.grad_fn()->pending_grad = seed;
    for (Node* node : order) {
      if (!node->pending_grad.defined()) continue;  // no gradient flowed here
      Tensor grad = std::move(node->pending_grad);
      node->pending_grad = Tensor();
      if (auto out = node->output_impl.lock(); out && out->autograd &&
                                               out->autograd->retains_grad &&
                                               out->autograd->grad_fn.get() == node) {
        // A copy, as PyTorch's retain_grad hook: the incoming tensor may be the caller's seed
        // or shared with another retained gradient. Only the tensor's current node counts: after
        // an in-place op the earlier node has the same output, but its gradient is that of the
        // value before the write (PyTorch moves the hook to the new node).
        Tensor& kept = out->autograd->grad;
        kept = kept.defined() ? kept + grad : grad.clone();
      }
      const BackwardRule& rule = backward_rule(node->op);
      if (rule.add_into != nullptr && add_into_pending(*node, rule, grad)) {
        if (!retain_graph) release(*node);
        continue;
      }
      // record() gave every node of a list_fn op its list, and no other node one.
      const bool listed = rule.list_fn != nullptr;
      std::array<Tensor, 3> fixed_grads;
      std::vector<Tensor> listed_grads;
      if (listed) {
        listed_grads = rule.list_fn(*node, grad);
      } else {
        fixed_grads = rule.fn(*node, grad);
      }
      for (int i = 0; i < node->num_inputs; ++i) {
        const Edge& e = node->edge(i);
        if (!e.needed) continue;
        std::shared_ptr<TensorImpl> leaf = e.node ? nullptr : e.leaf.lock();
        Tensor& input_grad = listed ? listed_grads[i] : fixed_grads[i];
        const bool received = input_grad.defined();
        if (received) {
          // Moved out, so that a gradient nobody else holds can become the leaf's .grad.
          Tensor g = std::move(input_grad);
          const InputMeta& meta = node->meta(i);
          if (g.dtype() != meta.dtype || g.device() != meta.device) {
            g = g.to(meta.device, meta.dtype);
          }
          if (e.node) {
            Tensor& slot = e.node->pending_grad;
            if (!slot.defined()) {
              slot = std::move(g);
            } else if (stealable(slot) && slot.sizes() == g.sizes()) {
              slot.add_(g);  // no one else holds it: summed in place, no new buffer
            } else {
              slot = slot + g;
            }
          } else {
            accumulate(leaf, std::move(g));
          }
        }
        if (leaf && !countdown.empty()) {
          auto it = countdown.find(leaf.get());
          if (it != countdown.end()) {
            it->second.received = it->second.received || received;
            if (--it->second.edges_left == 0 && it->second.received) fire_ready_hooks(leaf);
          }
        }
      }
      if (!retain_graph) release(*node);
    }
    // Leaves whose remaining edges came from nodes no gradient reached: final now.
    for (auto& [impl, c] : countdown) {
      if (c.edges_left > 0 && c.received) {
        // Find the owner through the registry (impl is only a key here).
        std::shared_ptr<TensorImpl> leaf;
        {
          ReadyHookRegistry& r = ready_hooks();
          std::lock_guard<std::mutex> lock(r.mutex);
          auto it = r.by_leaf.find(impl);
          if (it != r.by_leaf.end() && !it->second.empty()) leaf = it->second.front().leaf.lock();
        }
        if (leaf) fire_ready_hooks(leaf);
      }
    }
  }

 private:
  // A view node (slice, select) whose input comes from another node: when that node's pending
  // gradient already exists and is held by no one else, adds grad into its covered part in
  // place and returns true; otherwise false, and the rule runs as usual.
  static bool add_into_pending(const Node& node, const BackwardRule& rule, const Tensor& grad) {
    if (node.num_inputs != 1) return false;
    const Edge& e = node.edge(0);
    if (!e.needed || !e.node) return false;
    Tensor& slot = e.node->pending_grad;
    const InputMeta& meta = node.meta(0);
    if (!slot.defined() || !stealable(slot) || slot.sizes() != meta.sizes ||
        grad.dtype() != meta.dtype || grad.device() != meta.device || slot.dtype() != meta.dtype ||
        slot.device() != meta.device) {
      return false;
    }
    rule.add_into(node, grad, slot);
    return true;
  }

  static void release(Node& node) {
    node.released = true;
    for (SavedTensor& s : node.inputs) s.data = Tensor();
    node.output.data = Tensor();
    node.indices.data = Tensor();
  }

  // True when `value` is the only handle on its buffer and the buffer is exactly its
  // elements, contiguous: then the leaf may keep it as its .grad without a copy, as PyTorch's
  // AccumulateGrad steals a gradient no one else references.
  static bool stealable(const Tensor& value) {
    const Storage& storage = value.storage();
    return value.impl_ptr().use_count() == 1 && storage.use_count() == 1 &&
           !storage->has_grad_views() && value.storage_offset() == 0 && value.is_contiguous() &&
           storage->nbytes() == static_cast<size_t>(value.numel()) * element_size(value.dtype());
  }

  // One of a fixed set of mutexes, picked by the leaf's address: a lock per leaf without a
  // mutex in every tensor.
  // Never destroyed, and guarded across fork, as the hook registry.
  static std::mutex& leaf_mutex(const TensorImpl* leaf) {
    static std::array<std::mutex, 64>* stripes = [] {
      auto* made = new std::array<std::mutex, 64>;
      for (std::mutex& m : *made) detail::guard_across_fork(m, detail::ForkRank::kLeafGrad);
      return made;
    }();
    return (*stripes)[(reinterpret_cast<uintptr_t>(leaf) >> 6) % stripes->size()];
  }

  static void accumulate(const std::shared_ptr<TensorImpl>& leaf, Tensor value) {
    if (!leaf) return;  // the leaf was freed; nobody can read its grad
    Tensor t(leaf);
    if (value.dtype() != t.dtype() || value.device() != t.device()) {
      value = value.to(t.device(), t.dtype());
    }
    if (value.sizes() != t.sizes()) value = sum_to(value, t.sizes());
    // Backward passes on other threads may share this leaf (one model, a graph per thread):
    // the read-modify-write of its .grad is serialised, as PyTorch's AccumulateGrad locks.
    std::lock_guard<std::mutex> lock(leaf_mutex(leaf.get()));
    Tensor& grad = t.mutable_grad();
    if (!grad.defined()) {
      if (stealable(value)) {
        grad = std::move(value);
      } else {
        // Own the buffer: value may alias a tensor the user holds (e.g. the seed gradient),
        // a saved tensor, or another input's gradient.
        grad = value.contiguous().is_same(value) ? value.clone() : value.contiguous();
      }
    } else {
      // A .grad() set by hand must match its leaf (PyTorch checks it on assignment); added to
      // as it was, a [1] gradient would broadcast and a [2, 3] one on a [3] leaf would stay
      // [2, 3].
      WICK_CHECK(
          grad.sizes() == t.sizes() && grad.dtype() == t.dtype() && grad.device() == t.device(),
          AutogradError, "backward", "the .grad() of leaf ", describe(t), " is ", describe(grad),
          "; a gradient must have its tensor's sizes, dtype and device");
      if (grad.is_contiguous()) {
        // In place, as PyTorch's AccumulateGrad without create_graph: a handle the user took
        // with grad() before this backward sees the sum.
        grad.add_(value);
      } else {
        grad = grad + value;
      }
    }
  }
};

Engine g_engine;

}  // namespace

const Tensor& Node::input(int i) const { return check_saved(inputs[i], op, released); }
const Tensor& Node::input_layout(int i) const {
  return check_saved(inputs[i], op, released, false);
}
const Tensor& Node::result() const { return check_saved(output, op, released); }
const Tensor& Node::result_indices() const { return check_saved(indices, op, released); }

std::string grad_fn_name(const Tensor& t) {
  return t.grad_fn() ? std::string(op_name(t.grad_fn()->op)) : std::string();
}

void register_autograd() { set_autograd_hooks(&g_engine); }

uint64_t autograd::register_grad_ready_hook(const Tensor& leaf, GradReadyHook hook) {
  WICK_CHECK(leaf.defined() && leaf.is_leaf() && leaf.requires_grad(), AutogradError,
             "register_grad_ready_hook", "needs a leaf tensor that requires grad, got ",
             leaf.defined() ? describe(leaf) : std::string("an undefined tensor"));
  // An empty function would throw std::bad_function_call from inside a later backward.
  WICK_CHECK(static_cast<bool>(hook), ValueError, "register_grad_ready_hook",
             "got an empty hook function for ", describe(leaf));
  ReadyHookRegistry& r = ready_hooks();
  std::lock_guard<std::mutex> lock(r.mutex);
  const uint64_t handle = r.next_handle++;
  r.by_leaf[leaf.unsafe_impl()].push_back({handle, leaf.impl_ptr(), std::move(hook)});
  r.count.fetch_add(1, std::memory_order_relaxed);
  return handle;
}

void autograd::remove_grad_ready_hook(uint64_t handle) {
  ReadyHookRegistry& r = ready_hooks();
  std::lock_guard<std::mutex> lock(r.mutex);
  for (auto it = r.by_leaf.begin(); it != r.by_leaf.end(); ++it) {
    auto& hooks = it->second;
    for (auto h = hooks.begin(); h != hooks.end(); ++h) {
      if (h->handle != handle) continue;
      hooks.erase(h);
      if (hooks.empty()) r.by_leaf.erase(it);
      r.count.fetch_sub(1, std::memory_order_relaxed);
      return;
    }
  }
}

}  // namespace wick
