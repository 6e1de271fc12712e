#pragma once
/// The live job table of a run: every job's spec (the trace's, then those a JobHook spawned)
/// and status, and how many jobs are in each phase. The phase counts are the only counters of
/// the run: set_phase() keeps them, so "how many are queued" can never disagree with the jobs.
/// It also keeps the jobs and GPUs queued per job type, for the timeline.
///
/// Cost: every operation O(1); spawn() and set_phase() amortized O(1) (the latter keeps the
/// settled prefix, which passes each job once). Specs of spawned jobs live in a deque,
/// so references to them stay valid while more are spawned.
#include <array>
#include <cstdint>
#include <deque>
#include <vector>

#include "sim/model/job.hpp"
#include "sim/run/run_result.hpp"

namespace acmesim {

class JobTable {
 public:
  /// `trace_jobs` must outlive the table (runs share one trace without copying it).
  explicit JobTable(const std::vector<JobSpec>& trace_jobs) : trace_jobs_{trace_jobs}, statuses_(trace_jobs.size()) {
    counts_[index(JobPhase::Pending)] = trace_jobs.size();
  }

  std::size_t size() const { return statuses_.size(); }
  const std::vector<JobSpec>& trace_jobs() const { return trace_jobs_; }
  const JobSpec& spec(JobId id) const {
    return id.value() < trace_jobs_.size() ? trace_jobs_[id.value()] : spawned_[id.value() - trace_jobs_.size()];
  }
  JobStatus& status(JobId id) { return statuses_[id.value()]; }
  const JobStatus& status(JobId id) const { return statuses_[id.value()]; }

  /// Appends a job (Pending) with the next id, which it returns; `spec.id` is set to it.
  JobId add(JobSpec spec) {
    const JobId id{static_cast<std::uint32_t>(statuses_.size())};
    spec.id = id;
    spawned_.push_back(std::move(spec));
    statuses_.emplace_back();
    ++counts_[index(JobPhase::Pending)];
    return id;
  }

  void set_phase(JobId id, JobPhase phase) {
    JobStatus& s = statuses_[id.value()];
    if ((s.phase == JobPhase::Queued) != (phase == JobPhase::Queued)) {
      const JobSpec& job = spec(id);
      const int sign = phase == JobPhase::Queued ? 1 : -1;
      QueuedOfType& queued = queued_by_type_[static_cast<std::size_t>(job.type)];
      queued.jobs = static_cast<std::uint32_t>(static_cast<int>(queued.jobs) + sign);
      queued.gpus += sign * job.demand.gpus;
    }
    --counts_[index(s.phase)];
    ++counts_[index(phase)];
    if (s.phase == JobPhase::Running && phase != JobPhase::Running) ++departures_;
    s.phase = phase;
    if (id.value() == settled_prefix_) advance_settled_prefix();
  }
  std::size_t count(JobPhase phase) const { return counts_[index(phase)]; }
  /// How many times a job has stopped running so far (ended, failed or preempted).
  std::uint64_t departures() const { return departures_; }
  /// Jobs and GPUs queued, per job type (JobType order).
  const std::array<QueuedOfType, kJobTypeCount>& queued_by_type() const { return queued_by_type_; }
  /// Ended or never schedulable: nothing more will happen to the job.
  static bool is_settled(JobPhase phase) { return phase == JobPhase::Ended || phase == JobPhase::Unschedulable; }
  /// How many jobs are settled (is_settled()).
  std::size_t settled() const { return count(JobPhase::Ended) + count(JobPhase::Unschedulable); }
  bool all_settled() const { return settled() == size(); }
  /// How many of the trace's jobs, from the first, are settled: each job is passed once, so
  /// keeping it is O(1) amortized per job (spawned jobs do not count).
  std::size_t settled_prefix() const { return settled_prefix_; }

  /// The end of a run: the statuses and spawned specs move into its result.
  std::vector<JobStatus> take_statuses() { return std::move(statuses_); }
  std::vector<JobSpec> spawned() const { return {spawned_.begin(), spawned_.end()}; }

 private:
  static std::size_t index(JobPhase phase) { return static_cast<std::size_t>(phase); }
  void advance_settled_prefix() {
    while (settled_prefix_ < trace_jobs_.size() && is_settled(statuses_[settled_prefix_].phase)) ++settled_prefix_;
  }

  const std::vector<JobSpec>& trace_jobs_;
  std::deque<JobSpec> spawned_;  // ids trace_jobs_.size() + i
  std::vector<JobStatus> statuses_;
  std::array<std::size_t, kJobPhaseCount> counts_{};  // by JobPhase
  std::array<QueuedOfType, kJobTypeCount> queued_by_type_{};
  std::size_t settled_prefix_ = 0;
  std::uint64_t departures_ = 0;
};

}  // namespace acmesim
