#pragma once
/// One job's values as jobs.csv reports them, before any formatting: the one definition of each
/// per-job column, shared by the CSV writer (io/outputs) and the Python module's columnar arrays.
/// Times are milliseconds of simulated time; instants are since SimTime 0, the trace's epoch.
///
/// Cost: job_record() is O(1) (the failure log is not copied: format it with failure_log_cell()).
#include <cstdint>
#include <string_view>

#include "sim/model/job.hpp"

namespace acmesim {

/// What became of a job in the run: it ran, it could never fit the cluster, or the run ended first.
enum class RunOutcome : std::uint8_t { Ran, Unschedulable, Unstarted };

inline std::string_view name(RunOutcome outcome) {
  switch (outcome) {
    case RunOutcome::Ran:
      return "ran";
    case RunOutcome::Unschedulable:
      return "unschedulable";
    case RunOutcome::Unstarted:
      return "unstarted";
  }
  return "?";
}

struct JobRecord {
  RunOutcome outcome = RunOutcome::Unstarted;
  /// The simulated final state if the job ran, else the trace's recorded one.
  FinalState state = FinalState::Completed;
  std::int64_t submit_ms = 0;
  // The fields below are meaningful only when ran() (a job that never ran has no start, end,
  // duration, queue or GPU time; its counters are 0).
  std::int64_t start_ms = 0;     // first start
  std::int64_t end_ms = 0;       // end of the last attempt
  std::int64_t duration_ms = 0;  // end - first start
  std::int64_t queue_ms = 0;     // first start - submit
  std::int64_t gpu_time_ms = 0;  // GPU time held over all attempts
  std::int64_t jct_ms = 0;       // end - submit
  std::int64_t wait_ms = 0;      // jct minus the time the job held resources (suspended time counts)
  double slowdown = 1.0;         // bounded slowdown (JobStatus::slowdown)
  double ettr = 1.0;             // useful work / wall time of the attempts
  std::uint32_t attempts = 0;
  std::uint32_t preemptions = 0;
  std::uint32_t failures = 0;
  std::uint32_t manual_interventions = 0;
  std::uint16_t switch_groups = 0;
  std::int64_t lost_gpu_time_ms = 0;
  std::int64_t overhead_gpu_time_ms = 0;
  std::int64_t checkpoint_gpu_time_ms = 0;
  std::int64_t recovery_wait_ms = 0;
  FailureReason failure_reason = FailureReason::None;  // why it ended, if it failed and the cause is known

  bool ran() const { return outcome == RunOutcome::Ran; }
};

inline JobRecord job_record(const JobSpec& spec, const JobStatus& s) {
  JobRecord r;
  r.submit_ms = spec.submitted.time_since_epoch().count();
  if (s.phase != JobPhase::Ended) {
    r.outcome = s.phase == JobPhase::Unschedulable ? RunOutcome::Unschedulable : RunOutcome::Unstarted;
    r.state = spec.recorded_state;
    return r;
  }
  r.outcome = RunOutcome::Ran;
  r.state = s.state;
  r.start_ms = s.started->time_since_epoch().count();
  r.end_ms = s.ended->time_since_epoch().count();
  r.duration_ms = r.end_ms - r.start_ms;
  r.queue_ms = r.start_ms - r.submit_ms;
  r.gpu_time_ms = s.held_gpu_ms;
  r.jct_ms = r.end_ms - r.submit_ms;
  r.wait_ms = s.wait(spec.submitted).count();
  r.slowdown = s.slowdown(spec.submitted, spec.runtime);
  r.ettr = r.duration_ms > 0 ? static_cast<double>(s.useful_work().count()) / static_cast<double>(r.duration_ms) : 1.0;
  r.attempts = s.attempt;
  r.preemptions = s.preemptions;
  r.failures = s.failures;
  r.manual_interventions = s.manual_interventions;
  r.switch_groups = s.switch_groups;
  r.lost_gpu_time_ms = s.lost_gpu_ms;
  r.overhead_gpu_time_ms = s.overhead_gpu_ms;
  r.checkpoint_gpu_time_ms = s.checkpoint_gpu_ms;
  r.recovery_wait_ms = s.recovery_wait.count();
  r.failure_reason = s.end_reason;
  return r;
}

}  // namespace acmesim
