#pragma once
/// The evaluation simulation's events (its own set; the cluster simulation's are in
/// sim/model/events.hpp). Run by the generic acmesim::Engine in (time, phase, seq) order.
///
/// Phases within one instant: everything that ends at t (transfers, GPU steps, metric jobs)
/// is one phase, handled in scheduling order; each handler starts what follows at once, so no
/// separate decision phase is needed.
#include <cstdint>
#include <variant>

#include "sim/core/engine.hpp"

namespace acmesim::eval {

enum class Phase : std::uint8_t { End = 0 };

/// The storage NIC of `node` may have finished a transfer. Carries the node's sharing version
/// at scheduling time: any change to the set of transfers on the node bumps the version and
/// reschedules, so an event with an old version is stale and skipped (no heap search).
struct TransferDue {
  static constexpr Phase phase = Phase::End;
  std::uint32_t node;
  std::uint64_t version;
  std::uint64_t key() const { return (std::uint64_t{node} << 40) ^ version; }
};

/// The current step of `gpu`'s trial (model init, a piece, or an on-GPU metric) ends.
struct GpuStepDone {
  static constexpr Phase phase = Phase::End;
  std::uint32_t gpu;
  std::uint64_t key() const { return gpu; }
};

/// The CPU metric job of `dataset` ends.
struct MetricDone {
  static constexpr Phase phase = Phase::End;
  std::uint32_t dataset;
  std::uint64_t key() const { return dataset; }
};

using EventBody = std::variant<TransferDue, GpuStepDone, MetricDone>;
using EvalEngine = Engine<EventBody>;

}  // namespace acmesim::eval
