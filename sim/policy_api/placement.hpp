#pragma once
/// Placement decides where a job runs, never who runs or when.
#include <optional>

#include "sim/model/cluster.hpp"

namespace acmesim {

class Placement {
 public:
  virtual ~Placement() = default;
  /// Resources for `demand` on up nodes with room, or nullopt if it does not fit now.
  /// Contract: a GPU job gets exactly `demand.nodes` distinct GPU nodes, node i holding
  /// Demand::share(total, nodes, i) of its GPUs, CPUs and its memory per node; a CPU-only job
  /// gets CPU cores (an empty allocation when the cluster does not model CPUs).
  /// Must not modify the cluster.
  virtual std::optional<Allocation> place(const Cluster& cluster, const Demand& demand) const = 0;
};

}  // namespace acmesim
