#include <vector>

#include "policies/placement/node_choice.hpp"
#include "sim/policy_api/placement.hpp"
#include "sim/policy_api/policy_args.hpp"

namespace acmesim::policies {

namespace {

/// `first-fit`: the lowest-numbered nodes with room, whatever their load (the classic
/// first-fit allocator of Batsim and Alea). GPU jobs: a merge, in id order, of the cluster's
/// per-idle-count node sets that have enough idle GPUs; cost O(G x nodes examined), and only
/// nodes whose GPUs fit are examined. CPU-only jobs are placed as `pack` places them (an
/// id-ordered walk of CPU room would scan the cluster).
class FirstFit final : public Placement {
 public:
  std::optional<Allocation> place(const Cluster& cluster, const Demand& d) const override {
    if (d.cpu_only()) return choose_nodes(cluster, d, NodeOrder::FullestFirst);
    const int gpus = d.gpus_per_node_max();
    const int cpus = cluster.cpus_modelled() ? d.cpus_per_node_max() : 0;
    const int most = cluster.spec().gpus_per_node;
    if (gpus > most || static_cast<int>(cluster.gpu_nodes_with_at_least(gpus)) < d.nodes) return std::nullopt;
    // One cursor per bucket of idle GPUs that fits; repeatedly take the lowest id among them.
    using It = NodeSet::const_iterator;
    std::vector<std::pair<It, It>> cursors;
    for (int idle = gpus; idle <= most; ++idle) {
      const auto& bucket = cluster.gpu_nodes_with_idle(idle);
      if (!bucket.empty()) cursors.push_back({bucket.begin(), bucket.end()});
    }
    std::vector<NodeId> chosen;
    while (static_cast<int>(chosen.size()) < d.nodes) {
      std::pair<It, It>* best = nullptr;
      for (auto& c : cursors) {
        if (c.first != c.second && (!best || *c.first < *best->first)) best = &c;
      }
      if (!best) return std::nullopt;
      const NodeId id = *best->first;
      ++best->first;
      if (cluster.has_room(id, gpus, cpus, d.mem_gib_per_node)) chosen.push_back(id);
    }
    return build_allocation(cluster, d, chosen);
  }
};

}  // namespace

std::unique_ptr<Placement> make_first_fit(const PolicyArgs&) { return std::make_unique<FirstFit>(); }

}  // namespace acmesim::policies
