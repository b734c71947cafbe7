// test_einsum.cpp: einsum against a brute-force float64 evaluator (every assignment of the
// letters, summed), written here without wick's ops; the "..." forms against the same
// equation with the broadcast dims spelled out; PyTorch's implicit-output order, views,
// shapes and errors (python3-torch 1.13's answers in the comments); gradcheck through
// contractions, diagonals and broadcasting.
#include <catch2/catch.hpp>
#include <functional>
#include <map>
#include <string>
#include <vector>
#include <wick/wick.hpp>

#include "gradcheck_util.hpp"

#include "reference.hpp"

using namespace wick;

namespace {

// The einsum of letters-only terms by brute force: for every assignment of the letters,
// the product of the operands' elements, added into the output element those letters name.
std::vector<double> brute_einsum(const std::string& equation, const std::vector<Tensor>& ops) {
  const size_t arrow = equation.find("->");
  std::vector<std::string> terms;
  std::string lhs = equation.substr(0, arrow), out = equation.substr(arrow + 2);
  for (size_t begin = 0;;) {
    const size_t comma = lhs.find(',', begin);
    terms.push_back(lhs.substr(begin, comma - begin));
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  std::map<char, int64_t> size;
  for (size_t i = 0; i < terms.size(); ++i) {
    for (size_t d = 0; d < terms[i].size(); ++d) {
      const int64_t s = ops[i].size(static_cast<int64_t>(d));
      if (!size.count(terms[i][d]) || size[terms[i][d]] == 1) size[terms[i][d]] = s;
    }
  }
  std::vector<char> letters;
  Shape all_sizes;
  for (const auto& [c, s] : size) {
    letters.push_back(c);
    all_sizes.push_back(s);
  }
  Shape out_sizes;
  for (char c : out) out_sizes.push_back(size[c]);
  std::vector<double> result(static_cast<size_t>(ref::numel(out_sizes)), 0.0);
  ref::for_each_index(all_sizes, [&](const std::vector<int64_t>& at) {
    std::map<char, int64_t> value_of;
    for (size_t l = 0; l < letters.size(); ++l) value_of[letters[l]] = at[l];
    double product = 1;
    for (size_t i = 0; i < terms.size(); ++i) {
      std::vector<int64_t> idx;
      for (size_t d = 0; d < terms[i].size(); ++d) {
        // A size-1 dim broadcasts: always index 0.
        idx.push_back(ops[i].size(static_cast<int64_t>(d)) == 1 ? 0 : value_of[terms[i][d]]);
      }
      product *= ref::value(ops[i], idx);
    }
    int64_t flat = 0;
    for (char c : out) flat = flat * size[c] + value_of[c];
    result[static_cast<size_t>(flat)] += product;
  });
  return result;
}

void check_against_brute(const std::string& equation, const std::vector<Tensor>& ops,
                         const std::string& explicit_equation = "") {
  INFO("einsum(\"" << equation << "\")");
  const Tensor got = einsum(equation, ops);
  const std::vector<double> want =
      brute_einsum(explicit_equation.empty() ? equation : explicit_equation, ops);
  REQUIRE(got.numel() == static_cast<int64_t>(want.size()));
  const std::vector<double> values = got.contiguous().to_vector<double>();
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("element " << i);
    CHECK(values[i] == Approx(want[i]).epsilon(1e-12).margin(1e-12));
  }
}

}  // namespace

