// test_runtime.cpp: the CUDA backend around the kernels: device queries, transfers (round
// trips bit-exact, around the 4 MiB staging threshold, non-contiguous on either side, between
// GPUs when there are two; the staged path's chunk boundaries and its parallel host copies at
// several thread counts, the source reused at once, several host threads and an OpenMP team
// copying at once), the Philox stream (CPU == GPU: rand and randn bit-exact), the caching
// allocator (statistics back to their baseline after a training-like loop, no new cudaMalloc once
// warm, empty_cache, peak), the out-of-memory path (a typed error that says what and where, then
// the engine keeps working), and host threads sharing one device.
#include <atomic>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "gpu_test.hpp"

using namespace gpu_test;

namespace {

// A CPU tensor of n elements whose bytes are random (NaN payloads and all, for floats).
Tensor random_bits(int64_t n, Dtype dtype) {
  Tensor t = empty({n}, dtype);
  auto* bytes = static_cast<unsigned char*>(t.raw_data());
  auto& g = rng();
  for (size_t i = 0; i < t.nbytes(); ++i) {
    bytes[i] = static_cast<unsigned char>(g());
    if (dtype == kBool) bytes[i] &= 1;
  }
  return t;
}

bool same_bytes(const Tensor& a, const Tensor& b) {
  return a.nbytes() == b.nbytes() &&
         (a.nbytes() == 0 || std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()) == 0);
}

}  // namespace

TEST_CASE("devices: count, names, current device, synchronize", "[runtime]") {
  REQUIRE(cuda::is_available());
  CHECK(cuda::unavailable_reason().empty());
  REQUIRE(cuda::device_count() >= 1);
  CHECK(!cuda::device_name(0).empty());
  CHECK(cuda::current_device() >= 0);
  CHECK_NOTHROW(cuda::synchronize());
  Tensor t = ones({3}, TensorOptions().device("cuda:0"));
  CHECK(t.device() == Device(kCUDA, 0));
  CHECK(t.device().str() == "cuda:0");
  CHECK_THROWS_AS(ones({3}, TensorOptions().device(Device(kCUDA, cuda::device_count()))),
                  DeviceError);
  CHECK_THROWS_AS(cuda::set_device(cuda::device_count()), DeviceError);
  // A CPU tensor and a GPU tensor do not mix (except 0-d CPU tensors).
  CHECK_THROWS_AS(ones({3}) + t, DeviceError);
  CHECK(((ones({}) + t).to(kCPU).to_vector<float>() == std::vector<float>{2, 2, 2}));
}

TEST_CASE("devices: a bad index is a DeviceError and leaves no CUDA error behind", "[runtime]") {
  const int count = cuda::device_count();
  CHECK_THROWS_AS(cuda::device_name(count), DeviceError);
  CHECK_THROWS_AS(cuda::synchronize(count), DeviceError);
  CHECK_THROWS_AS(cuda::memory_stats(count), DeviceError);
  // A cudaErrorInvalidDevice left in the runtime's last-error slot would fail this op's launch.
  Tensor t = ones({1000}, TensorOptions().device(kCUDA));
  CHECK((t + 1).sum().item<float>() == 2000.0f);
}

TEST_CASE("transfers: round trips are bit-exact at every size", "[runtime][transfer]") {
  constexpr int64_t kMiB = 1 << 20;
  // Around the staging threshold (4 MiB) and its chunk multiples, and odd sizes.
  const std::vector<int64_t> nbytes{0,
                                    1,
                                    4095,
                                    4 * kMiB - 8,
                                    4 * kMiB,
                                    4 * kMiB + 8,
                                    16 * kMiB,
                                    37 * kMiB + 24,
                                    small_run() ? 5 * kMiB : 200 * kMiB};
  for (int64_t bytes : nbytes) {
    for (Dtype dtype : {kFloat32, kInt64, kFloat64}) {
      const int64_t n = bytes / static_cast<int64_t>(element_size(dtype));
      Tensor host = random_bits(n, dtype);
      Tensor device = host.to(kCUDA);
      CHECK(device.is_cuda());
      Tensor back = device.to(kCPU);
      INFO(bytes << " bytes of " << dtype_name(dtype));
      CHECK(same_bytes(host, back));
      // Device to device (same GPU) and back again.
      CHECK(same_bytes(host, device.clone().to(kCPU)));
    }
  }
  Tensor odd = random_bits(5 * kMiB + 3, kBool);
  CHECK(same_bytes(odd, odd.to(kCUDA).to(kCPU)));
}

