#include "sim/model/cluster.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sim/core/error.hpp"

namespace acmesim {

Cluster::Cluster(const ClusterSpec& spec) : spec_{spec} {
  const int total = spec.gpu_nodes + spec.cpu_nodes;
  const NodeSet none(static_cast<std::size_t>(std::max(total, 0)));
  by_idle_gpus_.assign(static_cast<std::size_t>(spec.gpus_per_node) + 1, none);
  for (auto& buckets : by_idle_cpus_)
    buckets.assign(static_cast<std::size_t>(std::max(spec.cpus_per_node, 0)) + 1, none);
  nodes_.reserve(static_cast<std::size_t>(total));
  for (int i = 0; i < total; ++i) {
    const bool gpu = i < spec.gpu_nodes;
    nodes_.push_back(Node{gpu, true, gpu ? spec.gpus_per_node : 0, spec.cpus_per_node, spec.memory_gib_per_node});
    index(NodeId{static_cast<std::uint32_t>(i)});
  }
}

std::size_t Cluster::gpu_nodes_with_at_least(int k) const {
  std::size_t count = 0;
  for (std::size_t idle = static_cast<std::size_t>(std::max(k, 0)); idle < by_idle_gpus_.size(); ++idle) {
    count += by_idle_gpus_[idle].size();
  }
  return count;
}

bool Cluster::has_room(NodeId id, int gpus, int cpus, int mem_gib) const {
  const Node& n = nodes_[id.value()];
  if (!n.up || n.idle_gpus < gpus) return false;
  if (cpus_modelled() && n.idle_cpus < cpus) return false;
  if (memory_modelled() && n.free_mem_gib < mem_gib) return false;
  return true;
}

std::optional<std::string> Cluster::never_fits(const Demand& d) const {
  if (d.nodes < 1) return fmt::format("it asks for {} nodes", d.nodes);
  if (d.cpu_only()) {
    // CPU-only jobs may use CPU-only nodes and GPU nodes alike.
    const int nodes = spec_.gpu_nodes + spec_.cpu_nodes;
    if (cpus_modelled() && d.nodes > nodes) {
      return fmt::format("it asks for {} nodes; the cluster has {}", d.nodes, nodes);
    }
  } else {
    if (d.nodes > spec_.gpu_nodes) {
      return fmt::format("it asks for {} GPU nodes; the cluster has {}", d.nodes, spec_.gpu_nodes);
    }
    if (d.gpus_per_node_max() > spec_.gpus_per_node) {
      return fmt::format("it asks for {} GPUs on one node ({} GPUs on {} nodes); a node has {}", d.gpus_per_node_max(),
                         d.gpus, d.nodes, spec_.gpus_per_node);
    }
  }
  if (cpus_modelled() && d.cpus_per_node_max() > spec_.cpus_per_node) {
    return fmt::format("it asks for {} CPUs on one node ({} CPUs on {} nodes); a node has {}", d.cpus_per_node_max(),
                       d.cpus, d.nodes, spec_.cpus_per_node);
  }
  if (memory_modelled() && d.mem_gib_per_node > spec_.memory_gib_per_node) {
    return fmt::format("it asks for {} GiB of memory per node; a node has {}", d.mem_gib_per_node,
                       spec_.memory_gib_per_node);
  }
  return std::nullopt;
}

void Cluster::unindex(NodeId id) {
  const Node& n = nodes_[id.value()];
  if (!n.up) return;
  idle_gpus_up_ -= n.idle_gpus;
  if (n.has_gpus) by_idle_gpus_[static_cast<std::size_t>(n.idle_gpus)].erase(id);
  by_idle_cpus_[n.has_gpus ? 0 : 1][cpu_bucket(n)].erase(id);
}

void Cluster::index(NodeId id) {
  const Node& n = nodes_[id.value()];
  if (!n.up) return;
  idle_gpus_up_ += n.idle_gpus;
  if (n.has_gpus) by_idle_gpus_[static_cast<std::size_t>(n.idle_gpus)].insert(id);
  by_idle_cpus_[n.has_gpus ? 0 : 1][cpu_bucket(n)].insert(id);
}

void Cluster::take(const Allocation& where) {
  for (const Slice& s : where) {
    if (!has_room(s.node, s.gpus, s.cpus, static_cast<int>(s.mem_gib))) {
      const Node& n = nodes_[s.node.value()];
      throw SimulationError(fmt::format(
          "node {} cannot give {} GPUs, {} CPUs, {} GiB (up={}, idle GPUs {}, idle CPUs {}, free memory {} GiB)",
          s.node.value(), s.gpus, s.cpus, s.mem_gib, n.up, n.idle_gpus, n.idle_cpus, n.free_mem_gib));
    }
    unindex(s.node);
    Node& n = nodes_[s.node.value()];
    n.idle_gpus -= s.gpus;
    n.idle_cpus -= s.cpus;
    n.free_mem_gib -= static_cast<int>(s.mem_gib);
    allocated_gpus_ += s.gpus;
    allocated_cpus_ += s.cpus;
    index(s.node);
  }
}

void Cluster::give_back(const Allocation& where) {
  for (const Slice& s : where) {
    Node& n = nodes_[s.node.value()];
    const int gpu_cap = n.has_gpus ? spec_.gpus_per_node : 0;
    if (n.idle_gpus + s.gpus > gpu_cap || n.idle_cpus + s.cpus > spec_.cpus_per_node ||
        n.free_mem_gib + static_cast<int>(s.mem_gib) > spec_.memory_gib_per_node) {
      throw SimulationError(fmt::format("node {} got back more than it lent ({} GPUs, {} CPUs, {} GiB)", s.node.value(),
                                        s.gpus, s.cpus, s.mem_gib));
    }
    unindex(s.node);
    n.idle_gpus += s.gpus;
    n.idle_cpus += s.cpus;
    n.free_mem_gib += static_cast<int>(s.mem_gib);
    allocated_gpus_ -= s.gpus;
    allocated_cpus_ -= s.cpus;
    index(s.node);
  }
}

void Cluster::set_up(NodeId id, bool up) {
  if (nodes_[id.value()].up == up) return;
  unindex(id);
  nodes_[id.value()].up = up;
  index(id);
}

}  // namespace acmesim
