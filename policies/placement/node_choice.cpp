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

std::optional<Allocation> place_cpu_only(const Cluster& cluster, const Demand& d, NodeOrder order) {
  if (!cluster.cpus_modelled()) return Allocation{};
  const int cpus = d.cpus_per_node_max();
  const int most = cluster.spec().cpus_per_node;
  if (cpus > most) return std::nullopt;
  std::vector<NodeId> chosen;
  const auto full = [&] { return static_cast<int>(chosen.size()) == d.nodes; };
  // CPU-only nodes first, so CPU jobs do not fragment GPU nodes when the cluster has CPU nodes.
  // Fullest first: by (idle CPUs, id) upwards from the fewest that fit; emptiest first: by
  // (idle CPUs, id) downwards. Every node of a bucket with room for the CPUs fits unless its
  // memory is short, which has_room checks.
  for (NodeKind kind : {NodeKind::CpuOnly, NodeKind::Gpu}) {
    for (int step = 0; step <= most - cpus && !full(); ++step) {
      const int idle = order == NodeOrder::FullestFirst ? cpus + step : most - step;
      const NodeSet& bucket = cluster.nodes_with_idle_cpus(kind, idle);
      if (bucket.empty()) continue;
      if (order == NodeOrder::FullestFirst) {
        for (auto it = bucket.begin(); it != bucket.end() && !full(); ++it) {
          if (cluster.has_room(*it, 0, cpus, d.mem_gib_per_node)) chosen.push_back(*it);
        }
      } else {
        for (std::uint32_t id = bucket.previous(NodeSet::end_id() - 1); id != NodeSet::end_id() && !full();
             id = id == 0 ? NodeSet::end_id() : bucket.previous(id - 1)) {
          if (cluster.has_room(NodeId{id}, 0, cpus, d.mem_gib_per_node)) chosen.push_back(NodeId{id});
        }
      }
    }
    if (full()) return build_allocation(cluster, d, chosen);
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
