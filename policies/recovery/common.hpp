#pragma once
/// What the `manual` and `auto` recovery policies share: which job types they cover, the
/// checkpoint cost model and the person who answers at night more slowly than by day.
#include <set>
#include <string>

#include "sim/core/rng.hpp"
#include "sim/policy_api/policy_args.hpp"
#include "sim/policy_api/recovery.hpp"

namespace acmesim::policies {

/// Checkpoint size, stall, persist and restart-load times (docs/failures.md "Checkpoint stalls").
class CheckpointModel {
 public:
  /// `default_async`: the policy's default mode (manual: sync, the pre-FT practice; auto: async).
  CheckpointModel(const PolicyArgs& args, bool default_async);
  bool covers(const JobSpec& job) const { return types_.count(job.type) > 0; }
  CheckpointPlan plan(const JobSpec& job) const;
  /// Initialisation plus loading the checkpoint, paid at each restart.
  Duration restart_overhead(const JobSpec& job) const;
  double size_gb(const JobSpec& job) const;

 private:
  std::set<JobType> types_;
  Duration interval_;
  bool async_;
  double gb_per_gpu_, fixed_gb_, storage_gbps_, async_fixed_s_, host_copy_gbps_per_gpu_, init_s_, load_gbps_;
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
