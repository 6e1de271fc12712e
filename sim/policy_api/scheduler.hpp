#pragma once
/// The scheduler contract (Batsim's, run in-process): once per instant, after every other event
/// of that instant, the scheduler sees the settled state and starts what should start.
/// A scheduler owns its queue, so its cost follows what the policy examines, not the whole queue.
#include <optional>

#include "sim/model/cluster.hpp"
#include "sim/model/job.hpp"

namespace acmesim {

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
  /// Starts whatever should start now.
  virtual void select(SchedulingPass& pass) = 0;
};

}  // namespace acmesim
