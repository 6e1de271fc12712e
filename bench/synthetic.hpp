#pragma once
/// A quick Acme-like job stream for benchmarks and the bundled sample trace: Poisson arrivals,
/// the Seren type mix and per-type GPU demand and log-normal durations loosely following
/// acme-paper.md §2.4-2.6. It is not calibrated (the workload generator of `acmesim synth` is);
/// it only has to load the simulator the way a Seren trace does.
#include <cstdint>
#include <vector>

#include "sim/trace/acme_trace.hpp"

namespace acmesim::bench {

struct SyntheticOptions {
  std::size_t jobs = 100000;
  double days = 184;  // Seren's six months (acme-paper.md §2.1)
  std::uint64_t seed = 1;
};

/// Jobs sorted by submission with ids == index, users named u0..u199, epoch 2023-03-01 +08:00.
Trace synthetic_trace(const SyntheticOptions& options);

}  // namespace acmesim::bench
