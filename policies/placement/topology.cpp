#include <algorithm>
#include <vector>

#include "policies/placement/node_choice.hpp"
#include "sim/policy_api/placement.hpp"
#include "sim/policy_api/policy_args.hpp"

namespace acmesim::policies {

namespace {

/// `topology`: leaf-switch-aware placement. GPU nodes are grouped under leaf switches of
/// `cluster.nodes_per_switch` consecutive ids. A multi-node job goes inside one group when any
/// group has enough nodes with room: the group with the fewest such nodes that suffices (best
/// fit, so large groups stay whole for large jobs), lowest group first among equals, and in it
/// the fullest nodes first as `pack` chooses. Otherwise it spans as few groups as possible,
/// taking the groups with the most room first. Single-node and CPU-only jobs, and every job
/// when nodes_per_switch is 0, are placed as `pack` places them. jobs.csv records the groups
/// each job spanned (`switch_groups`).
/// Cost of a multi-node placement: O(G + nodes whose idle GPUs fit + groups log groups),
/// read from the cluster's per-idle-count indexes; nodes without enough idle GPUs are never
/// looked at.
class Topology final : public Placement {
 public:
  std::optional<Allocation> place(const Cluster& cluster, const Demand& d) const override {
    const int size = cluster.spec().nodes_per_switch;
    if (d.cpu_only() || d.nodes == 1 || size <= 0) return choose_nodes(cluster, d, NodeOrder::FullestFirst);
    const int gpus = d.gpus_per_node_max();
    const int cpus = cluster.cpus_modelled() ? d.cpus_per_node_max() : 0;
    const int most = cluster.spec().gpus_per_node;
    if (gpus > most || static_cast<int>(cluster.gpu_nodes_with_at_least(gpus)) < d.nodes) return std::nullopt;
    const auto group_count = static_cast<std::size_t>((cluster.spec().gpu_nodes + size - 1) / size);
    std::vector<std::vector<NodeId>> groups(group_count);
    for (int idle = gpus; idle <= most; ++idle) {
      for (NodeId id : cluster.gpu_nodes_with_idle(idle)) {
        if (cluster.has_room(id, gpus, cpus, d.mem_gib_per_node)) {
          groups[id.value() / static_cast<std::uint32_t>(size)].push_back(id);
        }
      }
    }
    const auto need = static_cast<std::size_t>(d.nodes);
    std::size_t best = group_count;
    for (std::size_t g = 0; g < group_count; ++g) {
      if (groups[g].size() >= need && (best == group_count || groups[g].size() < groups[best].size())) best = g;
    }
    std::vector<NodeId> chosen;
    if (best < group_count) {
      chosen.assign(groups[best].begin(), groups[best].begin() + static_cast<std::ptrdiff_t>(need));
      return build_allocation(cluster, d, chosen);
    }
    std::vector<std::size_t> order(group_count);
    for (std::size_t g = 0; g < group_count; ++g) order[g] = g;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return groups[a].size() > groups[b].size(); });
    for (std::size_t g : order) {
      for (NodeId id : groups[g]) {
        chosen.push_back(id);
        if (chosen.size() == need) return build_allocation(cluster, d, chosen);
      }
    }
    return std::nullopt;
  }
};

}  // namespace

std::unique_ptr<Placement> make_topology(const PolicyArgs&) { return std::make_unique<Topology>(); }

}  // namespace acmesim::policies
