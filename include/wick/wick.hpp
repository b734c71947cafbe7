// wick.hpp: the one header users include. Brings in tensors and ops (core), autograd, nn,
// optim and serialization, and wick::cuda.
#pragma once

#include "wick/cpu.hpp"
#include "wick/cuda.hpp"
#include "wick/debug.hpp"
#include "wick/deterministic.hpp"
#include "wick/linalg.hpp"
#include "wick/matmul_backend.hpp"
#include "wick/ops.hpp"
#include "wick/tensor.hpp"
#include "wick/threads.hpp"
#if __has_include("wick/autograd.hpp")
#include "wick/autograd.hpp"
#endif
#if __has_include("wick/nn.hpp")
#include "wick/nn.hpp"
#endif
#if __has_include("wick/optim.hpp")
#include "wick/optim.hpp"
#endif
#if __has_include("wick/serialize.hpp")
#include "wick/serialize.hpp"
#endif
