#pragma once
/// The scheduler contract (Batsim's, run in-process): once per instant, after every other event
/// of that instant, the scheduler sees the settled state and starts what should start.
/// A scheduler owns its queue, so its cost follows what the policy examines, not the whole queue.
#include <optional>
#include <set>

#include "sim/model/cluster.hpp"
#include "sim/model/job.hpp"

namespace acmesim {

/// A job holding resources now. `expected_end` is when it ends if nothing interrupts it (its
/// attempt's start + restart overhead + remaining work): the true end, an oracle that srtf may
/// use; schedulers that must not know it (backfill with estimates) use only the ids and status().
struct RunningJob {
  SimTime expected_end;
  JobId job;
  auto operator<=>(const RunningJob&) const = default;
};
/// Ordered by (expected end, id). The simulation inserts at start and erases at end or
/// interruption: O(log n) each, n = running jobs.
using RunningJobs = std::set<RunningJob>;

/// Work `status` has done by `now`: kept from earlier attempts plus the current attempt's
/// progress after its restart overhead. Attained GPU service is this times the job's GPUs.
inline Duration work_done(const JobStatus& status, SimTime now) {
  if (status.phase != JobPhase::Running) return status.done;
  const Duration in_attempt = now - status.attempt_started - status.attempt_overhead;
  return status.done + std::max(Duration{0}, in_attempt);
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
  virtual const JobStatus& status(JobId job) const = 0;
  /// Every job holding resources now, by expected end (see RunningJob).
  virtual const RunningJobs& running() const = 0;
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
  virtual void requeue(const JobSpec& job, const JobStatus& status) {
    (void)status;
    enqueue(job);
  }
  /// Starts whatever should start now.
  virtual void select(SchedulingPass& pass) = 0;
};

}  // namespace acmesim