TEST_CASE("einsum: contractions, diagonals and sums against brute force", "[einsum]") {
  const Tensor a = f64({3, 4}, 1), b = f64({4, 5}, 2), v = f64({4}, 3), w = f64({4}, 4);
  const Tensor sq = f64({4, 4}, 5), cube = f64({3, 3, 3}, 6);
  check_against_brute("ij,jk->ik", {a, b});
  check_against_brute("ij,jk", {a, b}, "ij,jk->ik");
  check_against_brute("ij,kj->ik", {a, b.t()});  // a transposed view
  check_against_brute("ij->ji", {a});
  check_against_brute("ij->", {a});
  check_against_brute("ij->j", {a});
  check_against_brute("i,i->", {v, w});
  check_against_brute("i,j->ij", {v, w});
  check_against_brute("ij,ij->ij", {a, a * 2.0});
  check_against_brute("ii->i", {sq});
  check_against_brute("ii->", {sq});
  check_against_brute("ii", {sq}, "ii->");
  check_against_brute("iii->i", {cube});
  check_against_brute("iij->j", {cube});
  check_against_brute("iji->ij", {cube});
  check_against_brute("bij,bjk->bik", {f64({2, 3, 4}, 7), f64({2, 4, 5}, 8)});
  check_against_brute("bhqd,bhkd->bhqk", {f64({2, 3, 4, 5}, 9), f64({2, 3, 6, 5}, 10)});
  check_against_brute("abc,cd,de->abe", {f64({2, 3, 4}, 11), f64({4, 5}, 12), f64({5, 2}, 13)});
  check_against_brute("i,i,i->", {v, w, v + w});
  check_against_brute("ij,jk,ki->", {a, b, f64({5, 3}, 14)});
  check_against_brute("bn,anm,bm->ba", {f64({2, 3}, 15), f64({4, 3, 5}, 16), f64({2, 5}, 17)});
  check_against_brute("ijk,jl->lik", {f64({2, 3, 4}, 18), f64({3, 2}, 19)});
  // Size 1 against n: a batch dim, and a contracted one (torch: [2, 1] x [4, 5] -> [2, 5]).
  check_against_brute("bij,bjk->bik", {f64({1, 3, 4}, 20), f64({2, 4, 5}, 21)});
  check_against_brute("ij,jk->ik", {f64({2, 1}, 22), f64({4, 5}, 23)});
  // Empty dims: a sum over nothing is 0.
  check_against_brute("ij,jk->ik", {f64({2, 0}, 24), f64({0, 3}, 25)});
  CHECK(einsum("ij,jk->ik", {f64({2, 0}, 24), f64({0, 3}, 25)}).sizes() == Shape{2, 3});
  // Spaces are ignored.
  check_against_brute(" i j , j k -> i k ", {a, b}, "ij,jk->ik");
}

TEST_CASE("einsum: PyTorch's implicit output, ellipsis, views and dtypes", "[einsum]") {
  // torch.einsum('bA,aB', [2, 3], [4, 5]) has shape [3, 5, 4, 2]: uppercase first.
  CHECK(einsum("bA,aB", {f64({2, 3}, 1), f64({4, 5}, 2)}).sizes() == Shape{3, 5, 4, 2});
  // "...": broadcast and right-aligned: [5, 1, 2, 3] x [4, 3, 2] -> [5, 4, 2, 2] (torch).
  const Tensor x = f64({5, 1, 2, 3}, 3), y = f64({4, 3, 2}, 4);
  const Tensor batched = einsum("...ij,...jk", {x, y});
  REQUIRE(batched.sizes() == Shape{5, 4, 2, 2});
  const Tensor spelled = einsum("abij,bjk->abik", {x, y.reshape({4, 3, 2})});
  CHECK(allclose(batched, spelled, 1e-12, 1e-12));
  // "..." left out of an explicit output is summed (torch: '...j->j' of [2, 3, 4] is [4]).
  const Tensor z = f64({2, 3, 4}, 5);
  CHECK(allclose(einsum("...j->j", {z}), z.sum({0, 1}), 1e-12, 1e-12));
  CHECK(allclose(einsum("i...j->ij", {z}), z.sum(1), 1e-12, 1e-12));
  CHECK(allclose(einsum("...->...", {z}), z, 0, 0));
  CHECK(allclose(einsum("i...->...i", {z}), z.permute({1, 2, 0}), 0, 0));
  // One operand, nothing summed: a view, as PyTorch's.
  const Tensor m = f64({3, 4}, 6);
  const Tensor t = einsum("ij->ji", {m});
  CHECK(t.sizes() == Shape{4, 3});
  CHECK(t.storage() == m.storage());
  // int64 (torch: ones(2, 3) @ ones(3, 2) in int64 is all 3).
  const Tensor ints = einsum("ij,jk", {ones({2, 3}, kInt64), ones({3, 2}, kInt64)});
  CHECK(ints.dtype() == kInt64);
  CHECK(ints.to_vector<int64_t>() == std::vector<int64_t>{3, 3, 3, 3});
  // float32: within float32 rounding of float64.
  const Tensor a32 = f64({8, 16}, 7).to(kFloat32), b32 = f64({16, 4}, 8).to(kFloat32);
  CHECK(allclose(einsum("ij,jk->ik", {a32, b32}).to(kFloat64),
                 matmul(a32.to(kFloat64), b32.to(kFloat64)), 1e-5, 1e-5));
}

