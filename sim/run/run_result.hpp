#pragma once
/// What a run produced, assembled once at its end (Simulation::run); every output is written
/// from this (io/outputs.hpp) and every statistic computed from it (sim/metrics/summary.hpp).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/id.hpp"
#include "sim/core/time.hpp"
#include "sim/model/failure.hpp"
#include "sim/model/job.hpp"
#include "sim/policy_api/failure_model.hpp"

namespace acmesim {

/// Jobs waiting in the scheduler's queue, and the GPUs they ask for.
struct QueuedOfType {
  std::uint32_t jobs = 0;
  std::int64_t gpus = 0;
};

struct TimelineSample {
  SimTime at;
  int allocated_gpus = 0;
  int allocated_cpus = 0;
  std::uint32_t running = 0;
  std::uint32_t queued = 0;
  int down_nodes = 0;
  std::array<QueuedOfType, kJobTypeCount> queued_by_type{};  // JobType order

  std::int64_t queued_gpus() const {
    std::int64_t gpus = 0;
    for (const QueuedOfType& q : queued_by_type) gpus += q.gpus;
    return gpus;
  }
};

struct Unschedulable {
  JobId job;
  std::string reason;
};

struct Conflict {
  JobId job;
  SimTime wanted;  // when the policy wanted to start it (replay: the recorded start)
};

struct RunResult {
  std::vector<JobStatus> jobs;  // by JobId: the trace's jobs, then the spawned ones
  std::vector<TimelineSample> timeline;
  bool timeline_truncated = false;  // sampling stopped at SimulationOptions::timeline_max_samples
  std::vector<Unschedulable> unschedulable;
  std::uint64_t conflicts = 0;
  std::vector<Conflict> first_conflicts;  // at most kKeptConflicts
  std::uint64_t unstarted = 0;            // queued when the run ran out of events
  std::uint64_t events = 0;
  std::string fingerprint;
  SimTime first_submit{};
  SimTime last_end{};
  std::int64_t allocated_gpu_ms = 0;  // integral of allocated GPUs over time
  std::vector<JobSpec> spawned;       // jobs a JobHook created, ids from the trace's size on
  // Failures (docs/failures.md): node events from the failure model, node downtime, losses.
  std::uint64_t node_failures = 0;             // node failure events processed
  std::uint64_t node_failures_while_down = 0;  // of which hit a node already down
  std::uint64_t transient_failures = 0;        // of which left the node up (software, network, storage)
  ConfiguredRates configured_rates;            // what the failure model was set to, for reports
  std::uint64_t node_repairs = 0;
  std::array<std::uint64_t, kFailureReasonCount> node_failures_by_reason{};
  std::uint64_t jobs_killed = 0;  // jobs ended NODE_FAIL by a node failure (not covered by recovery)
  std::int64_t down_node_ms = 0;  // integral of down GPU nodes from the first submission to the last end
  /// GPU time lost per failure reason: work redone + restart overheads paid after the failure +
  /// the whole attempt of a job a failure killed for good.
  std::array<std::int64_t, kFailureReasonCount> lost_gpu_ms_by_reason{};
  double wall_seconds = 0;   // not part of any output file (outputs are reproducible)
  int gpu_nodes = 0;         // of the cluster (node availability)
  std::string outcome_note;  // what the outcome model said about itself (e.g. its calibration)

  static constexpr std::size_t kKeptConflicts = 20;
};

}  // namespace acmesim
