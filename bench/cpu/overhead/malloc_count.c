/* malloc_count.c: an LD_PRELOAD shim that counts malloc and aligned_alloc calls while a
 * program switches counting on (wick_count_on), for op_overhead.cpp: how many heap allocations
 * one small op makes. Counts calls only; the real functions do the work. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>
static long g_count = 0;
static int g_on = 0;
void wick_count_on(int on) { g_on = on; }
long wick_count(void) { return g_count; }
void* malloc(size_t n) {
  static void* (*real)(size_t) = 0;
  if (!real) real = (void* (*)(size_t))dlsym(RTLD_NEXT, "malloc");
  if (g_on) ++g_count;
  return real(n);
}
void* aligned_alloc(size_t a, size_t n) {
  static void* (*real)(size_t, size_t) = 0;
  if (!real) real = (void* (*)(size_t, size_t))dlsym(RTLD_NEXT, "aligned_alloc");
  if (g_on) ++g_count;
  return real(a, n);
}
