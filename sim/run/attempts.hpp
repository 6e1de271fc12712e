#pragma once
/// The arithmetic of attempts: a job's attempt (one start) first pays its restart overhead, then
/// works, stalled by its checkpoints (sim/model/checkpoint.hpp), until it ends or is
/// interrupted. This class owns each job's checkpoint plan, opens and closes attempts on the
/// job's status, and checks at the end of a run that every job did exactly its work and that
/// the GPU time jobs held is the GPU time the cluster lent (conservation).
///
/// Cost: every operation on one job O(1); check_conservation O(jobs), once per run.
#include <cstdint>
#include <vector>

#include "sim/model/checkpoint.hpp"
#include "sim/model/job.hpp"
#include "sim/run/job_table.hpp"

namespace acmesim {

/// What closing an attempt booked on the job, for the run's loss accounting.
struct ClosedAttempt {
  AttemptSplit split;                // work, stall and durably kept work of the attempt
  std::int64_t held_gpu_ms = 0;      // GPU time the attempt held (Table 3's "GPU time" of a failure)
  std::int64_t overhead_gpu_ms = 0;  // GPU time of the restart overhead it paid
};

class Attempts {
 public:
  explicit Attempts(std::size_t jobs) : plans_(1), plan_of_(jobs, 0) {}

  void add_job() { plan_of_.push_back(0); }
  /// The job is covered by recovery (restarted after a failure), with this checkpoint plan.
  void set_plan(JobId id, const CheckpointPlan& plan) {
    plan_of_[id.value()] = static_cast<std::uint32_t>(plans_.size());
    plans_.push_back(plan);
  }
  /// Whether set_plan() was called for the job.
  bool covered(JobId id) const { return plan_of_[id.value()] != 0; }

  /// Opens an attempt of `status` now: it pays the overhead its last interruption left, and
  /// `launch` (the cluster's launch latency) before any work, unless `launch_in_duration` and
  /// this is the job's first start: then the launch is the first part of its recorded duration
  /// and adds no time.
  static void open(JobStatus& status, SimTime now, Duration launch = Duration{0}, bool launch_in_duration = true);

  /// When the current attempt ends if nothing interrupts it, given the work it must reach:
  /// restart overhead, then the work left stretched by the checkpoint stalls on the way.
  SimTime end_of(JobId id, const JobStatus& status, Duration work) const;

  /// The current attempt's split into work, checkpoint stalls and durably kept work, at `now`.
  AttemptSplit split(JobId id, const JobStatus& status, SimTime now) const;

  /// Closes the current attempt's books at `now`: GPU time held, overhead, checkpoint stalls
  /// and the attempt's work go onto the status.
  ClosedAttempt close(JobId id, JobStatus& status, int gpus, SimTime now) const;

  /// Of a job whose last attempt `last_attempt` just closed at `now` with its end: throws
  /// SimulationError unless it did exactly its work and every GPU-ms it held was useful work,
  /// lost work, restart overhead or checkpoint stall. Checked at each end, so that no job keeps
  /// its last attempt's work for a check at the end of the run.
  static void check_finished(const JobSpec& spec, const JobStatus& status, const ClosedAttempt& last_attempt,
                             SimTime now);

  /// Throws SimulationError if a job is left mid-run or the jobs did not hold `lent_gpu_ms` in
  /// all.
  static void check_conservation(const JobTable& jobs, std::int64_t lent_gpu_ms);

 private:
  const CheckpointPlan& plan(JobId id) const { return plans_[plan_of_[id.value()]]; }

  /// The plans of covered jobs only (most jobs are not: 4 bytes each here instead of a plan);
  /// plans_[0] is the empty plan of every job recovery does not cover.
  std::vector<CheckpointPlan> plans_;
  std::vector<std::uint32_t> plan_of_;  // by JobId: index into plans_, 0 if not covered
};

}  // namespace acmesim
