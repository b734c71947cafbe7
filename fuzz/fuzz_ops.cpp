// fuzz_ops.cpp: libFuzzer target for wick's op API. The input bytes decode (byte_reader.hpp)
// into a program of up to kMaxSteps steps over a pool of CPU tensors of every dtype, with
// zero sizes, transposed, sliced, offset and expanded layouts and views that share storage.
// Steps: factories with wild shapes (negative, huge, overflowing), elementwise ops with
// tensors and numbers, where, cat and stack, reductions, softmax, layer_norm, matmul, det and the
// solves and LU factorisations, the index ops (index_select, index_add, gather, scatter_add,
// scatter, scatter_reduce), every view op, in-place ops (with aliasing operands), casts, printing,
// equal/allclose and device strings. Every step's outcome is predicted by a plain reference
// (ops_reference.hpp): a float64 (or exact int64) model that reads operands through data_ptr +
// strides with its own loops, decides whether the op must throw a wick::Error, and computes the
// result's shape, dtype and values. Any other exception, a result where an error was due, an error
// where a result was due, or a wrong value aborts (a crash for libFuzzer). Debug fill is on:
// unwritten output elements are NaN / -1 / 255 and show up as wrong values. This file runs the
// program (Program::run, the step chooser) and holds libFuzzer's entry; the choices are in
// ops_program.hpp, the steps in ops_<family>.cpp, the reference in ops_reference.hpp. Built with
// fuzz/CMakeLists.txt; run by .ci/fuzz.sh; see docs/reliability.md.
#include <cstdio>
#include <cstdlib>

#include "ops_program.hpp"

namespace wick::fuzz::ops {

void Program::run() {
  static const bool trace = std::getenv("WICK_FUZZ_TRACE") != nullptr;
  for (int step = 0; step < kMaxSteps && !in_.done(); ++step) {
    const uint8_t op = in_.byte();
    switch (op % 16) {
      case 0:
      case 1:
        create();
        break;
      case 2:
        factory();
        break;
      case 3:
        unary();
        break;
      case 4:
      case 5:
        binary();
        break;
      case 6:
        if (op & 16) {
          join();  // cat and stack (ops_join.cpp)
        } else {
          where();
        }
        break;
      case 7:
        reduce();
        break;
      case 8:
        if (op & 16) {
          layer_norm();  // ops_norm.cpp
        } else if (op & 32) {
          linalg();  // det, solves, LU (ops_linalg.cpp)
        } else {
          softmax();
        }
        break;
      case 9:
        if (op & 16) {
          index_ops();  // index_select, index_add, gather, the scatters (ops_index.cpp)
        } else {
          matmul();
        }
        break;
      case 10:
      case 11:
        view();
        break;
      case 12:
      case 13:
        inplace();
        break;
      case 14:
        if (op & 16) {
          if (op & 32) {
            if (op & 64) {
              order_stats_op();  // kthvalue, median, nanmedian (ops_sort.cpp)
            } else if (op & 128) {
              running_op();  // cummax, cummin, logcumsumexp (ops_scan.cpp)
            } else {
              scan_op();  // cumsum, cumprod, prod (ops_scan.cpp)
            }
          } else {
            sort_ops();  // sort, argsort, topk (ops_sort.cpp)
          }
        } else {
          cast_ops();
        }
        break;
      default:
        misc();
        break;
    }
    if (trace) std::fprintf(stderr, "fuzz_ops: step %d done: %s\n", step, g_step.c_str());
  }
}

}  // namespace wick::fuzz::ops

using wick::fuzz::ops::g_step;
using wick::fuzz::ops::Program;

// Big requests must come back as OutOfMemoryError, as from malloc, instead of ASan aborting.
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1"; }

#if defined(__has_include) && __has_include(<sanitizer/common_interface_defs.h>)
#include <sanitizer/common_interface_defs.h>
#define WICK_FUZZ_HAVE_SANITIZER_API 1
#endif

namespace {
const uint8_t* g_input = nullptr;  // the input being run, for the death callback
size_t g_input_size = 0;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const bool initialised = [] {
    wick::set_debug_fill(true);  // unwritten output elements read as NaN / -1 / 255
#if defined(WICK_FUZZ_HAVE_SANITIZER_API)
    // A sanitizer report names the step that was running. This replaces libFuzzer's own death
    // callback, which writes the crashing input, so the input is written here instead, to
    // $WICK_FUZZ_ARTIFACTS/sanitizer-crash (.ci/fuzz.sh sets it).
    __sanitizer_set_death_callback([] {
      std::fprintf(stderr, "fuzz_ops: the step running was: %s\n", g_step.c_str());
      const char* dir = std::getenv("WICK_FUZZ_ARTIFACTS");
      if (dir == nullptr || g_input == nullptr) return;
      const std::string path = std::string(dir) + "/sanitizer-crash";
      if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
        std::fwrite(g_input, 1, g_input_size, f);
        std::fclose(f);
        std::fprintf(stderr, "fuzz_ops: the input was written to %s\n", path.c_str());
      }
    });
#endif
    return true;
  }();
  (void)initialised;
  g_input = data;
  g_input_size = size;
  Program(data, size).run();
  return 0;
}
