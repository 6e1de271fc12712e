#pragma once
/// A hook through which a model outside the cluster simulation reacts to job starts and ends,
/// creates jobs during a run and asks to be called back later. Checkpoint evaluation uses it
/// (sim/run/cluster_eval.hpp): a pretraining job's checkpoints spawn evaluation trials.
///
/// The simulation calls the hook after it has finished its own bookkeeping for the event, so a
/// hook may spawn jobs from any callback. Spawned jobs get ids after the trace's, in spawn order,
/// and are submitted at the current instant (they join the queue before that instant's pass).
#include <cstdint>

#include "sim/model/job.hpp"

namespace acmesim {

class HookContext {
 public:
  virtual ~HookContext() = default;
  virtual SimTime now() const = 0;
  /// Creates a job and submits it now. The simulation sets `id` and `submitted`; the returned
  /// id is the new job's. The job must fit the empty cluster.
  virtual JobId spawn(JobSpec spec) = 0;
  /// Calls JobHook::on_due(token) at `at` (>= now), in the Arrive phase of that instant.
  virtual void call_at(SimTime at, std::uint64_t token) = 0;
};

class JobHook {
 public:
  virtual ~JobHook() = default;
  /// Once, before the first event; now() is the first trace submission.
  virtual void on_run_start(HookContext&) {}
  virtual void on_job_started(const JobSpec&, HookContext&) {}
  virtual void on_job_ended(const JobSpec&, HookContext&) {}
  virtual void on_due(std::uint64_t /*token*/, HookContext&) {}
};

}  // namespace acmesim
