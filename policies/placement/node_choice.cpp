#include "policies/placement/node_choice.hpp"

#include <algorithm>
#include <vector>

namespace acmesim::policies {

Allocation build_allocation(const Cluster& cluster, const Demand& d, const std::vector<NodeId>& nodes) {
  Allocation where;
  const int n = static_cast<int>(nodes.size());
  for (int i = 0; i < n; ++i) {
    where.push_back(Slice{nodes[static_cast<std::size_t>(i)], static_cast<std::uint16_t>(Demand::share(d.gpus, n, i)),
                          static_cast<std::uint16_t>(cluster.cpus_modelled() ? Demand::share(d.cpus, n, i) : 0),
                          static_cast<std::uint32_t>(cluster.memory_modelled() ? d.mem_gib_per_node : 0)});
  }
  return where;
}

namespace {

/// An iterator pair rather than a std::ranges::subrange: clang 14 (the fuzzing build) cannot
/// instantiate libstdc++ 12's subrange of set iterators.
template <class Iterator>
void take_from(const Cluster& cluster, Iterator first, Iterator last, const Demand& d, int gpus, int cpus,
               std::vector<NodeId>& chosen) {
  for (; first != last; ++first) {
    const auto& entry = *first;
    if (static_cast<int>(chosen.size()) == d.nodes) return;
    const NodeId id = entry.second;
    if (cluster.has_room(id, gpus, cpus, d.mem_gib_per_node)) chosen.push_back(id);
  }
}

std::optional<Allocation> place_cpu_only(const Cluster& cluster, const Demand& d, NodeOrder order) {
  if (!cluster.cpus_modelled()) return Allocation{};
  const int cpus = d.cpus_per_node_max();
  std::vector<NodeId> chosen;
  // CPU-only nodes first, so CPU jobs do not fragment GPU nodes when the cluster has CPU nodes.
  for (NodeKind kind : {NodeKind::CpuOnly, NodeKind::Gpu}) {
    const Cluster::CpuIndex& index = cluster.by_idle_cpus(kind);
    if (order == NodeOrder::FullestFirst) {
      const auto first = index.lower_bound({cpus, NodeId{0}});
      take_from(cluster, first, index.end(), d, 0, cpus, chosen);
    } else {
      take_from(cluster, index.rbegin(), index.rend(), d, 0, cpus, chosen);
    }
    if (static_cast<int>(chosen.size()) == d.nodes) return build_allocation(cluster, d, chosen);
  }
  return std::nullopt;
}

}  // namespace

std::optional<Allocation> choose_nodes(const Cluster& cluster, const Demand& d, NodeOrder order) {
  if (d.cpu_only()) return place_cpu_only(cluster, d, order);
  const int gpus = d.gpus_per_node_max();
  const int cpus = cluster.cpus_modelled() ? d.cpus_per_node_max() : 0;
  const int most = cluster.spec().gpus_per_node;
  if (gpus > most || static_cast<int>(cluster.gpu_nodes_with_at_least(gpus)) < d.nodes) return std::nullopt;
  std::vector<NodeId> chosen;
  chosen.reserve(static_cast<std::size_t>(d.nodes));
  for (int step = 0; step <= most - gpus; ++step) {
    const int idle = order == NodeOrder::FullestFirst ? gpus + step : most - step;
    for (NodeId id : cluster.gpu_nodes_with_idle(idle)) {
      if (cluster.has_room(id, gpus, cpus, d.mem_gib_per_node)) {
        chosen.push_back(id);
        if (static_cast<int>(chosen.size()) == d.nodes) return build_allocation(cluster, d, chosen);
      }
    }
  }
  return std::nullopt;
}

}  // namespace acmesim::policies
