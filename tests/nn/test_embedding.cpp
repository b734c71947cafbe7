// test_embedding.cpp: Embedding against torch.nn.functional.embedding (python3-torch 1.13,
// float64; embedding_golden.inc from make_embedding_golden.py): output, the table after
// max_norm's in-place renormalisation, and the table's gradient, with repeated indices,
// padding_idx and norm types 1, 2, 3 and inf; float32 too; the module (init, padding row,
// from_pretrained, printing, save/load); errors.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>
#include <wick/wick.hpp>

#include "golden_check.hpp"

namespace nn = wick::nn;
using wick::Tensor;

namespace {

struct EmbeddingCase {
  std::string name;
  int64_t num, dim;
  std::vector<int64_t> indices, shape;
  std::optional<int64_t> padding_idx;
  std::optional<double> max_norm;
  double norm_type;
  std::vector<double> table, seed, out, table_after, grad;
};

#include "embedding_golden.inc"

void check_case(const EmbeddingCase& c, wick::Dtype dtype, double rel) {
  INFO("case " << c.name << " in " << dtype);
  const auto opts = wick::TensorOptions(dtype);
  Tensor table = wick::tensor(c.table, {c.num, c.dim}, opts).requires_grad_();
  const Tensor input = wick::tensor(c.indices, wick::Shape(c.shape));
  Tensor out = nn::F::embedding(input, table,
                                nn::F::EmbeddingFuncOptions()
                                    .padding_idx(c.padding_idx)
                                    .max_norm(c.max_norm)
                                    .norm_type(c.norm_type));
  wick::Shape want_shape(c.shape);
  want_shape.push_back(c.dim);
  CHECK(out.sizes() == want_shape);
  check_values(out, c.out, rel, "output");
  check_values(table, c.table_after, rel, "table after the call");
  (out * wick::tensor(c.seed, want_shape, opts)).sum().backward();
  check_values(table.grad(), c.grad, rel, "d table");
}

}  // namespace

TEST_CASE("embedding matches PyTorch in float64 and float32") {
  for (const EmbeddingCase& c : kEmbeddingCases) {
    check_case(c, wick::kFloat64, 1e-13);
    check_case(c, wick::kFloat32, 2e-6);
  }
}

TEST_CASE("embedding passes gradcheck in the table") {
  // Without padding_idx (a padding row's gradient is 0 on purpose, so no finite difference
  // matches it: the golden cases check it). A 0-d index gives one row.
  for (const Tensor& input :
       {wick::tensor({{3, 0, 3}, {1, 1, 2}}), wick::tensor({2}).reshape({})}) {
    INFO("indices " << input);
    Tensor table = wick::randn({4, 3}, wick::kFloat64).requires_grad_();
    CHECK(wick::autograd::gradcheck(
              [&](const std::vector<Tensor>& in) { return nn::F::embedding(input, in[0]); },
              {table}) == "");
  }
}

TEST_CASE("the Embedding module: init, padding row, from_pretrained, printing, saving") {
  wick::manual_seed(7);
  nn::Embedding emb(nn::EmbeddingOptions(10, 4).padding_idx(-2));
  CHECK(emb->options().padding_idx() == 8);  // wrapped, as PyTorch's module stores it
  CHECK(emb->weight.sizes() == wick::Shape{10, 4});
  CHECK(emb->weight.requires_grad());
  CHECK(wick::equal(emb->weight.select(0, 8), wick::zeros({4})));
  // N(0, 1) draws: wick::randn after the same seed.
  wick::manual_seed(7);
  CHECK(wick::equal(emb->weight.select(0, 0), wick::randn({10, 4}).select(0, 0)));
  std::ostringstream printed;
  printed << emb << " " << nn::Embedding(3, 2);
  CHECK(printed.str() == "Embedding(10, 4, padding_idx=8) Embedding(3, 2)");
  // Training: the padding row's gradient stays 0; the others count their uses.
  const Tensor tokens = wick::tensor({{8, 1, 1}, {2, 8, 1}});
  emb(tokens).sum().backward();
  const std::vector<float> g = emb->weight.grad().sum(1).to_vector<float>();
  CHECK(g[1] == 12.0f);
  CHECK(g[2] == 4.0f);
  CHECK(g[8] == 0.0f);
  // Through an optimizer step, as a language model's first layer.
  wick::optim::SGD sgd(emb->parameters(), wick::optim::SGDOptions(0.5));
  const Tensor row1 = emb->weight.select(0, 1).clone();
  sgd.step();
  CHECK(wick::allclose(emb->weight.select(0, 1), row1 - 0.5 * 3.0));
  // freeze (the default) turns the table's gradient off.
  const Tensor pretrained = wick::arange(6, wick::kFloat64).reshape({3, 2});
  nn::Embedding frozen = nn::Embedding::from_pretrained(pretrained);
  CHECK_FALSE(frozen->weight.requires_grad());
  CHECK(frozen(wick::tensor({2, 0})).to_vector<double>() == std::vector<double>{4, 5, 0, 1});
  CHECK(
      nn::Embedding::from_pretrained(pretrained, nn::EmbeddingFromPretrainedOptions().freeze(false))
          ->weight.requires_grad());
  // The table is shared, as PyTorch's Parameter(embeddings): no copy of a large table.
  CHECK(frozen->weight.data_ptr<double>() == pretrained.data_ptr<double>());
  // Saved and loaded bit-exact.
  const auto path = std::filesystem::temp_directory_path() / "wick_test_embedding.safetensors";
  wick::save(emb, path);
  nn::Embedding copy(10, 4);
  wick::load(copy, path);
  std::filesystem::remove(path);
  CHECK(wick::equal(copy->weight, emb->weight));
  // Empty inputs and embedding_dim 0 give empty results.
  CHECK(emb(wick::zeros({0, 5}, wick::kInt64)).sizes() == wick::Shape{0, 5, 4});
  CHECK(nn::Embedding(3, 0)(wick::tensor({1, 2})).sizes() == wick::Shape{2, 0});
}

