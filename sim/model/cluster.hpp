#pragma once
/// The modelled cluster: GPU nodes of G GPUs, C CPU cores and M GiB host memory each, plus
/// optional CPU-only nodes. Resources are counted per node (which GPU of a node a job holds does
/// not change any outcome we model).
///
/// Indexes, kept up to date by take/give_back/set_up, so that "where does this job fit" never
/// scans the whole cluster. Each is an array of NodeSet buckets (node_set.hpp: bitsets in id
/// order, no allocation after construction):
///   gpu_nodes_with_idle(k)   up GPU nodes with exactly k idle GPUs, lowest id first: G+1
///                            buckets, O(1) per update
///   gpu_nodes_with_at_least(k)  how many up GPU nodes have >= k idle GPUs: O(G)
///   nodes_with_idle_cpus(kind, c)  up nodes of a kind with exactly c idle CPUs: C+1 buckets per
///                            kind, O(1) per update
/// A node change (take, give_back, set_up) moves the node between buckets: O(1) per node touched.
/// Memory: G + 1 + 2 (C + 1) buckets of nodes / 8 bytes each (a Seren cluster: about 30 KiB;
/// a million nodes of 8 GPUs and 128 CPUs: 33 MiB).
///
/// Measured (bench/placement_bench.cpp, 286 x 8 GPUs): take + give_back 14-18 ns for a one-node
/// job, 86-93 ns for eight nodes, at 60 % and 95 % occupancy (docs/performance.md).
#include <boost/container/small_vector.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/id.hpp"
#include "sim/model/job.hpp"
#include "sim/model/node_set.hpp"

namespace acmesim {

/// The most nodes of one kind a cluster has: 1,000,000 nodes x 64 GPUs (or x 1,024 CPUs, GPU and
/// CPU nodes together) stay inside an int, the type of every count in the model.
inline constexpr int kMaxNodes = 1'000'000;

struct ClusterSpec {
  int gpu_nodes = 0;
  int gpus_per_node = 8;
  int cpus_per_node = 0;        // 0: CPUs are not modelled (never a constraint)
  int memory_gib_per_node = 0;  // 0: host memory is not modelled
  int cpu_nodes = 0;            // CPU-only nodes, same CPUs and memory as a GPU node
  int nodes_per_switch = 0;     // GPU nodes under one leaf switch (ids i*S..i*S+S-1); 0: not modelled
};

/// One node's part of an allocation.
struct Slice {
  NodeId node;
  std::uint16_t gpus;
  std::uint16_t cpus;
  std::uint32_t mem_gib;
};
using Allocation = boost::container::small_vector<Slice, 1>;

struct Node {
  bool has_gpus;
  bool up = true;
  int idle_gpus;
  int idle_cpus;
  int free_mem_gib;
};

enum class NodeKind : std::uint8_t { Gpu, CpuOnly };

class Cluster {
 public:
  explicit Cluster(const ClusterSpec& spec);

  const ClusterSpec& spec() const { return spec_; }
  std::size_t node_count() const { return nodes_.size(); }
  const Node& node(NodeId id) const { return nodes_[id.value()]; }
  int total_gpus() const { return spec_.gpu_nodes * spec_.gpus_per_node; }
  int allocated_gpus() const { return allocated_gpus_; }
  /// Idle GPUs on nodes that are up: what a scheduler can hand out now. Unlike
  /// total_gpus() - allocated_gpus() it leaves out the idle GPUs of failed nodes. O(1).
  int idle_gpus() const { return idle_gpus_up_; }
  int allocated_cpus() const { return allocated_cpus_; }
  bool cpus_modelled() const { return spec_.cpus_per_node > 0; }
  bool memory_modelled() const { return spec_.memory_gib_per_node > 0; }

  const NodeSet& gpu_nodes_with_idle(int k) const { return by_idle_gpus_[static_cast<std::size_t>(k)]; }
  std::size_t gpu_nodes_with_at_least(int k) const;
  /// Up nodes of `kind` with exactly `c` idle CPUs (c in [0, cpus_per_node]).
  const NodeSet& nodes_with_idle_cpus(NodeKind kind, int c) const {
    return by_idle_cpus_[static_cast<std::size_t>(kind)][static_cast<std::size_t>(c)];
  }

  /// True if node `id` is up and has `gpus` idle GPUs, `cpus` idle cores and `mem_gib` free memory.
  bool has_room(NodeId id, int gpus, int cpus, int mem_gib) const;

  /// Why `demand` can never fit this cluster even when it is empty, or nullopt if it can.
  std::optional<std::string> never_fits(const Demand& demand) const;

  /// Takes the resources of `where`. Throws SimulationError if any part is not free.
  void take(const Allocation& where);
  /// Returns what take() took. Throws SimulationError if more comes back than was taken.
  void give_back(const Allocation& where);
  /// Marks a node up or down; a down node is in no index and fits nothing.
  void set_up(NodeId id, bool up);

 private:
  void unindex(NodeId id);
  void index(NodeId id);
  /// The CPU bucket of a node: its idle CPUs, or 0 when CPUs are not modelled (nothing reads
  /// the CPU index then, and jobs' CPU counts are not checked against the nodes').
  std::size_t cpu_bucket(const Node& n) const { return cpus_modelled() ? static_cast<std::size_t>(n.idle_cpus) : 0; }

  ClusterSpec spec_;
  std::vector<Node> nodes_;
  std::vector<NodeSet> by_idle_gpus_;                 // [k]: up GPU nodes with exactly k idle GPUs
  std::array<std::vector<NodeSet>, 2> by_idle_cpus_;  // [NodeKind][c]: up nodes with exactly c idle CPUs
  int allocated_gpus_ = 0;
  int allocated_cpus_ = 0;
  int idle_gpus_up_ = 0;  // kept by index()/unindex(), which bracket every change of a node
};

}  // namespace acmesim
