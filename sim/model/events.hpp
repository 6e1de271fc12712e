#pragma once
/// The cluster simulation's events and the order of simultaneous ones: (time, phase, sequence).
///
/// Phases within one instant, lowest first (docs/design.md has the reasoning):
///   Release  a job that ends at t frees its resources before anyone looks at the cluster;
///            a node repaired at t is up again
///   Fail     a node failing at t kills the jobs still on it (a job ending at t has ended)
///   Arrive   submissions and requeued jobs at t join the queue before the pass at t
///   Decide   one scheduling pass per instant, on the settled state
///   Observe  timeline samples see the decisions of t
/// Inside a phase, events run in the order they were scheduled (`seq`). Changing this order
/// changes results; the fingerprint test notices.
#include <cstdint>
#include <variant>

#include "sim/core/engine.hpp"
#include "sim/core/id.hpp"
#include "sim/core/time.hpp"

namespace acmesim {

enum class Phase : std::uint8_t { Release = 0, Fail = 1, Arrive = 2, Decide = 3, Observe = 4 };

/// The attempt'th run of `job` reached its end. An event whose attempt no longer matches the
/// job's current attempt is stale and skipped (no search, no removal from the heap).
struct JobEnded {
  static constexpr Phase phase = Phase::Release;
  JobId job;
  std::uint32_t attempt;
  std::uint64_t key() const { return (std::uint64_t{job.value()} << 32) | attempt; }
};

/// `job` is submitted to the scheduler.
struct JobSubmitted {
  static constexpr Phase phase = Phase::Arrive;
  JobId job;
  std::uint64_t key() const { return job.value(); }
};

/// A submitted job reaches the scheduler after the cluster's admission latency.
struct JobAdmitted {
  static constexpr Phase phase = Phase::Arrive;
  JobId job;
  std::uint64_t key() const { return job.value(); }
};

/// An interrupted job returns to the scheduler's queue.
struct JobRequeued {
  static constexpr Phase phase = Phase::Arrive;
  JobId job;
  std::uint32_t attempt;  // the attempt that was interrupted; stale if the job moved on
  std::uint64_t key() const { return (std::uint64_t{job.value()} << 32) | attempt; }
};

/// Run the scheduler. At most one is pending per instant.
struct SchedulingDue {
  static constexpr Phase phase = Phase::Decide;
  std::uint64_t key() const { return 0; }
};

/// Record one timeline sample.
struct SampleDue {
  static constexpr Phase phase = Phase::Observe;
  std::uint64_t key() const { return 0; }
};

/// A JobHook asked to be called back now (sim/policy_api/job_hook.hpp). Arrive phase: jobs it
/// spawns join the queue before this instant's pass.
struct HookDue {
  static constexpr Phase phase = Phase::Arrive;
  std::uint64_t token;
  std::uint64_t key() const { return token; }
};

/// A node comes back from repair (from the failure model; see failure_model.hpp).
struct NodeRepaired {
  static constexpr Phase phase = Phase::Release;
  NodeId node;
  std::uint64_t key() const { return node.value(); }
};

/// A node fails: every job with resources on it is interrupted or killed, and it goes down.
struct NodeFailed {
  static constexpr Phase phase = Phase::Fail;
  NodeId node;
  std::uint8_t reason;     // FailureReason
  bool transient = false;  // the node's jobs are interrupted but the node stays up
  std::uint64_t key() const {
    return ((std::uint64_t{node.value()} << 8) | reason) | (transient ? std::uint64_t{1} << 63 : 0);
  }
};

// New alternatives go at the end: the variant index is folded into the fingerprint.
using EventBody = std::variant<JobEnded, JobSubmitted, JobRequeued, SchedulingDue, SampleDue, HookDue, NodeRepaired,
                               NodeFailed, JobAdmitted>;

using SimEngine = Engine<EventBody>;
using Event = SimEngine::Event;

}  // namespace acmesim