TEST_CASE("embedding rejects bad input with clear errors, before changing the table") {
  nn::Embedding emb(nn::EmbeddingOptions(5, 2).max_norm(0.1));
  const Tensor before = emb->weight.clone();
  CHECK_THROWS_WITH(emb(wick::tensor({1, 5})), Catch::Contains("embedding") &&
                                                   Catch::Contains("out of range") &&
                                                   Catch::Contains("[5, 2]"));
  CHECK_THROWS_WITH(nn::F::embedding(wick::tensor({7}), wick::ones({5, 2})),
                    Catch::Contains("embedding") && Catch::Contains("out of range") &&
                        Catch::Contains("from 7 to 7"));
  CHECK(wick::equal(emb->weight, before));  // max_norm did not run
  CHECK_THROWS_AS(emb(wick::tensor({1.0, 2.0})), wick::DtypeError);
  CHECK_THROWS_AS(nn::F::embedding(wick::tensor({0}), wick::ones({3})), wick::ShapeError);
  CHECK_THROWS_AS(nn::Embedding(nn::EmbeddingOptions(4, 2).padding_idx(4)), wick::ValueError);
  CHECK_THROWS_AS(nn::Embedding(nn::EmbeddingOptions(4, 2).padding_idx(-5)), wick::ValueError);
  CHECK_THROWS_AS(nn::Embedding(-1, 2), wick::ValueError);
  CHECK_THROWS_AS(nn::Embedding(nn::EmbeddingOptions(4, 2)._weight(wick::ones({4, 3}))),
                  wick::ShapeError);
  CHECK_THROWS_WITH(nn::F::embedding(wick::tensor({0}), wick::ones({3, 2}),
                                     nn::F::EmbeddingFuncOptions().sparse(true)),
                    Catch::Contains("not supported"));
  CHECK_THROWS_AS(nn::Embedding::from_pretrained(wick::ones({3})), wick::ShapeError);
  nn::Embedding sparse = nn::Embedding::from_pretrained(
      wick::ones({3, 2}), nn::EmbeddingFromPretrainedOptions().sparse(true));
  CHECK_THROWS_AS(sparse(wick::tensor({0})), wick::ValueError);
  // After the errors everything still works.
  CHECK(emb(wick::tensor({4})).sizes() == wick::Shape{1, 2});
}

TEST_CASE("one_hot matches PyTorch, with its errors") {
  namespace F = wick::nn::functional;
  using wick::Shape;
  // torch: F.one_hot(tensor([0, 2, 1])) is [[1, 0, 0], [0, 0, 1], [0, 1, 0]] (int64).
  const wick::Tensor y = F::one_hot(wick::tensor({0, 2, 1}));
  CHECK(y.dtype() == wick::kInt64);
  CHECK(y.sizes() == Shape{3, 3});
  CHECK(y.to_vector<int64_t>() == std::vector<int64_t>{1, 0, 0, 0, 0, 1, 0, 1, 0});
  // [2, 2] with 4 classes is [2, 2, 4]; a 0-d index is a vector (torch: one_hot(tensor(2), 3) is
  // [0, 0, 1]); an empty index with a class count is [0, C].
  const wick::Tensor m = F::one_hot(wick::tensor({0, 3, 1, 1}).reshape({2, 2}), 4);
  CHECK(m.sizes() == Shape{2, 2, 4});
  CHECK(m.sum(-1).to_vector<int64_t>() == std::vector<int64_t>{1, 1, 1, 1});
  CHECK(m.argmax(-1).to_vector<int64_t>() == std::vector<int64_t>{0, 3, 1, 1});
  CHECK(F::one_hot(wick::tensor(int64_t{2}, wick::kInt64).reshape({}), 3).to_vector<int64_t>() ==
        std::vector<int64_t>{0, 0, 1});
  CHECK(F::one_hot(wick::zeros({0}, wick::kInt64), 3).sizes() == Shape{0, 3});
  // torch's errors: "Class values must be smaller than num_classes.", "... non-negative.",
  // "Can not infer total number of classes from empty tensor.", "one_hot is only applicable to
  // index tensor."
  CHECK_THROWS_WITH(F::one_hot(wick::tensor({0, 3}), 3),
                    Catch::Contains("one_hot") && Catch::Contains("smaller than num_classes 3"));
  CHECK_THROWS_AS(F::one_hot(wick::tensor({-1}), 3), wick::IndexError);
  CHECK_THROWS_AS(F::one_hot(wick::zeros({0}, wick::kInt64)), wick::ValueError);
  CHECK_THROWS_AS(F::one_hot(wick::tensor({1.0f})), wick::DtypeError);
  CHECK_THROWS_AS(F::one_hot(wick::tensor({0}), -2), wick::ValueError);
  CHECK_THROWS_AS(F::one_hot(wick::tensor({std::numeric_limits<int64_t>::max()})),
                  wick::ValueError);
  CHECK_THROWS_AS(F::one_hot(wick::Tensor()), wick::ValueError);
}
