#pragma once
/// The search shared by `pack` and `spread`: walk the cluster's idle-resource indexes in one
/// direction and take the first nodes with room. Cost: O(G + nodes examined), where a node is
/// examined only if its GPU count already fits, so a scan of the whole cluster happens only when
/// CPUs or memory, not GPUs, are what is short.
#include <optional>
#include <vector>

#include "sim/model/cluster.hpp"

namespace acmesim::policies {

enum class NodeOrder {
  FullestFirst,   // fewest idle resources that still fit: keeps whole nodes free for big jobs
  EmptiestFirst,  // most idle resources first: spreads load, leaves fragments
};

std::optional<Allocation> choose_nodes(const Cluster& cluster, const Demand& demand, NodeOrder order);

/// The allocation of `demand` on `nodes` (node i gets its share, Demand::share).
Allocation build_allocation(const Cluster& cluster, const Demand& demand, const std::vector<NodeId>& nodes);

}  // namespace acmesim::policies
