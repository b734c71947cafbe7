// survey_cases_models.cpp: the survey's cases of model parts and larger ops: embeddings, gather, a
// classifier's loss, a CNN layer, an LSTM, a Transformer layer, scatter_reduce, ordering, the
// scans, median, einsum and factories (survey_cases.hpp says what a Case is).
#include "survey_cases.hpp"

namespace survey {

void add_model_cases(std::vector<Case>& all) {
  const auto add = [&](Case c) { all.push_back(std::move(c)); };
  // Embedding lookups: 4096 tokens (with repeats) from a [8192, 512] table, as a language
  // model's first layer; the backward sums repeated tokens (wick: in token order, no atomics).
  const auto embedding_case = [&](std::string name, bool backward) {
    add({std::move(name), [backward] {
           const wick::Tensor table = wick::randn({8192, 512});
           const wick::Tensor tokens = (wick::rand({4096}) * 8191.0).to(wick::kInt64);
           const torch::Tensor t_table = torch_copy(table);
           const torch::Tensor t_tokens =
               torch::from_blob(tokens.data_ptr<int64_t>(), {4096}, torch::kInt64).clone();
           const auto run = [backward](const auto& tab, const auto& tok) {
             auto leaf = tab.detach();
             if (backward) leaf.requires_grad_(true);
             auto rows = leaf.index_select(0, tok);
             if (backward) rows.sum().backward();
           };
           return Pair{[=] { run(table, tokens); }, [=] { run(t_table, t_tokens); }};
         }});
  };
  embedding_case("embedding: 4096 rows of [8192, 512] (index_select)", false);
  embedding_case("embedding: 4096 rows of [8192, 512], forward and backward", true);
  // gather: picks along dim of a [rows, cols] table with an index of shape index_shape (values
  // drawn in [0, table.size(dim))); with backward, the gradient is scatter_add into zeros.
  const auto gather_case = [&](std::string name, Dims table_shape, int64_t dim, Dims index_shape,
                               bool backward) {
    add({std::move(name), [=] {
           const wick::Tensor table = wick::randn(table_shape);
           const double top = static_cast<double>(table_shape[static_cast<size_t>(dim)]) - 1.0;
           const wick::Tensor index = (wick::rand(index_shape) * top).to(wick::kInt64);
           const torch::Tensor t_table = torch_copy(table);
           const torch::Tensor t_index =
               torch::from_blob(index.data_ptr<int64_t>(), index_shape, torch::kInt64).clone();
           const auto run = [backward, dim](const auto& tab, const auto& idx) {
             auto leaf = tab.detach();
             if (backward) leaf.requires_grad_(true);
             auto picked = leaf.gather(dim, idx);
             if (backward) picked.sum().backward();
           };
           return Pair{[=] { run(table, index); }, [=] { run(t_table, t_index); }};
         }});
  };
  gather_case("gather: one of 1000 per row of [4096, 1000]", {4096, 1000}, 1, {4096, 1}, false);
  gather_case("gather: one of 1000 per row of [4096, 1000], forward and backward", {4096, 1000}, 1,
              {4096, 1}, true);
  // A classifier's loss over 1000 classes, forward and backward (log_softmax, the target's
  // pick, the mean; the gradient of each).
  add({"cross_entropy of [4096, 1000] logits, forward and backward", [] {
         const wick::Tensor logits = wick::randn({4096, 1000});
         const wick::Tensor classes = (wick::rand({4096}) * 999.0).to(wick::kInt64);
         const torch::Tensor t_logits = torch_copy(logits);
         const torch::Tensor t_classes =
             torch::from_blob(classes.data_ptr<int64_t>(), {4096}, torch::kInt64).clone();
         return Pair{[=] {
                       auto leaf = logits.detach().requires_grad_(true);
                       wick::nn::functional::cross_entropy(leaf, classes).backward();
                     },
                     [=] {
                       auto leaf = t_logits.detach().requires_grad_(true);
                       torch::nn::functional::cross_entropy(leaf, t_classes).backward();
                     }};
       }});
  // A CNN layer: 3x3 convolution (padding 1) of [32, 16, 32, 32] to 32 channels, then a 2x2 max
  // pool; forward, and forward and backward (wick: im2col by index_select and one matmul,
  // nn/conv.cpp; libtorch 1.13: its own CPU convolution).
  for (bool backward : {false, true}) {
    add({std::string("conv2d 3x3 [32, 16, 32, 32] -> 32 channels + max_pool2d 2") +
             (backward ? ", forward and backward" : ""),
         [backward] {
           const wick::Tensor x = wick::randn({32, 16, 32, 32});
           const wick::Tensor w = wick::randn({32, 16, 3, 3}) * 0.1;
           const torch::Tensor t_x = torch_copy(x), t_w = torch_copy(w);
           return Pair{[=] {
                         namespace F = wick::nn::functional;
                         auto leaf = w.detach().requires_grad_(backward);
                         auto y = F::max_pool2d(
                             F::conv2d(x, leaf, wick::nn::Conv2dFuncOptions().padding(1)),
                             wick::nn::MaxPool2dOptions(2));
                         if (backward) y.sum().backward();
                       },
                       [=] {
                         namespace F = torch::nn::functional;
                         auto leaf = t_w.detach().requires_grad_(backward);
                         auto y =
                             F::max_pool2d(F::conv2d(t_x, leaf, F::Conv2dFuncOptions().padding(1)),
                                           F::MaxPool2dFuncOptions(2));
                         if (backward) y.sum().backward();
                       }};
         }});
  }
  // A generator's upsampling layer: transposed 4x4 convolution, stride 2, padding 1, of
  // [32, 32, 16, 16] to 16 channels ([32, 16, 32, 32]); forward, and forward and backward
  // (wick: one matmul into the columns, then col2im by index_add, nn/conv_transpose.cpp;
  // libtorch 1.13: its own CPU kernel).
  for (bool backward : {false, true}) {
    add({std::string("conv_transpose2d 4x4 stride 2 [32, 32, 16, 16] -> 16 channels") +
             (backward ? ", forward and backward" : ""),
         [backward] {
           const wick::Tensor x = wick::randn({32, 32, 16, 16});
           const wick::Tensor w = wick::randn({32, 16, 4, 4}) * 0.1;
           const torch::Tensor t_x = torch_copy(x), t_w = torch_copy(w);
           return Pair{[=] {
                         namespace F = wick::nn::functional;
                         auto leaf = w.detach().requires_grad_(backward);
                         auto y = F::conv_transpose2d(
                             x, leaf, wick::nn::ConvTranspose2dFuncOptions().stride(2).padding(1));
                         if (backward) y.sum().backward();
                       },
                       [=] {
                         namespace F = torch::nn::functional;
                         auto leaf = t_w.detach().requires_grad_(backward);
                         auto y = F::conv_transpose2d(
                             t_x, leaf, F::ConvTranspose2dFuncOptions().stride(2).padding(1));
                         if (backward) y.sum().backward();
                       }};
         }});
  }
  // Bilinear upsampling by 2 of [32, 16, 32, 32]; forward, and forward and backward (wick: two
  // taps of index_select per dim, nn/upsample.cpp; libtorch 1.13: its CPU kernel).
  for (bool backward : {false, true}) {
    add({std::string("interpolate bilinear x2 [32, 16, 32, 32]") +
             (backward ? ", forward and backward" : ""),
         [backward] {
           const wick::Tensor x = wick::randn({32, 16, 32, 32});
           const torch::Tensor t_x = torch_copy(x);
           return Pair{[=] {
                         namespace F = wick::nn::functional;
                         auto leaf = x.detach().requires_grad_(backward);
                         auto y = F::interpolate(
                             leaf, wick::nn::InterpolateFuncOptions().scale_factor({2}).mode(
                                       wick::nn::kBilinear));
                         if (backward) y.sum().backward();
                       },
                       [=] {
                         namespace F = torch::nn::functional;
                         auto leaf = t_x.detach().requires_grad_(backward);
                         auto y = F::interpolate(leaf, F::InterpolateFuncOptions()
                                                           .scale_factor(std::vector<double>{2, 2})
                                                           .mode(torch::kBilinear)
                                                           .align_corners(false));
                         if (backward) y.sum().backward();
                       }};
         }});
  }
  // A recurrent layer: LSTM 256 -> 256 over 50 steps of a batch of 32, forward, and forward and
  // backward through time (wick: one input matmul per layer, then per step a [32, 256] x
  // [256, 1024] matmul and the gate ops, nn/rnn.cpp; libtorch 1.13: its CPU LSTM).
  for (bool backward : {false, true}) {
    add({std::string("LSTM 256 -> 256, 50 steps, batch 32") +
             (backward ? ", forward and backward" : ""),
         [backward] {
           wick::nn::LSTM lstm(256, 256);
           torch::nn::LSTM t_lstm(256, 256);
           {
             torch::NoGradGuard no_grad;
             const auto ours = lstm->parameters();
             const auto theirs = t_lstm->parameters();
             for (size_t i = 0; i < ours.size(); ++i) theirs[i].copy_(torch_copy(ours[i]));
           }
           const wick::Tensor x = wick::randn({50, 32, 256});
           const torch::Tensor t_x = torch_copy(x);
           return Pair{[=] {
                         std::optional<wick::NoGradGuard> no_grad;
                         if (!backward) no_grad.emplace();
                         auto out = std::get<0>(lstm(x));
                         if (backward) out.sum().backward();
                       },
                       [=]() mutable {
                         torch::AutoGradMode mode(backward);
                         auto out = std::get<0>(t_lstm->forward(t_x));
                         if (backward) out.sum().backward();
                       }};
         }});
  }
  // A Transformer encoder layer: d_model 256, 8 heads, feed-forward 1024, over 128 positions of
  // a batch of 16, post-norm, no dropout; forward, and forward and backward (wick: composed of
  // linear, batched matmul, softmax and layer_norm, nn/attention.cpp; libtorch 1.13: its
  // TransformerEncoderLayer's general path, the same decomposition).
  for (bool backward : {false, true}) {
    add({std::string("TransformerEncoderLayer 256, 8 heads, [128, 16]") +
             (backward ? ", forward and backward" : ""),
         [backward] {
           wick::nn::TransformerEncoderLayer layer(
               wick::nn::TransformerEncoderLayerOptions(256, 8).dim_feedforward(1024).dropout(0.0));
           torch::nn::TransformerEncoderLayer t_layer(
               torch::nn::TransformerEncoderLayerOptions(256, 8).dim_feedforward(1024).dropout(
                   0.0));
           {
             torch::NoGradGuard no_grad;
             auto theirs = t_layer->named_parameters();
             for (const auto& [name, p] : layer->named_parameters()) {
               theirs[name].copy_(torch_copy(p));
             }
           }
           const wick::Tensor x = wick::randn({128, 16, 256});
           const torch::Tensor t_x = torch_copy(x);
           return Pair{[=] {
                         std::optional<wick::NoGradGuard> no_grad;
                         if (!backward) no_grad.emplace();
                         auto out = layer(x);
                         if (backward) out.sum().backward();
                       },
                       [=]() mutable {
                         torch::AutoGradMode mode(backward);
                         auto out = t_layer->forward(t_x);
                         if (backward) out.sum().backward();
                       }};
         }});
  }
  gather_case("gather along dim 0 of [1024, 1024], full index", kM, 0, kM, false);
  gather_case("gather along dim 0 of [1024, 1024], forward and backward (scatter_add)", kM, 0, kM,
              true);
  // scatter_reduce into [1024, 1024] along dim 0 with a full index (about one value per
  // target): wick's column kernel, in index order, against torch 1.13's CPU kernel.
  const auto scatter_case = [&](std::string name, const char* reduce) {
    add({std::move(name), [=] {
           const wick::Tensor self = wick::randn(kM), src = wick::randn(kM);
           const wick::Tensor index = (wick::rand(kM) * 1023.0).to(wick::kInt64);
           const torch::Tensor t_self = torch_copy(self), t_src = torch_copy(src);
           const torch::Tensor t_index =
               torch::from_blob(index.data_ptr<int64_t>(), kM, torch::kInt64).clone();
           return Pair{[=] { (void)self.scatter_reduce(0, index, src, reduce); },
                       [=] { (void)t_self.scatter_reduce(0, t_index, t_src, reduce); }};
         }});
  };
  scatter_case("scatter_reduce amax along dim 0 of [1024, 1024], full index", "amax");
  scatter_case("scatter_reduce mean along dim 0 of [1024, 1024], full index", "mean");
  // Ordering: sort rows, sort one long line, and the top-k of a classifier's and a language
  // model's outputs (torch 1.13's CPU sort and topk; wick: kernels/cpu/sort.cpp).
  const auto sort_case = [&](std::string name, Dims shape, int64_t k) {
    add({std::move(name), [=] {
           const wick::Tensor x = wick::randn(shape);
           const torch::Tensor t_x = torch_copy(x);
           if (k == 0) {
             return Pair{[=] { (void)x.sort(-1); }, [=] { (void)t_x.sort(-1); }};
           }
           return Pair{[=] { (void)x.topk(k, -1); }, [=] { (void)t_x.topk(k, -1); }};
         }});
  };
  // cumsum along the rows and along the columns of a matrix.
  for (int64_t dim : {1, 0}) {
    add({"cumsum of [1024, 1024] along dim " + std::to_string(dim), [dim] {
           const wick::Tensor x = wick::randn({1024, 1024});
           const torch::Tensor t_x = torch_copy(x);
           return Pair{[=] { (void)x.cumsum(dim); }, [=] { (void)t_x.cumsum(dim); }};
         }});
  }
  // cummax and logcumsumexp along the rows and along the columns.
  for (int64_t dim : {1, 0}) {
    add({"cummax of [1024, 1024] along dim " + std::to_string(dim), [dim] {
           const wick::Tensor x = wick::randn({1024, 1024});
           const torch::Tensor t_x = torch_copy(x);
           return Pair{[=] { (void)x.cummax(dim); }, [=] { (void)t_x.cummax(dim); }};
         }});
    add({"logcumsumexp of [1024, 1024] along dim " + std::to_string(dim), [dim] {
           const wick::Tensor x = wick::randn({1024, 1024});
           const torch::Tensor t_x = torch_copy(x);
           return Pair{[=] { (void)x.logcumsumexp(dim); }, [=] { (void)t_x.logcumsumexp(dim); }};
         }});
  }
  // cumprod and prod along the rows and the columns; values near 1 so nothing overflows.
  for (int64_t dim : {1, 0}) {
    add({"cumprod of [1024, 1024] along dim " + std::to_string(dim), [dim] {
           const wick::Tensor x = wick::rand({1024, 1024}) * 0.01 + 0.995;
           const torch::Tensor t_x = torch_copy(x);
           return Pair{[=] { (void)x.cumprod(dim); }, [=] { (void)t_x.cumprod(dim); }};
         }});
    add({"prod of [4096, 1024] along dim " + std::to_string(dim), [dim] {
           const wick::Tensor x = wick::rand({4096, 1024}) * 0.01 + 0.995;
           const torch::Tensor t_x = torch_copy(x);
           return Pair{[=] { (void)x.prod(dim); }, [=] { (void)t_x.prod(dim); }};
         }});
  }
  add({"prod of 2^22 floats", [] {
         const wick::Tensor x = wick::rand({1 << 22}) * 0.001 + 0.9995;
         const torch::Tensor t_x = torch_copy(x);
         return Pair{[=] { (void)x.prod(); }, [=] { (void)t_x.prod(); }};
       }});
  // median and kthvalue of each row (sort, topk and a gather in wick; quickselect in PyTorch).
  add({"median of each row of [1024, 1001]", [] {
         const wick::Tensor x = wick::randn({1024, 1001});
         const torch::Tensor t_x = torch_copy(x);
         return Pair{[=] { (void)x.median(1); }, [=] { (void)t_x.median(1); }};
       }});
  add({"kthvalue 10 of each row of [1024, 1001]", [] {
         const wick::Tensor x = wick::randn({1024, 1001});
         const torch::Tensor t_x = torch_copy(x);
         return Pair{[=] { (void)x.kthvalue(10, 1); }, [=] { (void)t_x.kthvalue(10, 1); }};
       }});
  // einsum: attention scores, and a three-operand contraction.
  add({"einsum bhqd,bhkd->bhqk [8, 8, 128, 64]", [] {
         const wick::Tensor q = wick::randn({8, 8, 128, 64}), k = wick::randn({8, 8, 128, 64});
         const torch::Tensor t_q = torch_copy(q), t_k = torch_copy(k);
         return Pair{[=] {
                       (void)wick::einsum("bhqd,bhkd->bhqk", {q, k});
                     },
                     [=] {
                       (void)torch::einsum("bhqd,bhkd->bhqk", {t_q, t_k});
                     }};
       }});
  add({"einsum ij,jk,kl->il [256, 512, 512, 256]", [] {
         const wick::Tensor a = wick::randn({256, 512}), b = wick::randn({512, 512}),
                            c = wick::randn({512, 256});
         const torch::Tensor t_a = torch_copy(a), t_b = torch_copy(b), t_c = torch_copy(c);
         return Pair{[=] {
                       (void)wick::einsum("ij,jk,kl->il", {a, b, c});
                     },
                     [=] {
                       (void)torch::einsum("ij,jk,kl->il", {t_a, t_b, t_c});
                     }};
       }});
  sort_case("sort each row of [1024, 1024]", {1024, 1024}, 0);
  sort_case("sort 2^20 floats (one line)", {1 << 20}, 0);
  sort_case("topk 5 of each row of [4096, 1000]", {4096, 1000}, 5);
  sort_case("topk 50 of each row of [64, 50257]", {64, 50257}, 50);
  // Factories.
  add({"randn(M)", [] {
         return Pair{[] {
                       (void)wick::randn({1024, 1024});
                     },
                     [] {
                       (void)torch::randn({1024, 1024});
                     }};
       }});
  add({"rand(M)", [] {
         return Pair{[] {
                       (void)wick::rand({1024, 1024});
                     },
                     [] {
                       (void)torch::rand({1024, 1024});
                     }};
       }});
  add({"zeros(M)", [] {
         return Pair{[] {
                       (void)wick::zeros({1024, 1024});
                     },
                     [] {
                       (void)torch::zeros({1024, 1024});
                     }};
       }});
  add({"full(M, 1.5)", [] {
         return Pair{[] {
                       (void)wick::full({1024, 1024}, 1.5);
                     },
                     [] {
                       (void)torch::full({1024, 1024}, 1.5);
                     }};
       }});
  add({"arange(2^20)", [] {
         return Pair{[] { (void)wick::arange(1 << 20); }, [] { (void)torch::arange(1 << 20); }};
       }});
}

}  // namespace survey
