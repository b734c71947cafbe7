// vec_clones.hpp: WICK_VEC_CLONES, the attribute that compiles a vec kernel three times
// (x86-64-v4 with AVX-512, x86-64-v3 with AVX2 and FMA, baseline x86-64) and picks one per CPU
// at load time (an ifunc). Helpers such kernels call must be inlined into them (always_inline):
// a helper left out of line is compiled for the baseline target only.
#pragma once

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define WICK_VEC_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define WICK_VEC_CLONES
#endif