TEST_CASE("transfers: non-contiguous tensors on either side", "[runtime][transfer]") {
  Tensor base = random_bits(1029 * 917, kFloat32).view({1029, 917});
  Tensor t = base.t();  // transposed on the CPU
  Tensor on_gpu = t.to(kCUDA);
  CHECK(on_gpu.sizes() == t.sizes());
  CHECK(same_bytes(t.contiguous(), on_gpu.to(kCPU).contiguous()));
  // A strided GPU view to the CPU, and a copy_ from the CPU into a strided GPU view.
  Tensor g = base.to(kCUDA);
  Tensor view = g.slice(1, 1, std::nullopt, 2);
  CHECK(same_bytes(base.slice(1, 1, std::nullopt, 2).contiguous(), view.to(kCPU).contiguous()));
  Tensor src = random_bits(1029 * 458, kFloat32).view({1029, 458});
  view.copy_(src);
  CHECK(same_bytes(src, view.to(kCPU).contiguous()));
  // With a cast on the way (ordinary numbers: CUDA and x86 may quiet NaN payloads differently).
  Tensor numbers = randn({1029, 917});
  Tensor wide = numbers.to(kCUDA, kFloat64).to(kCPU);
  CHECK(wide.dtype() == kFloat64);
  CHECK(same_bytes(wide, numbers.to(kFloat64)));
}

namespace {

// Restores wick::set_num_threads' number when a test that changes it ends.
struct ThreadCount {
  int saved = get_num_threads();
  ~ThreadCount() { set_num_threads(saved); }
};

// Round trip of `bytes` random bytes (bfloat16 bit patterns, or bools for an odd count):
// whether both directions gave the bytes back.
bool round_trip(int64_t bytes) {
  const Dtype dtype = bytes % 2 == 0 ? kBFloat16 : kBool;
  const Tensor host = random_bits(bytes / static_cast<int64_t>(element_size(dtype)), dtype);
  return same_bytes(host, host.to(kCUDA).to(kCPU));
}

}  // namespace

TEST_CASE("transfers: staged copies on several threads, at chunk boundaries",
          "[runtime][transfer]") {
  // Staged above 4 MiB in 4 pinned buffers of 8 MiB: copies under 32 MiB are cut into four
  // chunks (a quarter each, rounded up to 64 KiB, at least 1 MiB), larger ones into 8 MiB
  // chunks; each chunk's host copy is split over up to one thread per 512 KiB, in slices cut
  // at 4 KiB. The sizes: just above the threshold, quarters that are not 64 KiB multiples,
  // exactly four full chunks, one more byte or one more chunk and a bit than the buffers
  // hold (the ring wraps), and sizes no thread count divides.
  constexpr int64_t kMiB = 1 << 20;
  const std::vector<int64_t> sizes{4 * kMiB + 1,
                                   4 * kMiB + 4096 * 3 + 2,
                                   5 * kMiB + 3,
                                   8 * kMiB - 4096 + 7,
                                   13 * kMiB + 4094,
                                   32 * kMiB,
                                   32 * kMiB + 1,
                                   40 * kMiB + 4096 * 5 + 6,
                                   small_run() ? 49 * kMiB + 10 : 137 * kMiB + 4097};
  ThreadCount restore;
  for (int threads : {1, 3, 4, 16}) {
    set_num_threads(threads);
    for (int64_t bytes : sizes) {
      INFO(bytes << " bytes, " << threads << " thread(s)");
      CHECK(round_trip(bytes));
    }
  }
}

TEST_CASE("transfers: the source may be reused as soon as to() returns", "[runtime][transfer]") {
  // to(kCUDA) has read the whole source when it returns (pinned copies finished, DMA done):
  // overwriting it at once must not reach the device copy. Also a non-contiguous source
  // large enough to be staged (to() makes it contiguous on the CPU first).
  ThreadCount restore;
  set_num_threads(4);
  Tensor host = random_bits((9 << 20) / 4 + 5, kFloat32);
  const Tensor saved = host.clone();
  const Tensor device = host.to(kCUDA);
  std::memset(host.raw_data(), 0, host.nbytes());
  CHECK(same_bytes(saved, device.to(kCPU)));
  const Tensor base = random_bits(2048 * 1031, kFloat32).view({2048, 1031});
  const Tensor transposed = base.t();
  CHECK(same_bytes(transposed.contiguous(), transposed.to(kCUDA).to(kCPU).contiguous()));
}

