// copy_buffers.hpp: the two buffers of a memcpy ceiling (machine_info's copy rows, bench/cpu's
// and bench_cpu_ops' memcpy rows) and the copy itself, split over T threads. The buffers are
// allocated as wick's CPU allocator allocates a large block: from 2 MiB up, 2 MiB aligned and
// advised for transparent huge pages, so that the ceiling and the ops it bounds pay the same
// TLB costs; each thread first touches the part it copies (page placement). With 4 KiB pages
// the ceiling was the slower one: memcpy of 64 MiB on 2 threads, 34 GB/s against 67 GB/s with
// huge pages (2026-12-01, the 2-core development VM, transparent_hugepage=madvise).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>

#if defined(_OPENMP)
#include <omp.h>
#endif
#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace bench {

class CopyBuffers {
 public:
  CopyBuffers(size_t bytes, int threads) : bytes_(bytes), threads_(threads) {
    const size_t huge = size_t{2} << 20;
    const size_t alignment = bytes >= huge ? huge : 4096;
    const size_t padded = (bytes + alignment - 1) / alignment * alignment;
    src_ = static_cast<char*>(std::aligned_alloc(alignment, padded));
    dst_ = static_cast<char*>(std::aligned_alloc(alignment, padded));
    if (src_ == nullptr || dst_ == nullptr) {
      std::free(src_);
      std::free(dst_);
      throw std::bad_alloc();
    }
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (alignment == huge) {
      madvise(src_, padded, MADV_HUGEPAGE);
      madvise(dst_, padded, MADV_HUGEPAGE);
    }
#endif
    for_each_part([this](size_t lo, size_t hi) {
      std::memset(src_ + lo, 1, hi - lo);
      std::memset(dst_ + lo, 0, hi - lo);
    });
  }
  ~CopyBuffers() {
    std::free(src_);
    std::free(dst_);
  }
  CopyBuffers(const CopyBuffers&) = delete;
  CopyBuffers& operator=(const CopyBuffers&) = delete;

  // dst = src, each thread its own part.
  void copy() {
    for_each_part([this](size_t lo, size_t hi) { std::memcpy(dst_ + lo, src_ + lo, hi - lo); });
  }
  const char* dst() const { return dst_; }

 private:
  // Runs f(lo, hi) on each of the threads for its part, cut at 64-byte boundaries.
  template <typename F>
  void for_each_part(const F& f) {
#if defined(_OPENMP)
#pragma omp parallel num_threads(threads_)
#endif
    {
      size_t t = 0, nt = 1;
#if defined(_OPENMP)
      t = static_cast<size_t>(omp_get_thread_num());
      nt = static_cast<size_t>(omp_get_num_threads());
#endif
      const size_t lo = bytes_ * t / nt / 64 * 64;
      const size_t hi = t + 1 == nt ? bytes_ : bytes_ * (t + 1) / nt / 64 * 64;
      f(lo, hi);
    }
  }

  size_t bytes_;
  int threads_;
  char* src_ = nullptr;
  char* dst_ = nullptr;
};

}  // namespace bench
