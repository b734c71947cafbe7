// paired.hpp: times several implementations of one computation interleaved, in rounds, so that
// they are compared at the same moment of the machine. Why: on a VM whose host lends the cores
// to other guests, speed drifts by 20-40% from one process to the next and over seconds within
// one (1000^3 on one thread measured 58-79 GFLOP/s in twelve runs of one binary on the AVX2
// EPYC); Google Benchmark's rows, taken one library after the other, read that drift as a
// difference between the libraries. A ratio taken within each round cancels it.
//
// Each round runs every implementation once, in an order that rotates from round to round, as
// a block: calls until the block lasts block_s (the first call is dropped when there are more,
// since it wakes thread pools), the block's median call kept; calls under 50 us are timed in
// batches (time_block). Before each block the program sleeps gap_s. That is for threads: an
// idle pool keeps its cores spinning for a while after a call (libgomp for its spin count,
// OpenBLAS's pthreads for 2^28 TSC ticks, about 0.1 s), and on a machine with no spare core those
// spinners slow whichever library runs next. On two threads here that cost OpenBLAS a third of its
// speed when it ran straight after wick.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <functional>
#include <thread>
#include <vector>

namespace paired {

struct Options {
  int rounds = 10;
  double block_s = 0;  // 0: one call per block, the tightest pairing
  double gap_s = 0;    // sleep before each block (seconds)
};

inline double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

// The q-quantile (0..1) of v, linear between neighbours.
inline double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(pos);
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

// Calls shorter than this are timed in batches: the clock's own cost (tens of nanoseconds on a
// VM) would otherwise be a visible part of a sub-microsecond call, and not the same part for two
// libraries whose calls differ in length.
constexpr double kMinSampleS = 50e-6;

// One block of `call`: the median seconds per call. The batch doubles until one lasts
// kMinSampleS; samples of smaller batches are dropped.
inline double time_block(const std::function<void()>& call, double block_s) {
  std::vector<double> per_call;
  long batch = 1;
  const double start = now_s();
  for (;;) {
    const double t0 = now_s();
    for (long i = 0; i < batch; ++i) call();
    const double sample = now_s() - t0;
    if (sample < kMinSampleS && batch < (1L << 24)) {
      batch *= 2;
      per_call.clear();
    } else {
      per_call.push_back(sample / static_cast<double>(batch));
    }
    if (!per_call.empty() && now_s() - start >= block_s) break;
  }
  if (per_call.size() > 1) per_call.erase(per_call.begin());
  return median(per_call);
}

// seconds[i][r]: implementation i's seconds per call in round r.
inline std::vector<std::vector<double>> time_interleaved(
    const std::vector<std::function<void()>>& impls, const Options& opt) {
  const size_t n = impls.size();
  std::vector<std::vector<double>> seconds(n);
  for (int r = 0; r < opt.rounds; ++r) {
    for (size_t j = 0; j < n; ++j) {
      const size_t i = (static_cast<size_t>(r) + j) % n;
      if (opt.gap_s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(opt.gap_s));
      seconds[i].push_back(time_block(impls[i], opt.block_s));
    }
  }
  return seconds;
}

// Per round, how many times faster `impl` was than `reference` (reference's time over impl's).
inline std::vector<double> speed_ratios(const std::vector<double>& impl_s,
                                        const std::vector<double>& reference_s) {
  std::vector<double> ratios;
  for (size_t r = 0; r < impl_s.size() && r < reference_s.size(); ++r) {
    if (impl_s[r] > 0) ratios.push_back(reference_s[r] / impl_s[r]);
  }
  return ratios;
}

}  // namespace paired