TEST_CASE("transfers: staged copies from several host threads at once",
          "[runtime][transfer][threads]") {
  // The staging buffers are shared per device (one mutex): threads take turns, each copy
  // still split over wick's threads. Catch2's assertions are not thread-safe: count.
  ThreadCount restore;
  set_num_threads(3);
  constexpr int kThreads = 4, kRounds = 3;
  std::atomic<int> mismatches{0}, errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        const int64_t bytes = (int64_t{9} << 20) + 4097 * t;
        const Tensor host = [&] {
          static std::mutex rng_mutex;  // random_bits draws from one generator
          std::lock_guard<std::mutex> lock(rng_mutex);
          return random_bits(bytes, kBool);
        }();
        for (int round = 0; round < kRounds; ++round) {
          if (!same_bytes(host, host.to(kCUDA).to(kCPU))) ++mismatches;
        }
      } catch (const std::exception&) {
        ++errors;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  CHECK(errors.load() == 0);
  CHECK(mismatches.load() == 0);
}

#if defined(_OPENMP)
TEST_CASE("transfers: staged copies from inside an OpenMP parallel region",
          "[runtime][transfer][threads]") {
  // A caller's own team: each of its threads copies its own tensor at once; one of them gets
  // wick's pool for its host copies and the others copy alone (thread_pool.hpp), and the
  // results are the same.
  ThreadCount restore;
  set_num_threads(4);
  constexpr int kThreads = 3;
  std::vector<Tensor> inputs;
  for (int t = 0; t < kThreads; ++t) inputs.push_back(random_bits((6 << 20) + 4096 * t + 1, kBool));
  std::atomic<int> mismatches{0}, errors{0}, in_parallel{0};
#pragma omp parallel for num_threads(kThreads) schedule(static, 1)
  for (int t = 0; t < kThreads; ++t) {
    try {
      if (omp_in_parallel()) ++in_parallel;
      if (!same_bytes(inputs[t], inputs[t].to(kCUDA).to(kCPU))) ++mismatches;
    } catch (const std::exception&) {
      ++errors;
    }
  }
  CHECK(errors.load() == 0);
  CHECK(mismatches.load() == 0);
  CHECK(in_parallel.load() == kThreads);
}
#endif

TEST_CASE("transfers: between GPUs", "[runtime]") {
  if (cuda::device_count() < 2) {
    WARN("one GPU: cross-device copies not exercised");
    return;
  }
  Tensor host = random_bits(9 << 20, kFloat32);
  Tensor on0 = host.to(Device(kCUDA, 0));
  Tensor on1 = on0.to(Device(kCUDA, 1));
  CHECK(on1.device() == Device(kCUDA, 1));
  CHECK(same_bytes(host, on1.to(kCPU)));
  CHECK(same_bytes(host, on1.to(Device(kCUDA, 0)).to(kCPU)));
  Tensor numbers = randn({1000, 300});
  CHECK(same_bytes((numbers + 1).contiguous(), (numbers.to(Device(kCUDA, 1)) + 1).to(kCPU)));
}

