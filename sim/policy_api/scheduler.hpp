#pragma once
/// The scheduler contract (Batsim's, run in-process): once per instant, after every other event
/// of that instant, the scheduler sees the settled state and starts what should start.
/// A scheduler owns its queue, so its cost follows what the policy examines, not the whole queue.
#include <optional>
#include <set>

#include "sim/model/cluster.hpp"
#include "sim/model/job.hpp"

namespace acmesim {

/// What a real scheduler knows of a job's run so far: its phase, its attempts, the work it kept
/// and the GPU time it held. Not what the outcome model decided (how much work the job will
/// really do before it ends, or fails): a scheduler cannot know a job's future.
struct JobView {
  JobPhase phase = JobPhase::Pending;
  std::uint32_t attempt = 0;       // number of starts
  std::optional<SimTime> started;  // first start
  SimTime attempt_started{};       // start of the current (or last) attempt
  Duration attempt_overhead{};     // restart overhead paid at the start of the current attempt
  Duration done{};                 // work kept from interrupted attempts
  std::int64_t held_gpu_ms = 0;    // GPU time held over all closed attempts
  std::uint32_t preemptions = 0;
  std::uint32_t failures = 0;
};

/// A job holding resources now. `expected_end` is when it would end if nothing interrupts it
/// and it runs its recorded duration (attempt start + restart overhead + the recorded duration
/// left, stretched by checkpoint stalls): the oracle srtf uses. It is not the outcome model's
/// end, so a job that will fail early does not tell the scheduler so.
struct RunningJob {
  SimTime expected_end;
  JobId job;
  auto operator<=>(const RunningJob&) const = default;
};
/// Ordered by (expected end, id). The simulation inserts at start and erases at end or
/// interruption: O(log n) each, n = running jobs.
using RunningJobs = std::set<RunningJob>;

/// Work `job` has done by `now`: kept from earlier attempts plus the current attempt's
/// progress after its restart overhead. Attained GPU service is this times the job's GPUs.
inline Duration work_done(const JobView& job, SimTime now) {
  if (job.phase != JobPhase::Running) return job.done;
  const Duration in_attempt = now - job.attempt_started - job.attempt_overhead;
  return job.done + std::max(Duration{0}, in_attempt);
}

/// What a scheduler sees and may do during one pass. Lives only during select().
class SchedulingPass {
 public:
  virtual ~SchedulingPass() = default;
  virtual SimTime now() const = 0;
  virtual const Cluster& cluster() const = 0;
  virtual const JobSpec& job(JobId id) const = 0;
  /// Where the configured placement would put `job` now, if anywhere.
  virtual std::optional<Allocation> fit(JobId job) const = 0;
  /// Starts `job` on `where` now; later fit() calls see the change.
  virtual void start(JobId job, const Allocation& where) = 0;
  /// Stops running `job` now and returns it to the queue (through Scheduler::requeue, at once
  /// or after `how.requeue_after`), keeping at most `how.keep_at_most` of its current
  /// attempt's progress; its next start pays `how.restart_overhead`. The cause is Preempted.
  virtual void preempt(JobId job, const Interruption& how) = 0;
  /// What the simulation has done to `job` so far (attempts, work kept, ...).
  virtual JobView status(JobId job) const = 0;
  /// Every job holding resources now, by expected end (see RunningJob). The simulation keeps
  /// this set only from the first call on (O(n) then, n = jobs of the run, O(log r) per start
  /// and end after): a scheduler that never asks costs nothing for it.
  virtual const RunningJobs& running() const = 0;
  /// How many jobs hold resources now, O(1): running().size() without the set.
  virtual std::size_t running_count() const = 0;
  /// How many times a job has stopped running since the run began (ended, failed or
  /// preempted), O(1): a scheduler that keeps the count it last saw knows whether any job has
  /// left since.
  virtual std::uint64_t departures() const = 0;
  /// Asks for another pass at `at` (> now) even if nothing else happens then.
  virtual void wake_at(SimTime at) = 0;
  /// Reports that `job` could not start when the policy wanted it to (`replay` uses this).
  virtual void report_conflict(JobId job, SimTime wanted) = 0;
};

class Scheduler {
 public:
  virtual ~Scheduler() = default;
  /// `job` wants resources: newly submitted (it is known to fit an empty cluster).
  virtual void enqueue(const JobSpec& job) = 0;
  /// `job` wants resources again after an interruption (preemption, failure); `status` says
  /// how much work it kept. By default it joins the queue like a new submission.
  virtual void requeue(const JobSpec& job, const JobView& status) {
    (void)status;
    enqueue(job);
  }
  /// Starts whatever should start now.
  virtual void select(SchedulingPass& pass) = 0;
};

}  // namespace acmesim
