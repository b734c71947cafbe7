// distributed.hpp: the one header for data-parallel training with wick (link wick::distributed):
// ProcessGroup and its collectives, DistributedDataParallel, DistributedSampler. A separate
// library on top of wick::wick, built where MPI is found; see docs/distributed.md for how to
// launch (mpirun, one process per GPU) and what has been verified.
#pragma once

#include "wick/distributed/ddp.hpp"
#include "wick/distributed/process_group.hpp"
#include "wick/distributed/sampler.hpp"
