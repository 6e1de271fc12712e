#pragma once
/// One run: owns the engine, the cluster, the job statuses and the policies, and handles events.
/// Per event, the work is O(log pending events) plus the policy's own cost; nothing here scans
/// the whole trace or cluster (see docs/performance.md).
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "sim/model/cluster.hpp"
#include "sim/model/events.hpp"
#include "sim/model/job.hpp"
#include "sim/policy_api/catalog.hpp"
#include "sim/policy_api/job_hook.hpp"

namespace acmesim {

struct Scenario;

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

/// Everything a run produced; outputs are written from this (sim/metrics/outputs.hpp).
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
  double wall_seconds = 0;            // not part of any output file (outputs are reproducible)

  static constexpr std::size_t kKeptConflicts = 20;
};

struct SimulationOptions {
  Duration timeline_interval = seconds(600);
  /// Called about every two seconds of wall time on long runs.
  std::function<void(const Progress&)> on_progress;
  /// Not owned; may be null. Called on job starts and ends; may spawn jobs (job_hook.hpp).
  JobHook* hook = nullptr;
};

class Simulation {
public:
  /// `jobs` must be sorted by submission time with id == index, as read_acme_trace returns
  /// them; it must outlive the simulation (runs share one trace without copying it).
  Simulation(const ClusterSpec& cluster, const std::vector<JobSpec>& jobs, std::unique_ptr<Scheduler> scheduler,
             std::unique_ptr<Placement> placement, SimulationOptions options = {});
  /// Builds the policies the scenario names from `catalog`.
  Simulation(const Scenario& scenario, const std::vector<JobSpec>& jobs, const Catalog& catalog,
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
  void request_pass(SimTime at);
  void start(JobId id, const Allocation& where);
  /// Takes a running job off its resources; see Interruption. O(nodes of the job + log n).
  void interrupt(JobId id, const Interruption& how);
  /// Closes the current attempt's books: GPU time held and the work it did.
  Duration close_attempt(JobId id);
  void account_allocation();
  void check_conservation() const;
  void report_progress(std::chrono::steady_clock::time_point wall_start, bool force);

  const std::vector<JobSpec>& jobs_;
  std::deque<JobSpec> spawned_;  // ids jobs_.size() + i; a deque keeps references stable
  Cluster cluster_;
  std::unique_ptr<Scheduler> scheduler_;
  std::unique_ptr<Placement> placement_;
  SimulationOptions options_;
  SimEngine engine_;
  RunResult result_;
  std::vector<Allocation> allocations_;  // by JobId, while running
  std::set<SimTime> pending_passes_;
  std::size_t settled_ = 0;  // jobs ended or rejected
  std::uint32_t running_ = 0;
  std::uint32_t queued_ = 0;
  SimTime last_accounted_{};
  std::chrono::steady_clock::time_point last_progress_{};
};

}  // namespace acmesim
