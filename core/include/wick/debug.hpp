// debug.hpp: switches for catching bugs. With debug fill on, every new allocation on every
// device is filled with 0xFF bytes before use: NaN for floating types, -1 for int64 and an
// invalid value (255) for bool, so an element a kernel forgot to write shows up in a test.
// The op sweep (tests/test_op_sweep.cpp) turns it on. Off by default (it costs a memset).
#pragma once

namespace wick {
void set_debug_fill(bool on);
bool debug_fill();
}  // namespace wick
