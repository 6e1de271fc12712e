#pragma once
/// One run: owns the engine, the cluster, the job statuses and the policies, and handles events.
/// Per event, the work is O(log pending events) plus the policy's own cost; nothing here scans
/// the whole trace or cluster (see docs/performance.md).
#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "sim/model/checkpoint.hpp"
#include "sim/model/cluster.hpp"
#include "sim/model/events.hpp"
#include "sim/model/job.hpp"
#include "sim/policy_api/policies.hpp"
#include "sim/policy_api/job_hook.hpp"

namespace acmesim {

struct TimelineSample {
  SimTime at;
  int allocated_gpus;
  int allocated_cpus;
  std::uint32_t running;
  std::uint32_t queued;
};

struct Unschedulable {
  JobId job;
  std::string reason;
};

struct Conflict {
  JobId job;
  SimTime wanted;  // when the policy wanted to start it (replay: the recorded start)
};

struct Progress {
  double fraction_done;  // jobs ended or rejected / all jobs
  SimTime now;
  std::uint64_t events;
  double wall_seconds;
};

/// Everything a run produced; outputs are written from this (io/outputs.hpp).
struct RunResult {
  std::vector<JobStatus> jobs;  // by JobId
  std::vector<TimelineSample> timeline;
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
  std::uint64_t node_failures = 0;            // node failure events processed
  std::uint64_t node_failures_while_down = 0;  // of which hit a node already down
  std::uint64_t node_repairs = 0;
  std::array<std::uint64_t, kFailureReasonCount> node_failures_by_reason{};
  std::uint64_t jobs_killed = 0;  // jobs ended NODE_FAIL by a node failure (not covered by recovery)
  std::int64_t down_node_ms = 0;  // integral of down GPU nodes from the first submission to the last end
  /// GPU time lost per failure reason: work redone + restart overheads paid after the failure +
  /// the whole attempt of a job a failure killed for good.
  std::array<std::int64_t, kFailureReasonCount> lost_gpu_ms_by_reason{};
  double wall_seconds = 0;            // not part of any output file (outputs are reproducible)
  int gpu_nodes = 0;                  // of the cluster (node availability)
  std::string outcome_note;           // what the outcome model said about itself (e.g. its calibration)

  static constexpr std::size_t kKeptConflicts = 20;
};

struct SimulationOptions {
  Duration timeline_interval = seconds(600);
  /// Local wall-clock time of day at SimTime 0 (the trace's epoch in its UTC offset), so that
  /// recovery policies can tell night from day. Only the value modulo 24 h matters.
  Duration local_clock_offset{};
  /// Called about every two seconds of wall time on long runs.
  std::function<void(const Progress&)> on_progress;
  /// Not owned; may be null. Called on job starts and ends; may spawn jobs (job_hook.hpp).
  JobHook* hook = nullptr;
};

class Simulation {
public:
  /// `jobs` must be sorted by submission time with id == index, as read_acme_trace returns
  /// them; it must outlive the simulation (runs share one trace without copying it).
  /// Throws SimulationError if a slot of `policies` is null.
  Simulation(const ClusterSpec& cluster, const std::vector<JobSpec>& jobs, Policies policies,
             SimulationOptions options = {});
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  /// Runs to the end and checks conservation (every job ended once, GPU time adds up).
  RunResult run();

private:
  class Pass;
  class Hooks;
  void on(const JobSubmitted& e);
  void on(const JobEnded& e);
  void on(const JobRequeued& e);
  void on(const SchedulingDue& e);
  void on(const SampleDue& e);
  void on(const HookDue& e);
  /// The spec of a trace job or of a spawned one.
  const JobSpec& spec(JobId id) const;
  std::size_t total_jobs() const { return jobs_.size() + spawned_.size(); }
  void on(const NodeFailed& e);
  void on(const NodeRepaired& e);
  /// Feeds the failure model's next node event to the engine (one pending at a time).
  void schedule_next_node_event();
  /// Ends a running job now for good (a node failure under a job no recovery policy covers).
  void end_now(JobId id, FinalState state, FailureReason reason);
  /// The current attempt's split into work, checkpoint stalls and durably kept work, now.
  AttemptSplit current_split(JobId id) const;
  void account_nodes();
  void request_pass(SimTime at);
  void start(JobId id, const Allocation& where);
  /// Takes a running job off its resources; see Interruption. O(nodes of the job + log n).
  void interrupt(JobId id, const Interruption& how);
  /// Closes the current attempt's books: GPU time held, overhead, checkpoint stalls, work.
  AttemptSplit close_attempt(JobId id);
  /// End of the current attempt of a running job if nothing interrupts it.
  SimTime expected_end(JobId id) const;
  void account_allocation();
  void check_conservation() const;
  void report_progress(std::chrono::steady_clock::time_point wall_start, bool force);

  const std::vector<JobSpec>& jobs_;
  std::deque<JobSpec> spawned_;  // ids jobs_.size() + i; a deque keeps references stable
  Cluster cluster_;
  Policies policies_;
  SimulationOptions options_;
  SimEngine engine_;
  RunResult result_;
  std::vector<Allocation> allocations_;  // by JobId, while running
  std::vector<CheckpointPlan> checkpoints_;  // by JobId; set at submission for covered jobs
  std::vector<char> covered_;                // by JobId: the recovery policy restarts it
  /// Node -> jobs holding GPUs on it, in start order: what a node failure kills. A node holds at
  /// most G jobs, so updates and lookups are O(jobs on the node).
  std::vector<boost::container::small_vector<JobId, 2>> jobs_on_node_;
  int down_nodes_ = 0;
  SimTime nodes_accounted_{};
  std::size_t submitted_ = 0;
  std::uint32_t waiting_ = 0;
  std::set<SimTime> pending_passes_;
  RunningJobs running_jobs_;  // SchedulingPass::running(); O(log n) per start and end
  std::size_t settled_ = 0;  // jobs ended or rejected
  std::uint32_t running_ = 0;
  std::uint32_t queued_ = 0;
  SimTime last_accounted_{};
  std::chrono::steady_clock::time_point last_progress_{};
};

}  // namespace acmesim
