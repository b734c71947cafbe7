// optim.hpp: the optimizers in one include: SGD, Adam, AdamW, RMSprop, Adagrad, their Options,
// and the learning-rate schedulers. Formulas in docs/nn.md and each header; tested by tests/nn
// (test_optim.cpp, test_parity.cpp).
#pragma once

#include "wick/optim/adagrad.hpp"
#include "wick/optim/adam.hpp"
#include "wick/optim/optimizer.hpp"
#include "wick/optim/rmsprop.hpp"
#include "wick/optim/schedulers.hpp"
#include "wick/optim/sgd.hpp"
