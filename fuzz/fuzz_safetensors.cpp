// fuzz_safetensors.cpp: libFuzzer target for the safetensors reader (nn/serialize.cpp). Any
// bytes go in as a file; wick::load_tensors and wick::load_metadata must return a tensor map
// or throw a wick::Error, never crash, hang, leak or allocate more than the file could hold.
// A file that loads is also saved again and re-read: the second load must give the same
// names, shapes, dtypes and bytes (save/load round trip on whatever the fuzzer invented).
// Seeds: fuzz/corpus/safetensors (made by fuzz/make_seeds.py); JSON tokens for mutations:
// fuzz/safetensors.dict. Run by .ci/fuzz.sh; see docs/reliability.md.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "wick/wick.hpp"

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "\nfuzz_safetensors: FAILED: %s\n", what.c_str());
  std::abort();
}

// One scratch folder per process (libFuzzer's -fork and -jobs run several at once).
const std::filesystem::path& scratch() {
  static const std::filesystem::path dir = [] {
    const char* base = std::getenv("TMPDIR");
    std::filesystem::path p = std::filesystem::path(base ? base : "/tmp") /
                              ("wick-fuzz-safetensors-" + std::to_string(::getpid()));
    std::filesystem::create_directories(p);
    return p;
  }();
  return dir;
}

template <typename Fn>
bool returns_or_wick_error(const char* what, Fn&& fn) {
  try {
    fn();
    return true;
  } catch (const wick::Error&) {
    return false;
  } catch (const std::exception& e) {
    fail(std::string(what) + " threw a non-wick exception " + typeid(e).name() + ": " + e.what());
  } catch (...) {
    fail(std::string(what) + " threw something that is not a std::exception");
  }
}

void expect_same(const std::map<std::string, wick::Tensor>& a,
                 const std::map<std::string, wick::Tensor>& b) {
  if (a.size() != b.size()) fail("round trip changed the number of tensors");
  for (const auto& [name, t] : a) {
    auto it = b.find(name);
    if (it == b.end()) fail("round trip lost tensor '" + name + "'");
    const wick::Tensor& u = it->second;
    if (t.sizes() != u.sizes() || t.dtype() != u.dtype()) {
      fail("round trip changed " + name + ": " + wick::describe(t) + " vs " + wick::describe(u));
    }
    if (t.nbytes() != u.nbytes() ||
        (t.nbytes() > 0 && std::memcmp(t.raw_data(), u.raw_data(), t.nbytes()) != 0)) {
      fail("round trip changed the bytes of '" + name + "'");
    }
  }
}

}  // namespace

// Big requests must come back as OutOfMemoryError, as from malloc, instead of ASan aborting.
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1"; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::filesystem::path file = scratch() / "input.safetensors";
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) fail("cannot write the scratch file " + file.string());
  }
  std::map<std::string, wick::Tensor> tensors;
  const bool loaded =
      returns_or_wick_error("load_tensors", [&] { tensors = wick::load_tensors(file); });
  std::map<std::string, std::string> metadata;
  const bool meta_loaded =
      returns_or_wick_error("load_metadata", [&] { metadata = wick::load_metadata(file); });
  // The header is validated in full before any data is read, so a file whose tensors load
  // also has readable metadata (the converse does not hold: BOOL bytes are checked later).
  if (loaded && !meta_loaded) fail("load_tensors accepted a file that load_metadata rejected");
  if (!loaded) return 0;
  for (const auto& [name, t] : tensors) {
    if (name.empty() || name == "__metadata__") fail("a tensor named '" + name + "'");
    if (!t.is_cpu() || !t.is_contiguous()) fail("tensor '" + name + "' is not contiguous cpu");
    if (t.dtype() == wick::kBool) {
      const auto* bytes = static_cast<const unsigned char*>(t.raw_data());
      for (int64_t i = 0; i < t.numel(); ++i) {
        if (bytes[i] > 1) fail("BOOL tensor '" + name + "' holds a byte that is not 0 or 1");
      }
    }
  }
  // Round trip.
  const std::filesystem::path again = scratch() / "again.safetensors";
  if (!returns_or_wick_error("save", [&] { wick::save(tensors, again, metadata); })) {
    fail("save() rejected tensors that load_tensors() returned");
  }
  std::map<std::string, wick::Tensor> reloaded;
  std::map<std::string, std::string> reloaded_metadata;
  if (!returns_or_wick_error("reload", [&] {
        reloaded = wick::load_tensors(again);
        reloaded_metadata = wick::load_metadata(again);
      })) {
    fail("load_tensors() rejected the file save() wrote");
  }
  expect_same(tensors, reloaded);
  if (metadata != reloaded_metadata) fail("round trip changed __metadata__");
  return 0;
}
