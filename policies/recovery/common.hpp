#pragma once
/// What the `manual` and `auto` recovery policies share: which job types they cover, the
/// checkpoint cost model and the person who answers at night more slowly than by day.
#include <set>
#include <string>

#include "sim/core/rng.hpp"
#include "sim/policy_api/policy_args.hpp"
#include "sim/policy_api/recovery.hpp"

namespace acmesim::policies {

/// Checkpoint size, stall, persist and restart-load times from the model size, the job's node
/// count and bandwidths (docs/failures.md "Checkpoint stalls"). Every figure is O(1) per job.
class CheckpointModel {
 public:
  explicit CheckpointModel(const PolicyArgs& args);
  bool covers(const JobSpec& job) const { return types_.count(job.type) > 0; }
  CheckpointPlan plan(const JobSpec& job) const;
  /// Initialisation plus loading the checkpoint, paid at each restart.
  Duration restart_overhead(const JobSpec& job) const;
  double size_gb(const JobSpec& job) const;
  /// GB/s the job writes to (and reads from) storage: its nodes' storage NICs, capped by what
  /// the storage back end gives one job.
  double storage_gbps(const JobSpec& job) const;
  /// Seconds training stops per checkpoint (sync: the save; async: the snapshot to host memory).
  double stall_s(const JobSpec& job) const;
  /// Progress between checkpoints: fixed, or Young's / Daly's optimum for the job's size.
  Duration interval(const JobSpec& job) const;

 private:
  enum class Rule { Fixed, Young, Daly };
  std::set<JobType> types_;
  Duration fixed_interval_;
  Rule rule_ = Rule::Fixed;
  double interruptions_per_node_day_;
  bool async_;
  bool restore_from_memory_;
  double model_b_, params_b_per_gpu_, bytes_per_param_, fixed_gb_;
  double storage_gbps_, node_storage_gbps_, snapshot_s_, pcie_gbps_, peer_gbps_, init_s_;
};

/// The on-call person: detection, then a response delay drawn log-normal, longer at night.
class Responder {
 public:
  explicit Responder(const PolicyArgs& args);
  /// Detection + response for a failure at local `time_of_day`.
  Duration delay(Rng& rng, Duration time_of_day) const;

 private:
  Duration detect_;
  double day_median_min_, night_median_min_, sigma_;
  int night_start_h_, night_end_h_;
};

}  // namespace acmesim::policies
