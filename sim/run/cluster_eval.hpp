#pragma once
/// Checkpoint evaluation inside the cluster simulation (a JobHook, sim/policy_api/job_hook.hpp):
/// every running pretraining job (type Pretrain, at least `min_pretrain_gpus` GPUs) writes a
/// checkpoint every `checkpoint_interval` after it starts; each checkpoint is an evaluation
/// request that the evaluation policy turns into a plan, and every planned trial becomes a
/// single-GPU Eval job submitted to the same cluster queue as every other job.
///
/// A trial's runtime is what it holds its GPU for in the evaluation model (sim/model/eval/eval_sim.hpp)
/// run for the request on `plan_resources` idle GPUs: load (with the NIC sharing among the
/// request's own trials), init, pieces, and on-GPU metrics. The cluster then decides when each
/// trial starts. With a staged model the trials are submitted after the precursor's copy (one
/// NIC transfer). A dataset's metrics end `metric` after the last of its pieces ends inference
/// (CPU metrics), or inside the trial that ran them. Feedback latency = checkpoint written ->
/// all metrics computed.
///
/// Cost per checkpoint: one evaluation-model run (O(events log events), ~1 ms for 63 datasets).
#include <cstdint>
#include <string>
#include <vector>

#include "sim/model/eval/eval_sim.hpp"
#include "sim/policy_api/evaluation.hpp"
#include "sim/policy_api/job_hook.hpp"

namespace acmesim {

/// A pretraining run added to the workload (beside the trace's own pretraining jobs).
struct PretrainingRun {
  Duration start_offset{};  // after the first trace submission
  int gpus = 256;
  Duration length{};
};

struct ClusterEvalConfig {
  Duration checkpoint_interval = seconds(4 * 3600);
  int min_pretrain_gpus = 64;
  std::int64_t checkpoint_bytes = 14'600'000'000;
  const EvalSuite* suite = nullptr;
  const EvaluationPolicy* policy = nullptr;
  EvalResources plan_resources{4, 8};
  EvalHardware hardware;
  double noise_sigma = 0.2;
  std::uint64_t seed = 1;
  int cpus_per_gpu = 16;  // [Acme Table 1]: Seren jobs ask 16 CPUs per GPU
  int gpus_per_node = 8;  // of the cluster, to shape pretraining runs into whole nodes
  std::vector<PretrainingRun> pretraining;
};

struct CheckpointRecord {
  JobId source{0};    // the pretraining job
  SimTime written{};  // checkpoint time
  std::uint32_t trials = 0;
  SimTime first_start{};  // first trial started
  SimTime done{};         // last metric computed
  std::int64_t gpu_ms = 0;
  bool complete = false;
  Duration latency() const { return done - written; }
};

class ClusterEvaluation final : public JobHook {
 public:
  explicit ClusterEvaluation(ClusterEvalConfig config);

  void on_run_start(HookContext& ctx) override;
  void on_job_started(const JobSpec& job, HookContext& ctx) override;
  void on_job_ended(const JobSpec& job, HookContext& ctx) override;
  void on_due(std::uint64_t token, HookContext& ctx) override;

  const std::vector<CheckpointRecord>& checkpoints() const { return checkpoints_; }
  /// GPU time of every evaluation trial spawned (all ran to completion at the end of a run).
  std::int64_t eval_gpu_ms() const;

 private:
  struct Trial {
    std::uint32_t checkpoint;
    std::uint32_t index;  // in the plan
  };
  struct Request {
    EvalPlan plan;
    EvalResult idle;                   // the evaluation model's run, for offsets
    std::vector<SimTime> trial_start;  // in the cluster, by plan index
    std::uint32_t started = 0;
    std::uint32_t ended = 0;
  };
  enum class DueKind : std::uint8_t { Checkpoint, SubmitTrials, StartPretraining };
  struct Due {
    DueKind kind;
    std::uint32_t ref;         // job id (checkpoint), checkpoint index (submit), run index (pretraining)
    std::uint32_t generation;  // of the job, for checkpoints: stale if it restarted or ended
  };
  struct PretrainState {
    std::uint32_t generation = 0;
    bool running = false;
    SimTime ends{};
  };

  std::uint64_t due(Due d);
  void checkpoint(JobId job, HookContext& ctx);
  void submit_trials(std::uint32_t checkpoint, HookContext& ctx);
  void finish(std::uint32_t checkpoint);

  ClusterEvalConfig config_;
  std::vector<Due> dues_;                     // by token
  std::vector<PretrainState> pretrain_;       // by job id (grown on demand)
  std::vector<std::optional<Trial>> trials_;  // by job id (grown on demand)
  std::vector<Request> requests_;             // by checkpoint index
  std::vector<CheckpointRecord> checkpoints_;
};

}  // namespace acmesim
