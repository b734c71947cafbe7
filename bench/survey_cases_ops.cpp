// survey_cases_ops.cpp: the survey's cases of single ops: elementwise, composites, the integer and
// bit ops, linear algebra, special functions, broadcast and strided operands, reductions, softmax,
// layer_norm, casts, matmul, bfloat16, autograd and joining (survey_cases.hpp says what a Case is).
#include "survey_cases.hpp"

namespace survey {

void add_op_cases(std::vector<Case>& all) {
  const auto add = [&](Case c) { all.push_back(std::move(c)); };
  // Elementwise, contiguous.
  add(binary("a - b", kM, kM, [](const auto& a, const auto& b) { return a - b; }));
  add(binary("a * b", kM, kM, [](const auto& a, const auto& b) { return a * b; }));
  add(binary("a / b", kM, kM, [](const auto& a, const auto& b) { return a / b; }));
  add(binary("maximum(a, b)", kM, kM, [](const auto& a, const auto& b) { return a.maximum(b); }));
  // Composites (core/src/ops_nan.cpp, ops_pointwise.cpp): several kernels each, against
  // libtorch's one fused loop.
  add(binary("addcmul(a, a, b, 0.5)", kM, kM,
             [](const auto& a, const auto& b) { return a.addcmul(a, b, 0.5); }));
  add(binary("logaddexp(a, b)", kM, kM,
             [](const auto& a, const auto& b) { return a.logaddexp(b); }));
  add(binary(
      "xlogy(a, b), b > 0", kM, kM, [](const auto& a, const auto& b) { return a.xlogy(b); },
      Fill::kPositive));
  add(unary("nansum", kM, [](const auto& a) { return a.nansum(); }));
  add(searchsorted_case("searchsorted, 2^20 values in 1000", 1000, 1 << 20));
  add(searchsorted_case("searchsorted, 2^20 values in 2^20", 1 << 20, 1 << 20));
  // Binary maths (kernels/cpu/binary.cpp): the C library per element.
  add(binary("atan2(a, b)", kM, kM, [](const auto& a, const auto& b) { return a.atan2(b); }));
  add(binary("hypot(a, b)", kM, kM, [](const auto& a, const auto& b) { return a.hypot(b); }));
  add(binary("fmod(a, b)", kM, kM, [](const auto& a, const auto& b) { return a.fmod(b); }));
  add(binary("remainder(a, b)", kM, kM,
             [](const auto& a, const auto& b) { return a.remainder(b); }));
  add(binary("floor_divide(a, b)", kM, kM,
             [](const auto& a, const auto& b) { return a.div(b, "floor"); }));
  // The integer and bit ops (kernels/bit_ops.hpp), int64.
  add(int_binary("a & b, int64", -1000, 1000,
                 [](const auto& a, const auto& b) { return a.bitwise_and(b); }));
  add(int_binary("a << b, int64 counts in [0, 64)", 0, 64,
                 [](const auto& a, const auto& b) { return a.bitwise_left_shift(b); }));
  add(int_binary("gcd(a, b), int64 in [1, 2^20)", 1, 1 << 20,
                 [](const auto& a, const auto& b) { return a.gcd(b); }));
  // Linear algebra (core/src/ops_solve.cpp; kernels/cpu/lu.cpp), against LAPACK.
  for (int64_t n : {64, 256}) {
    const std::string of = "[" + std::to_string(n) + ", " + std::to_string(n) + "]";
    add(unary("det of " + of, {n, n}, Det{}));
    add(unary("inverse of " + of, {n, n}, Inverse{}));
    add(binary("solve " + of + " x [" + std::to_string(n) + ", 16]", {n, n}, {n, 16}, Solve{}));
  }
  add(unary("inverse of [4096, 8, 8]", {4096, 8, 8}, Inverse{}));
  // Cholesky and triangular solves (core/src/ops_cholesky.cpp; kernels/cpu/cholesky.cpp,
  // triangular.cpp), against LAPACK's potrf and trsm.
  for (int64_t n : {64, 256, 1024}) {
    const std::string of = "[" + std::to_string(n) + ", " + std::to_string(n) + "]";
    add(cholesky_case("cholesky of " + of, {n, n}));
    add(triangular_solve_case("solve_triangular " + of + " x [" + std::to_string(n) + ", 16]",
                              {n, n}));
  }
  add(cholesky_case("cholesky of [4096, 8, 8]", {4096, 8, 8}));
  add(binary("nextafter(a, b)", kM, kM,
             [](const auto& a, const auto& b) { return a.nextafter(b); }));
  add(binary(
      "pow(a, b), a > 0", kM, kM, [](const auto& a, const auto& b) { return a.pow(b); },
      Fill::kPositive));
  add(unary("pow(a, 2)", kM, [](const auto& a) { return a.pow(2.0); }));
  add(unary("pow(a, 3)", kM, [](const auto& a) { return a.pow(3.0); }));
  add(unary("neg", kM, [](const auto& a) { return a.neg(); }));
  add(unary("abs", kM, [](const auto& a) { return a.abs(); }));
  add(unary("tanh", kM, [](const auto& a) { return a.tanh(); }));
  add(unary("sigmoid", kM, [](const auto& a) { return a.sigmoid(); }));
  add(unary("sin", kM, [](const auto& a) { return a.sin(); }));
  add(unary("cos", kM, [](const auto& a) { return a.cos(); }));
  add(unary("tan", kM, [](const auto& a) { return a.tan(); }));
  add(unary("atan", kM, [](const auto& a) { return a.atan(); }));
  add(unary("asin", kM, [](const auto& a) { return a.asin(); }));
  add(unary("sinh", kM, [](const auto& a) { return a.sinh(); }));
  add(unary("acos", kM, [](const auto& a) { return a.acos(); }));
  add(unary("erf", kM, [](const auto& a) { return a.erf(); }));
  add(unary("cosh", kM, [](const auto& a) { return a.cosh(); }));
  add(unary("expm1", kM, [](const auto& a) { return a.expm1(); }));
  add(unary(
      "log1p", kM, [](const auto& a) { return a.log1p(); }, Fill::kPositive));
  add(unary(
      "log10", kM, [](const auto& a) { return a.log10(); }, Fill::kPositive));
  add(unary(
      "log2", kM, [](const auto& a) { return a.log2(); }, Fill::kPositive));
  add(unary(
      "rsqrt", kM, [](const auto& a) { return a.rsqrt(); }, Fill::kPositive));
  // The special functions: one float64 libm (or special_math.hpp) call per element.
  add(unary("erfc", kM, [](const auto& a) { return a.erfc(); }));
  add(unary("erfinv", kM, [](const auto& a) { return (a * 0.3).erfinv(); }));
  add(unary("asinh", kM, [](const auto& a) { return a.asinh(); }));
  add(unary("lgamma", kM, [](const auto& a) { return a.lgamma(); }));
  add(unary("digamma", kM, [](const auto& a) { return a.digamma(); }));
  add(unary("polygamma(2, a)", kM, [](const auto& a) { return a.polygamma(2); }));
  add(unary("floor", kM, [](const auto& a) { return a.floor(); }));
  add(unary("round", kM, [](const auto& a) { return a.round(); }));
  add(unary("sign", kM, [](const auto& a) { return a.sign(); }));
  // Composites (wick: several ops each, core/src/ops_logical.cpp; libtorch: one kernel).
  add(unary("isnan", kM, [](const auto& a) { return a.isnan(); }));
  add(unary("masked_fill(a > 0, 0)", kM,
            [](const auto& a) { return a.masked_fill(a.gt(0.0), 0.0); }));
  add(unary("tril", kM, [](const auto& a) { return a.tril(); }));
  add(unary("logsumexp along dim 1", kM, [](const auto& a) { return a.logsumexp(1); }));
  add(unary("a + 1", kM, [](const auto& a) { return a + 1.0; }));
  add(unary(
      "1 / a", kM, [](const auto& a) { return 1.0 / a; }, Fill::kPositive));
  add(unary("a.mul_(1) in place", kM, [](auto a) { return a.mul_(1.0); }));
  add(binary("a.add_(b) in place", kM, kM, [](auto a, const auto& b) { return a.add_(b, 0.0); }));
  add(unary("clamp_min(a, 0)", kM, [](const auto& a) { return a.clamp_min(0.0); }));
  add(binary("a == b", kM, kM, [](const auto& a, const auto& b) { return a.eq(b); }));
  add(binary("a < b", kM, kM, [](const auto& a, const auto& b) { return a.lt(b); }));
  add(binary("where(a > 0, a, b)", kM, kM, [](const auto& a, const auto& b) {
    return LibOf<decltype(a)>::where(a.gt(0.0), a, b);
  }));
  // Elementwise, broadcast and strided.
  add(binary("M + row [1024]", kM, {1024}, [](const auto& a, const auto& b) { return a + b; }));
  add(binary("M + column [1024, 1]", kM, {1024, 1},
             [](const auto& a, const auto& b) { return a + b; }));
  add(binary("[64,128,1] + [1,128,128]", {64, 128, 1}, {1, 128, 128},
             [](const auto& a, const auto& b) { return a + b; }));
  // Short rows: [N, 2] with [N, 1], and 3 of every 5 columns (a run of 2 or 3 elements each).
  add(binary("[65536,2] + [65536,1]", {65536, 2}, {65536, 1},
             [](const auto& a, const auto& b) { return a + b; }));
  add(binary("a[:, :3] + b, rows of 3", {65536, 5}, {65536, 3},
             [](const auto& a, const auto& b) { return a.slice(1, 0, 3, 1) + b; }));
  add(binary("a[:, :3].add(column, 0.5), rows of 3", {65536, 5}, {65536, 1},
             [](const auto& a, const auto& b) { return a.slice(1, 0, 3, 1).add(b, 0.5); }));
  add(binary("a.t() + b", kM, kM, [](const auto& a, const auto& b) { return a.t() + b; }));
  add(binary("a.t() * b.t()", kM, kM, [](const auto& a, const auto& b) { return a.t() * b.t(); }));
  add(binary("every 2nd column: a[:, ::2] + b[:, ::2]", {1024, 2048}, {1024, 2048},
             [](const auto& a, const auto& b) {
               return a.slice(1, 0, 2048, 2) + b.slice(1, 0, 2048, 2);
             }));
  add(unary("exp of a.t()", kM, [](const auto& a) { return a.t().exp(); }));
  // Reductions.
  add(unary("mean()", kM, [](const auto& a) { return a.mean(); }));
  add(unary("mean(1)", kM, [](const auto& a) { return a.mean(1); }));
  add(unary("mean(0)", kM, [](const auto& a) { return a.mean(0); }));
  add(unary("max()", kM, [](const auto& a) { return a.max(); }));
  add(unary("amin(0)", kM, [](const auto& a) { return a.amin(0); }));
  add(unary("argmax()", kM, [](const auto& a) { return a.argmax(); }));
  add(unary("argmax(1)", kM, [](const auto& a) { return a.argmax(1); }));
  add(unary("argmax(0)", kM, [](const auto& a) { return a.argmax(0); }));
  add(unary("sum(1, keepdim)", kM, [](const auto& a) { return a.sum(1, true); }));
  add(unary("sum({0, 2}) of [64,128,128]", {64, 128, 128}, [](const auto& a) {
    return a.sum(Dims{0, 2});
  }));
  add(unary("sum(1) of [64,1024,16]", {64, 1024, 16}, [](const auto& a) { return a.sum(1); }));
  add(unary("sum(1) of [16384,64]", {16384, 64}, [](const auto& a) { return a.sum(1); }));
  add(unary("sum(1) of a.t()", kM, [](const auto& a) { return a.t().sum(1); }));
  add(unary("sum(0) of a.t()", kM, [](const auto& a) { return a.t().sum(0); }));
  add(unary("amax(1) of a.t()", kM, [](const auto& a) { return a.t().amax(1); }));
  add(unary("argmax(0) of a.t()", kM, [](const auto& a) { return a.t().argmax(0); }));
  add(unary("mean() of a.t()", kM, [](const auto& a) { return a.t().mean(); }));
  add(unary("sum() of int64", kM,
            [](const auto& a) { return a.to(LibOf<decltype(a)>::i64).sum(); }));
  add(unary("sum(0) of [1024,4096]", {1024, 4096}, [](const auto& a) { return a.sum(0); }));
  // The batch sum of a batched product in a transposed layout (a broadcast weight's gradient):
  // the kept dims are transposed, so no kept dim is innermost in memory order.
  add(unary("sum(0) of [64,1024,256].transpose(1,2)", {64, 1024, 256},
            [](const auto& a) { return a.transpose(1, 2).sum(0); }));
  // Softmax.
  add(unary("log_softmax(1)", kM, [](const auto& a) { return a.log_softmax(1); }));
  add(unary("softmax(1) of [16384,64]", {16384, 64}, [](const auto& a) { return a.softmax(1); }));
  add(unary("log_softmax(1) of [16384,64]", {16384, 64},
            [](const auto& a) { return a.log_softmax(1); }));
  add(unary("softmax(-1) of [32,8,64,64]", {32, 8, 64, 64},
            [](const auto& a) { return a.softmax(-1); }));
  add(unary("softmax(1) of [256,10]", {256, 10}, [](const auto& a) { return a.softmax(1); }));
  add(unary("softmax(1) of a.t()", kM, [](const auto& a) { return a.t().softmax(1); }));
  add(unary("log_softmax(0) of a.t()", kM, [](const auto& a) { return a.t().log_softmax(0); }));
  // LayerNorm over the last dim, with weight and bias (rows of 1024 and of 64).
  add(binary("layer_norm of M, weight and bias", kM, {2, 1024}, [](const auto& x, const auto& wb) {
    return LibOf<decltype(x)>::layer_norm(x, wb.select(0, 0), wb.select(0, 1));
  }));
  add(binary("layer_norm of [16384,64], weight and bias", {16384, 64}, {2, 64},
             [](const auto& x, const auto& wb) {
               return LibOf<decltype(x)>::layer_norm(x, wb.select(0, 0), wb.select(0, 1));
             }));
  // Casts and copies.
  add(unary("to(bfloat16)", kM, [](const auto& a) { return a.to(LibOf<decltype(a)>::bf16); }));
  add(unary("to(float64)", kM, [](const auto& a) { return a.to(LibOf<decltype(a)>::f64); }));
  add(unary("to(int64)", kM, [](const auto& a) { return a.to(LibOf<decltype(a)>::i64); }));
  add(unary("clone", kM, [](const auto& a) { return a.clone(); }));
  add(unary("permute(2,0,1).contiguous() of [64,128,128]", {64, 128, 128}, [](const auto& a) {
    return a.permute({2, 0, 1}).contiguous();
  }));
  add(unary("narrow(1, 1, 1000).contiguous()", kM,
            [](const auto& a) { return a.narrow(1, 1, 1000).contiguous(); }));
  add(unary("[64,1,1024].expand([64,64,1024]).contiguous()", {64, 1, 1024}, [](const auto& a) {
    return a.expand({64, 64, 1024}).contiguous();
  }));
  // Matmul.
  add(binary("bmm [32,128,128] @ [32,128,128]", {32, 128, 128}, {32, 128, 128},
             [](const auto& a, const auto& b) { return a.matmul(b); }));
  add(binary("[32,128,128] @ [128,128]", {32, 128, 128}, {128, 128},
             [](const auto& a, const auto& b) { return a.matmul(b); }));
  add(binary("[64,64] @ [64,64]", {64, 64}, {64, 64},
             [](const auto& a, const auto& b) { return a.matmul(b); }));
  add(binary("[8,8] @ [8,8]", {8, 8}, {8, 8},
             [](const auto& a, const auto& b) { return a.matmul(b); }));
  add(binary("[256,1024] @ M.t()", {256, 1024}, kM,
             [](const auto& a, const auto& b) { return a.matmul(b.t()); }));
  add(binary("[1024,256].t() @ [1024,1024]", {1024, 256}, kM,
             [](const auto& a, const auto& b) { return a.t().matmul(b); }));
  add(binary("[1024] @ M", {1024}, kM, [](const auto& a, const auto& b) { return a.matmul(b); }));
  add(binary("bf16 [256,1024] @ M", {256, 1024}, kM, [](const auto& a, const auto& b) {
    using L = LibOf<decltype(a)>;
    return a.to(L::bf16).matmul(b.to(L::bf16));
  }));
  // bfloat16 beyond bench_vs_libtorch's rows.
  add(binary("bf16 a * b", kM, kM, [](const auto& a, const auto& b) {
    using L = LibOf<decltype(a)>;
    return a.to(L::bf16) * b.to(L::bf16);
  }));
  add(unary("bf16 to(float32)", kM, [](const auto& a) {
    using L = LibOf<decltype(a)>;
    return a.to(L::bf16).to(L::f32);
  }));
  add(unary("bf16 tanh", kM, [](const auto& a) { return a.to(LibOf<decltype(a)>::bf16).tanh(); }));
  add(unary("bf16 sin", kM, [](const auto& a) { return a.to(LibOf<decltype(a)>::bf16).sin(); }));
  // Random numbers (kernels/cpu/random.cpp: Philox 4x32-10, Box-Muller in double); libtorch's
  // CPU generator is a Mersenne twister, so this compares speeds, not streams.
  add({"rand [1024, 1024]", [] {
         return Pair{[] { (void)wick::rand(kM); }, [] { (void)torch::rand(kM); }};
       }});
  add({"randn [1024, 1024]", [] {
         return Pair{[] { (void)wick::randn(kM); }, [] { (void)torch::randn(kM); }};
       }});
  add({"randn [1024, 1024] float64", [] {
         return Pair{[] { (void)wick::randn(kM, wick::kFloat64); },
                     [] { (void)torch::randn(kM, torch::kFloat64); }};
       }});
  // Autograd: forward and backward from the sum.
  add(forward_backward("tanh, forward and backward", kM, [](const auto& x) { return x.tanh(); }));
  add(forward_backward("sigmoid, forward and backward", kM,
                       [](const auto& x) { return x.sigmoid(); }));
  add(forward_backward("log_softmax(1), forward and backward", kM,
                       [](const auto& x) { return x.log_softmax(1); }));
  add(forward_backward("(x * x).mean(1), forward and backward", kM,
                       [](const auto& x) { return (x * x).mean(1); }));
  add(forward_backward("tanh of x.t(), forward and backward", kM,
                       [](const auto& x) { return x.t().tanh(); }));
  add(forward_backward("x.t() * x, forward and backward", kM,
                       [](const auto& x) { return x.t() * x; }));
  add(forward_backward("x + row broadcast, forward and backward", kM,
                       [](const auto& x) { return x + x.select(0, 0); }));
  // Joining.
  add(binary("cat({a, b}, 0) of two [512, 1024]", {512, 1024}, {512, 1024},
             [](const auto& a, const auto& b) {
               return LibOf<decltype(a)>::cat({a, b}, 0);
             }));
  add(binary("cat({a, b}, 1) of two [1024, 512]", {1024, 512}, {1024, 512},
             [](const auto& a, const auto& b) {
               return LibOf<decltype(a)>::cat({a, b}, 1);
             }));
  add(binary("cat({a.t(), b}, 0)", kM, kM, [](const auto& a, const auto& b) {
    return LibOf<decltype(a)>::cat({a.t(), b}, 0);
  }));
  add(unary("stack of the 64 rows of [64, 4096]", {64, 4096}, [](const auto& x) {
    std::vector<std::decay_t<decltype(x)>> rows;
    for (int64_t i = 0; i < 64; ++i) rows.push_back(x.select(0, i));
    return LibOf<decltype(x)>::stack(rows, 0);
  }));
  add(binary("layer_norm of M, forward and backward", kM, {2, 1024},
             [](const auto& x, const auto& wb) {
               auto leaf = x.detach(), w = wb.select(0, 0).detach(), b = wb.select(0, 1).detach();
               leaf.requires_grad_(true);
               w.requires_grad_(true);
               b.requires_grad_(true);
               LibOf<decltype(x)>::layer_norm(leaf, w, b).sum().backward();
               return leaf;
             }));
  add(forward_backward("cat({x, x * 2}, 1), forward and backward", kM, [](const auto& x) {
    return LibOf<decltype(x)>::cat({x, x * 2.0}, 1);
  }));
}

}  // namespace survey
