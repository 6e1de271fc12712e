// Micro-benchmarks of placement on a Seren-sized cluster (286 nodes x 8 GPUs, 128 CPUs per node,
// leaf switches of 16 nodes for `topology`). One item of BM_PlaceCycle is place + take +
// give_back: a job's start and end as the simulation does them, which leaves the cluster as it
// was, so every iteration sees the same state. BM_TakeGiveBack times the idle-resource indexes
// alone, with the allocation `pack` chooses. The background load is built once per occupancy by
// a deterministic churn of mixed-size jobs, so free GPUs are scattered as in a running cluster.
#include <benchmark/benchmark.h>

#include <array>
#include <boost/random/discrete_distribution.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "policies/catalog.hpp"
#include "sim/model/cluster.hpp"

using namespace acmesim;

namespace {

constexpr int kCpusPerGpu = 16;  // Seren's ratio (configs/profiles/seren.yaml), so CPUs never bind first

ClusterSpec seren_spec() {
  ClusterSpec spec;
  spec.gpu_nodes = 286;
  spec.gpus_per_node = 8;
  spec.cpus_per_node = 128;
  spec.nodes_per_switch = 16;  // only `topology` reads it
  return spec;
}

/// A GPU job of `gpus` GPUs: one node up to a node's worth, whole nodes beyond.
Demand gpu_demand(int gpus) {
  const int per_node = seren_spec().gpus_per_node;
  return Demand{(gpus + per_node - 1) / per_node, gpus, gpus * kCpusPerGpu, 0};
}

std::unique_ptr<Placement> make_placement(const std::string& name) {
  return builtin_catalog().placements.make(PolicyArgs::named("placement", name));
}

// Background job sizes and their weights by count: mostly small jobs, as in Seren, with whole-node
// and multi-node jobs holding most of the GPUs.
constexpr std::array<int, 7> kSizes{1, 2, 4, 8, 16, 32, 64};
constexpr std::array<double, 7> kWeights{45, 10, 10, 20, 7, 5, 3};

/// The cluster with `percent`% of its GPUs allocated (a little less: no job overshoots the target),
/// placed by `pack` as the default scenario places them. Built once per level and copied.
const Cluster& loaded_cluster(int percent) {
  static std::map<int, Cluster> built;
  if (auto it = built.find(percent); it != built.end()) return it->second;

  Cluster cluster{seren_spec()};
  const auto pack = make_placement("pack");
  std::mt19937_64 rng{static_cast<std::uint64_t>(percent)};
  boost::random::discrete_distribution<std::size_t> size_of(kWeights.begin(), kWeights.end());
  const int target = cluster.total_gpus() * percent / 100;
  std::vector<Allocation> running;
  const auto fill = [&] {
    // Draws that would overshoot or do not fit are skipped; after 100 of them the cluster counts as full.
    for (int misses = 0; misses < 100 && cluster.allocated_gpus() < target;) {
      const int gpus = kSizes[size_of(rng)];
      auto where = cluster.allocated_gpus() + gpus <= target ? pack->place(cluster, gpu_demand(gpus)) : std::nullopt;
      if (!where) {
        ++misses;
        continue;
      }
      cluster.take(*where);
      running.push_back(std::move(*where));
    }
  };
  fill();
  // Jobs end in random order and new ones take their place: without this churn the free GPUs
  // would all sit on the highest-numbered nodes.
  for (int round = 0; round < 5000 && !running.empty(); ++round) {
    boost::random::uniform_int_distribution<std::size_t> victim{0, running.size() - 1};
    std::swap(running[victim(rng)], running.back());
    cluster.give_back(running.back());
    running.pop_back();
    fill();
  }
  return built.emplace(percent, std::move(cluster)).first->second;
}

/// Counters that let a reader check the state a figure was measured in.
void report_state(benchmark::State& state, const Cluster& cluster) {
  state.counters["occupancy"] = static_cast<double>(cluster.allocated_gpus()) / cluster.total_gpus();
  state.counters["idle_nodes"] = static_cast<double>(cluster.gpu_nodes_with_idle(cluster.spec().gpus_per_node).size());
}

// Arguments: the job's GPUs (1, 8 = one whole node, 64 = eight whole nodes) and the occupancy in %.
const std::vector<std::vector<std::int64_t>> kCases{{1, 8, 64}, {60, 95}};
const std::vector<std::string> kCaseNames{"gpus", "occupancy"};
// At the default minimum of 0.5 s the thirty cases below took over 30 s on a 2-core machine; a
// cycle costs well under 10 us, so 0.2 s still gives 10^5 iterations or more per case.
constexpr double kMinSeconds = 0.2;

void BM_PlaceCycle(benchmark::State& state, const std::string& policy_name) {
  const Demand demand = gpu_demand(static_cast<int>(state.range(0)));
  Cluster cluster = loaded_cluster(static_cast<int>(state.range(1)));
  const auto policy = make_placement(policy_name);
  report_state(state, cluster);
  if (!policy->place(cluster, demand)) {
    state.SkipWithError("the demand does not fit the loaded cluster");
    return;
  }
  for (auto _ : state) {
    const std::optional<Allocation> where = policy->place(cluster, demand);
    if (!where) {
      state.SkipWithError("give_back did not restore the cluster");
      break;
    }
    cluster.take(*where);
    cluster.give_back(*where);
  }
  state.SetItemsProcessed(state.iterations());
}

// Registered in a loop so that benchmark names carry the catalog's policy names ("first-fit").
[[maybe_unused]] const bool kPlaceCyclesRegistered = [] {
  for (const char* name : {"pack", "spread", "first-fit", "topology"}) {
    benchmark::RegisterBenchmark((std::string{"BM_PlaceCycle/"} + name).c_str(), BM_PlaceCycle, std::string{name})
        ->ArgsProduct(kCases)
        ->ArgNames(kCaseNames)
        ->MinTime(kMinSeconds);
  }
  return true;
}();

void BM_TakeGiveBack(benchmark::State& state) {
  Cluster cluster = loaded_cluster(static_cast<int>(state.range(1)));
  const std::optional<Allocation> where =
      make_placement("pack")->place(cluster, gpu_demand(static_cast<int>(state.range(0))));
  report_state(state, cluster);
  if (!where) {
    state.SkipWithError("the demand does not fit the loaded cluster");
    return;
  }
  for (auto _ : state) {
    cluster.take(*where);
    cluster.give_back(*where);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_TakeGiveBack)->ArgsProduct(kCases)->ArgNames(kCaseNames)->MinTime(kMinSeconds);

}  // namespace
