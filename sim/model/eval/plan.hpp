#pragma once
/// What an evaluation policy decides (sim/policy_api/evaluation.hpp) and the evaluation
/// simulation carries out: which trials exist, which dataset pieces each runs in which order,
/// which GPU runs it, and whether the model is staged and metrics run on CPUs.
#include <cstdint>
#include <optional>
#include <vector>

namespace acmesim {

/// Piece `part` of `parts` of a dataset: samples [part*N/parts, (part+1)*N/parts).
struct TrialPiece {
  std::uint32_t dataset = 0;  // index into the suite
  std::uint32_t part = 0;
  std::uint32_t parts = 1;
  friend bool operator==(const TrialPiece&, const TrialPiece&) = default;
};

/// One GPU job: loads the model once, then runs its pieces in order.
struct PlannedTrial {
  std::vector<TrialPiece> pieces;
  /// The GPU (node * gpus_per_node + local index) that must run it, after the GPU's earlier
  /// pinned trials; nullopt = the shared queue, served in order by the lowest-numbered idle GPU.
  std::optional<std::uint32_t> gpu;
  friend bool operator==(const PlannedTrial&, const PlannedTrial&) = default;
};

/// What the cluster scheduler granted to one evaluation request.
struct EvalResources {
  int nodes = 1;
  int gpus_per_node = 8;
  int gpus() const { return nodes * gpus_per_node; }
};

struct EvalPlan {
  /// A precursor per node copies the checkpoint from remote storage into host memory once;
  /// trials on that node then load it over PCIe [Acme §6.2, technique 1].
  bool stage_model = false;
  /// Trials release their GPU after inference; each dataset's metrics run as a CPU job
  /// [Acme §6.2, technique 2]. Otherwise the trial computes them on its GPU.
  bool cpu_metrics = false;
  std::vector<PlannedTrial> trials;  // in submission order
  friend bool operator==(const EvalPlan&, const EvalPlan&) = default;
};

}  // namespace acmesim
