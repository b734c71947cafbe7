// serialize.hpp: saving and loading tensors and modules as safetensors files (the format of
// huggingface/safetensors: an 8-byte little-endian header length, a JSON header naming each
// tensor's dtype, shape and data_offsets, then the raw little-endian bytes). Writes are atomic
// (a temporary file in the same folder, fsync, rename), so a failed save leaves the old file.
// Loads validate the whole header before reading data (docs/nn.md lists every rule) and throw
// a wick::Error kind on any bad file; they never crash on one. Tested in
// tests/nn/test_serialize.cpp and, against PyTorch, by tests/nn/interop.py.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "wick/nn/module.hpp"
#include "wick/tensor.hpp"

namespace wick {

// A file that cannot be opened, read, written, synced or renamed; the message names the path
// and the system's reason.
class IOError : public Error {
  using Error::Error;
};
// A file that is not a valid safetensors file; the message names the path and the rule broken.
class FormatError : public Error {
  using Error::Error;
};

// The largest JSON header a load accepts (as the reference implementation: 100 MB).
inline constexpr uint64_t kMaxSafetensorsHeaderBytes = 100'000'000;

// Writes the tensors (any device, any strides; float32, float64, bfloat16, int64 or bool) to
// `path`. metadata goes in the header's "__metadata__" (string to string). Tensor names must be
// non-empty and not "__metadata__".
void save(const std::map<std::string, Tensor>& tensors, const std::filesystem::path& path,
          const std::map<std::string, std::string>& metadata = {});
// Reads every tensor of a safetensors file, as contiguous CPU tensors.
std::map<std::string, Tensor> load_tensors(const std::filesystem::path& path);
// Reads the "__metadata__" map of a safetensors file (empty when it has none).
std::map<std::string, std::string> load_metadata(const std::filesystem::path& path);

// Writes module.named_parameters() ("linear.weight", ...) and named_buffers() (the state_dict)
// with metadata {"format": "pt"}.
void save(const nn::Module& module, const std::filesystem::path& path);
// Reads a file written by save(module) (or by PyTorch's safetensors from a state_dict) into the
// module's parameters and buffers, in place and on their devices. The file's names must be
// exactly the module's parameter and buffer names, with the same shapes and dtypes (ValueError, ShapeError,
// DtypeError otherwise); nothing is changed unless everything matches.
void load(nn::Module& module, const std::filesystem::path& path);

template <typename Impl>
void save(const nn::ModuleHolder<Impl>& module, const std::filesystem::path& path) {
  save(*module, path);
}
template <typename Impl>
void load(nn::ModuleHolder<Impl>& module, const std::filesystem::path& path) {
  load(*module, path);
}

}  // namespace wick
