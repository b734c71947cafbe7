// nn.hpp: the nn layer in one include: Module and its handles, layers, losses, gradient
// clipping (nn::utils), and the safetensors save/load (wick/serialize.hpp). See docs/nn.md; tested
// by tests/nn.
#pragma once

#include "wick/nn/activation.hpp"
#include "wick/nn/attention.hpp"
#include "wick/nn/batchnorm.hpp"
#include "wick/nn/conv.hpp"
#include "wick/nn/conv1d.hpp"
#include "wick/nn/conv_transpose.hpp"
#include "wick/nn/distance.hpp"
#include "wick/nn/embedding.hpp"
#include "wick/nn/embedding_bag.hpp"
#include "wick/nn/groupnorm.hpp"
#include "wick/nn/init.hpp"
#include "wick/nn/instancenorm.hpp"
#include "wick/nn/layers.hpp"
#include "wick/nn/loss.hpp"
#include "wick/nn/loss_likelihood.hpp"
#include "wick/nn/loss_pointwise.hpp"
#include "wick/nn/module.hpp"
#include "wick/nn/padding.hpp"
#include "wick/nn/pooling.hpp"
#include "wick/nn/rnn.hpp"
#include "wick/nn/transformer.hpp"
#include "wick/nn/upsample.hpp"
#include "wick/nn/utils.hpp"
#include "wick/serialize.hpp"

namespace wick::nn {
namespace F = functional;  // nn::F::cross_entropy, as torch.nn.functional
}  // namespace wick::nn
