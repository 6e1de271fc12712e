#pragma once
/// `acmesim eval-cluster FILE`: checkpoint evaluation inside a cluster run (sim/run/cluster_eval.hpp).
/// The file names a cluster scenario and says how pretraining jobs checkpoint and how their
/// checkpoints are evaluated; each evaluation policy gets its own run of the same workload.
///
///   scenario: ../default.yaml          # cluster, trace, scheduler, placement (relative to this file)
///   set: [scheduler=acme]              # optional --set style overrides, paths relative to this file
///   suite: opencompass63.yaml          # relative to this file
///   model_gb: 14.6
///   checkpoint_interval_h: 4
///   min_pretrain_gpus: 64
///   plan_nodes: 4                      # GPUs the coordinator plans for: plan_nodes x gpus_per_node
///   noise: 0.2
///   policies: [coupled, decoupled]     # names or {name: ..., params}
///   pretraining: [{start_h: 0, gpus: 1024, hours: 168}]
#include <string>
#include <vector>

#include "io/scenario.hpp"
#include "sim/policy_api/catalog.hpp"
#include "sim/run/cluster_eval.hpp"

namespace acmesim {

struct EvalClusterPolicyResult {
  std::string policy;
  std::vector<CheckpointRecord> checkpoints;
  std::int64_t eval_gpu_ms = 0;        // the spawned trials'
  std::int64_t trace_eval_gpu_ms = 0;  // Eval jobs of the trace, for scale
  std::int64_t all_gpu_ms = 0;         // every job's
  std::string fingerprint;
  std::uint64_t events = 0;
};

struct EvalClusterConfig;
struct EvalClusterPolicy;
struct Trace;

/// One run of the file's workload under one evaluation policy. `run`, if given, receives the
/// cluster run's result.
EvalClusterPolicyResult eval_cluster_run(const EvalClusterConfig& config, const Trace& trace,
                                         const EvalClusterPolicy& policy, const Catalog& catalog,
                                         RunResult* run = nullptr);

/// Feedback latency of one policy's checkpoints, in minutes: written -> every metric computed.
struct EvalLatency {
  std::size_t checkpoints = 0;
  double mean = 0, median = 0, p95 = 0, max = 0;  // nearest-rank percentiles
  double first_wait_mean = 0;                     // written -> first trial started
};
EvalLatency eval_latency(const EvalClusterPolicyResult& result);

/// Runs the file's workload once per policy, with `overrides` (--set, --seed) applied. `out_dir`
/// empty = write nothing.
std::vector<EvalClusterPolicyResult> eval_cluster(const std::string& file, const Catalog& catalog,
                                                  const std::string& out_dir,
                                                  const std::vector<ScenarioOverride>& overrides = {});
std::string eval_cluster_table(const std::vector<EvalClusterPolicyResult>& results);
int run_eval_cluster(const std::string& file, const std::string& out_dir, const Catalog& catalog,
                     const std::vector<ScenarioOverride>& overrides = {});

}  // namespace acmesim
