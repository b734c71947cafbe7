// cuda.hpp: wick::cuda, the questions a user asks about GPUs. In a build without CUDA, or on a
// machine without a driver or device, these answer "no device" and say why; asking for a CUDA
// tensor then throws a DeviceError carrying the same reason.
#pragma once

#include <string>
#include <utility>

#include "wick/backend.hpp"

namespace wick::cuda {

bool is_available();
// Why is_available() is false ("wick was built without CUDA", "CUDA driver not found",
// "no CUDA device"); empty when it is true.
std::string unavailable_reason();
int device_count();
int current_device();
void set_device(int index);
std::string device_name(int index = -1);
DeviceProperties get_device_properties(int index = -1);
void synchronize(int index = -1);
MemoryStats memory_stats(int index = -1);
int64_t memory_allocated(int index = -1);
int64_t memory_reserved(int index = -1);
int64_t max_memory_allocated(int index = -1);
void reset_peak_memory_stats(int index = -1);
void empty_cache();
// (free, total) bytes of the device as the driver counts them, other processes' use included
// (torch.cuda.mem_get_info). Needs a device: without one, a DeviceError saying why.
std::pair<int64_t, int64_t> mem_get_info(int index = -1);

}  // namespace wick::cuda