TEST_CASE("threads: host threads share one device", "[runtime][threads]") {
  // Four threads at once: transfers above the staging threshold (the pinned buffers are
  // shared), the caching allocator, elementwise and reduction kernels and matmul on one device,
  // each against values computed on the CPU before the threads start. Catch2's assertions are
  // not thread-safe: the threads count mismatches, checked after they join.
  constexpr int kThreads = 4, kRounds = 6;
  constexpr int64_t kFloats = (5 << 20) / 4 + 3;  // 5 MiB and a bit: staged in chunks
  std::vector<Tensor> inputs, sums, products;
  for (int t = 0; t < kThreads; ++t) {
    Tensor x = randn({kFloats});
    inputs.push_back(x);
    sums.push_back((x * 3.0).sum());
    Tensor m = x.narrow(0, 0, 64 * 64).view({64, 64});
    products.push_back(matmul(m, m.t()));
  }
  std::atomic<int> mismatches{0}, errors{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      try {
        for (int round = 0; round < kRounds; ++round) {
          const Tensor d = inputs[t].to(kCUDA);
          const Tensor back = d.to(kCPU);
          if (!same_bytes(back, inputs[t])) ++mismatches;
          const double sum = (d * 3.0).sum().item<float>(), want = sums[t].item<float>();
          if (!(std::fabs(sum - want) <= 1e-5 * (std::fabs(want) + 1e3))) ++mismatches;
          const Tensor m = d.narrow(0, 0, 64 * 64).view({64, 64});
          const Tensor got = matmul(m, m.t()).to(kCPU);
          const float worst = (got - products[t]).abs().max().item<float>();
          if (!(worst <= 1e-3f)) ++mismatches;
        }
      } catch (const std::exception&) {
        ++errors;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  CHECK(errors.load() == 0);
  CHECK(mismatches.load() == 0);
  cuda::synchronize();
}

TEST_CASE("random: the GPU draws the CPU's Philox stream", "[runtime]") {
  for (int64_t n : {int64_t{1}, int64_t{3}, int64_t{4}, int64_t{5}, int64_t{1029 * 917}}) {
    for (Dtype dtype : {kFloat32, kFloat64}) {
      INFO(n << " values of " << dtype_name(dtype));
      manual_seed(1234);
      Tensor cpu_u = rand({n}, dtype), cpu_n = randn({n}, dtype), cpu_u2 = rand({n}, dtype);
      manual_seed(1234);
      const TensorOptions on_gpu = TensorOptions().dtype(dtype).device(kCUDA);
      Tensor gpu_u = rand({n}, on_gpu), gpu_n = randn({n}, on_gpu), gpu_u2 = rand({n}, on_gpu);
      // rand: the same integer -> float map on both devices: bit-exact.
      CHECK(same_bytes(cpu_u, gpu_u.to(kCPU)));
      CHECK(same_bytes(cpu_u2, gpu_u2.to(kCPU)));
      // randn: Box-Muller with philox.hpp's own log and sincos, built without FMA contraction
      // on both devices (random.cu with -fmad=false): bit-exact too.
      CHECK(same_bytes(cpu_n, gpu_n.to(kCPU)));
    }
    // bfloat16 rand: k / 256 from the same float32 stream, so bit-exact too.
    manual_seed(99);
    Tensor cpu_b = rand({n}, kBFloat16);
    manual_seed(99);
    CHECK(same_bytes(cpu_b, rand({n}, TensorOptions(kBFloat16).device(kCUDA)).to(kCPU)));
  }
}

TEST_CASE("allocator: a training-like loop returns the statistics to their baseline", "[runtime]") {
  cuda::synchronize();
  cuda::empty_cache();
  const MemoryStats base = cuda::memory_stats();
  int64_t device_allocs_after_warmup = -1;
  {
    Tensor w = (randn({512, 256}, TensorOptions().device(kCUDA)) * 0.05).requires_grad_(true);
    Tensor b = zeros({256}, TensorOptions().device(kCUDA)).requires_grad_(true);
    for (int step = 0; step < 6; ++step) {
      Tensor x = randn({128, 512}, TensorOptions().device(kCUDA));
      Tensor target = randn({128, 256}, TensorOptions().device(kCUDA));
      Tensor y = (x.matmul(w) + b).relu();
      Tensor loss = ((y - target) * (y - target)).mean();
      loss.backward();
      {
        NoGradGuard no_grad;
        w.sub_(w.grad() * 0.01);
        b.sub_(b.grad() * 0.01);
        w.mutable_grad().zero_();
        b.mutable_grad().zero_();
      }
      CHECK(std::isfinite(loss.item<float>()));
      if (step == 1) device_allocs_after_warmup = cuda::memory_stats().num_device_allocs;
    }
    // Warm: later steps reuse cached blocks instead of calling cudaMalloc.
    CHECK(cuda::memory_stats().num_device_allocs == device_allocs_after_warmup);
    CHECK(cuda::memory_allocated() > base.allocated_bytes);
    CHECK(cuda::max_memory_allocated() >= cuda::memory_allocated());
  }
  const MemoryStats after = cuda::memory_stats();
  CHECK(after.allocated_bytes == base.allocated_bytes);
  CHECK(after.reserved_bytes >= after.allocated_bytes);
  cuda::empty_cache();
  CHECK(cuda::memory_stats().reserved_bytes == base.reserved_bytes);
  cuda::reset_peak_memory_stats();
  CHECK(cuda::max_memory_allocated() == cuda::memory_allocated());
}

TEST_CASE("allocator: asking for more than the device has is a typed error", "[runtime][oom]") {
  const MemoryStats before = cuda::memory_stats();
  const int64_t too_much = int64_t{1} << 50;  // 1 PiB
  std::string message;
  try {
    Tensor t = empty({too_much}, TensorOptions().dtype(kBool).device(kCUDA));
    FAIL("allocated 1 PiB");
  } catch (const OutOfMemoryError& e) {
    message = e.what();
  }
  INFO(message);
  CHECK(message.find("CUDA out of memory") != std::string::npos);
  CHECK(message.find("cuda:0") != std::string::npos);
  CHECK(message.find("free of") != std::string::npos);
  CHECK(message.find("wick holds") != std::string::npos);
  const MemoryStats after = cuda::memory_stats();
  CHECK(after.num_ooms == before.num_ooms + 1);
  CHECK(after.allocated_bytes == before.allocated_bytes);
  // The engine keeps working.
  Tensor small = ones({1000}, TensorOptions().device(kCUDA));
  CHECK(small.sum().item<float>() == 1000.0f);
}

TEST_CASE("allocator: a request that fits only without the cache releases it and succeeds",
          "[runtime][oom]") {
  // Three quarters of the free memory allocated, then freed (wick caches it), then a request of
  // half: it fits only once the cache goes back to the driver, which the allocator must do
  // before it reports out of memory (PyTorch's free-and-retry).
  cuda::synchronize();
  cuda::empty_cache();
  const auto [free_before, total] = cuda::mem_get_info();
  REQUIRE(free_before > 0);
  REQUIRE(free_before <= total);
  const int64_t quarter = free_before / 4 / (int64_t{2} << 20) * (int64_t{2} << 20);
  const MemoryStats before = cuda::memory_stats();
  {
    std::vector<Tensor> held;
    for (int i = 0; i < 3; ++i)
      held.push_back(empty({quarter}, TensorOptions(kBool).device(kCUDA)));
  }
  CHECK(cuda::memory_allocated() == before.allocated_bytes);
  CHECK(cuda::memory_reserved() >= before.reserved_bytes + 3 * quarter);
  CHECK(cuda::mem_get_info().first < 2 * quarter);  // not free without the cache
  Tensor big = empty({2 * quarter}, TensorOptions(kBool).device(kCUDA));
  const MemoryStats after = cuda::memory_stats();
  CHECK(after.num_ooms == before.num_ooms);
  CHECK(after.num_device_frees >= before.num_device_frees + 3);
  CHECK(after.allocated_bytes >= before.allocated_bytes + 2 * quarter);
  big = Tensor();
  cuda::empty_cache();
  CHECK(cuda::mem_get_info().first >= free_before - (int64_t{64} << 20));
}

TEST_CASE("allocator: zero-size tensors and tensors of every size class", "[runtime]") {
  for (int64_t n : {int64_t{0}, int64_t{1}, int64_t{127}, int64_t{1} << 18, int64_t{3} << 20}) {
    Tensor t = full({n}, 2.0, TensorOptions().device(kCUDA));
    CHECK(t.numel() == n);
    CHECK(t.sum().item<double>() == 2.0 * static_cast<double>(n));
  }
}

// Defined by the CPU emulator's fake runtime only (tests/cuda/emulator): null on a real GPU,
// where cuBLAS can't be made to fail on demand.
extern "C" void wick_fake_cublas_fail_allocs(int n) __attribute__((weak));

TEST_CASE("cuBLAS: a failed workspace allocation releases the cache and retries once",
          "[runtime]") {
  if (wick_fake_cublas_fail_allocs == nullptr) {
    WARN("not checked: only the CPU emulator's runtime can make cuBLAS fail to allocate");
    return;
  }
  const MatmulBackend previous = matmul_backend();
  set_matmul_backend(MatmulBackend::Cublas);
  const TensorOptions on_gpu = TensorOptions().device(kCUDA);
  Tensor a = ones({8, 8}, on_gpu), b = ones({8, 8}, on_gpu);
  { Tensor big = empty({1 << 20}, on_gpu); }  // freed into the cache
  cuda::synchronize();
  const int64_t reserved = cuda::memory_stats().reserved_bytes;
  wick_fake_cublas_fail_allocs(1);
  CHECK(matmul(a, b).to(kCPU).to_vector<float>() == std::vector<float>(64, 8.0f));
  CHECK(cuda::memory_stats().reserved_bytes < reserved);  // the cache was released
  wick_fake_cublas_fail_allocs(2);                        // fails again on the retry
  CHECK_THROWS_WITH(matmul(a, b), Catch::Contains("ALLOC") || Catch::Contains("emulated"));
  wick_fake_cublas_fail_allocs(0);
  CHECK(matmul(a, b).to(kCPU).to_vector<float>() == std::vector<float>(64, 8.0f));
  set_matmul_backend(previous);
}