TEST_CASE("einsum: two repeated subscripts in one operand", "[einsum]") {
  // torch 1.13 on arange(16) as [2, 2, 2, 2]: "iijj" 30, "iijj->ij" [0, 3, 12, 15], "ijij->ij"
  // [0, 5, 10, 15], "ijji->ij" [0, 6, 9, 15], "iiji->ij" [0, 2, 13, 15]; the gradient of
  // "iijj" is 1 at the 4 elements (i, i, j, j). (The second label was skipped: 60, or a
  // permute error, found by review.)
  const Tensor x = arange(16, kFloat64).reshape({2, 2, 2, 2});
  const auto values = [](const Tensor& t) { return t.contiguous().to_vector<double>(); };
  CHECK(einsum("iijj", {x}).item<double>() == 30);
  CHECK(values(einsum("iijj->ij", {x})) == std::vector<double>{0, 3, 12, 15});
  CHECK(values(einsum("ijij->ij", {x})) == std::vector<double>{0, 5, 10, 15});
  CHECK(values(einsum("ijji->ij", {x})) == std::vector<double>{0, 6, 9, 15});
  CHECK(values(einsum("iiji->ij", {x})) == std::vector<double>{0, 2, 13, 15});
  const Tensor leaf = arange(16, kFloat64).requires_grad_();
  einsum("iijj", {leaf.reshape({2, 2, 2, 2})}).backward();
  CHECK(values(leaf.grad()) == std::vector<double>{1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1});
}

TEST_CASE("einsum: errors name the equation and the shapes", "[einsum]") {
  const Tensor a = f64({2, 3}, 1), b = f64({4, 5}, 2);
  auto message = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  // torch: "subscript j has size 4 for operand 1 which does not broadcast with previously
  // seen size 3".
  const std::string sizes = message([&] { einsum("ij,jk", {a, b}); });
  CHECK_THAT(sizes, Catch::Contains("einsum") && Catch::Contains("ij,jk") &&
                        Catch::Contains("subscript j") && Catch::Contains("[4, 5]"));
  CHECK_THROWS_AS(einsum("ij,jk", {a, b}), ValueError);
  CHECK_THROWS_AS(einsum("ij,jk->ik", {a}), ValueError);  // operand count
  CHECK_THROWS_AS(einsum("ijk", {a}), ValueError);        // subscripts vs dims
  CHECK_THROWS_AS(einsum("i", {a}), ValueError);
  CHECK_THROWS_AS(einsum("i1", {a}), ValueError);       // not a letter
  CHECK_THROWS_AS(einsum("ij->k", {a}), ValueError);    // unknown output letter
  CHECK_THROWS_AS(einsum("ij->ii", {a}), ValueError);   // repeated output letter
  CHECK_THROWS_AS(einsum("i.j", {a}), ValueError);      // a lone '.'
  CHECK_THROWS_AS(einsum("...i...", {a}), ValueError);  // two "..."
  CHECK_THROWS_AS(einsum("ii", {a}), ValueError);       // diagonal of 2 x 3
  CHECK_THROWS_AS(einsum("ij", {}), ValueError);
  CHECK_THROWS_AS(einsum("ij,jk", {a, f64({3, 2}, 3).to(kFloat32)}), DtypeError);
  CHECK_THROWS_AS(einsum("ij", {Tensor()}), ValueError);
  CHECK_THAT(message([&] { einsum("ii", {a}); }), Catch::Contains("subscript i"));
  // Still works after the errors.
  CHECK(einsum("ij->", {a}).item<double>() == Approx(a.sum().item<double>()));
}

TEST_CASE("einsum: gradients", "[einsum][autograd]") {
  CHECK(passes(
      [](const std::vector<Tensor>& v) {
        return einsum("bij,bjk->bik", {v[0], v[1]});
      },
      {f64({2, 3, 4}, 1), f64({2, 4, 2}, 2)}));
  CHECK(passes([](const std::vector<Tensor>& v) { return einsum("ii->i", {v[0]}); },
               {f64({3, 3}, 3)}));
  CHECK(passes([](const std::vector<Tensor>& v) { return einsum("iij->j", {v[0]}); },
               {f64({3, 3, 2}, 4)}));
  CHECK(passes(
      [](const std::vector<Tensor>& v) {
        return einsum("i,i,i->", {v[0], v[1], v[0]});
      },
      {f64({4}, 5), f64({4}, 6)}));
  CHECK(passes(
      [](const std::vector<Tensor>& v) {
        return einsum("...ij,...jk", {v[0], v[1]});
      },
      {f64({2, 1, 2, 3}, 7), f64({3, 3, 2}, 8)}));
  CHECK(passes(
      [](const std::vector<Tensor>& v) {
        return einsum("ij,jk->ik", {v[0], v[1]});
      },
      {f64({2, 1}, 9), f64({3, 2}, 10)}));
  CHECK(passes(
      [](const std::vector<Tensor>& v) {
        return einsum("abc,cd,de->abe", {v[0], v[1], v[2]});
      },
      {f64({2, 2, 3}, 11), f64({3, 2}, 12), f64({2, 2}, 13)}));
}
