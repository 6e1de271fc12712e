#pragma once
/// One run: owns the engine, the cluster, the job table and the policies, and handles events.
/// Per event, the work is O(log pending events) plus the policy's own cost; nothing here scans
/// the whole trace or cluster (see docs/performance.md).
///
/// The parts: JobTable (specs, statuses, phase counts), Attempts (attempt arithmetic and
/// conservation), Recorder (timeline, downtime, losses, topology, conflicts); the RunResult is
/// assembled from them at the end (run_result.hpp).
#include <boost/container/small_vector.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "sim/core/rng.hpp"
#include "sim/model/cluster.hpp"
#include "sim/model/events.hpp"
#include "sim/model/job.hpp"
#include "sim/model/point_cdf.hpp"
#include "sim/policy_api/job_hook.hpp"
#include "sim/policy_api/policies.hpp"
#include "sim/run/attempts.hpp"
#include "sim/run/job_table.hpp"
#include "sim/run/recorder.hpp"
#include "sim/run/run_result.hpp"

namespace acmesim {

struct Progress {
  double fraction_done;  // jobs ended or rejected / all jobs
  SimTime now;
  std::uint64_t events;
  double wall_seconds;
};

/// The launch latency of the cluster model (Kubernetes: pulling the image and starting the
/// pod's containers after the scheduler bound it). At every start the job holds its resources
/// from the scheduling decision and works only after a latency drawn from `cdf` (whole
/// seconds, rounded up; one draw per start, in start order, from Rng{seed, "cluster/launch"}).
/// `in_duration` says how a recorded duration is read: true (Kalos, [AcmeTrace T6]: no job is
/// shorter than 8 s) means it counts from the decision and already includes the first start's
/// launch, so an uninterrupted job holds exactly its recorded duration and only restarts pay a
/// launch on top (with their restart overhead); false means every start, the first included,
/// pays its launch on top of the work. A launch on top is held like a restart overhead and booked
/// with it (overhead_gpu_ms). Cost: O(points of the CDF) per start.
struct LaunchLatency {
  PointCdf cdf;  // in seconds; empty: no launch latency (Slurm)
  bool in_duration = true;
};

/// The admission latency of the cluster model (Kubernetes: the API server, controllers and
/// scheduler see a new pod some seconds after it is submitted; [AcmeTrace T7]: no Kalos job starts
/// within 4 s of its submission). A submitted job reaches the scheduler after a latency drawn
/// from `cdf` (whole seconds, rounded up; one draw per submission, in submission order, from
/// Rng{seed, "cluster/admission"}); it counts as queueing. Cost: O(points of the CDF) per job.
struct AdmissionLatency {
  PointCdf cdf;  // in seconds; empty: none (Slurm)
};

/// The most timeline samples a run records (~30 MB in memory, ~60 MB of timeline.csv): a
/// 1-second interval over a long trace would otherwise cost memory and time in proportion to
/// simulated time rather than to work. Sampling stops there and the result says so.
inline constexpr std::size_t kMaxTimelineSamples = 1'000'000;

/// Told of the trace's jobs in JobId order as soon as nothing more can happen to them (ended, or
/// never schedulable), while the run goes on: `run` formats and writes jobs.csv's rows on another
/// core during the event loop instead of after it (docs/performance.md). Jobs still queued or
/// running when the run ends, and spawned jobs, are never told; RunResult::jobs has them all.
class SettledJobs {
 public:
  virtual ~SettledJobs() = default;
  /// The statuses of jobs `first`, `first` + 1, ... (each job once, `first` the count told so
  /// far), equal to those RunResult::jobs will hold. Called on the simulation's thread between
  /// events; the span is valid during the call only (copy what is needed).
  virtual void settled(std::size_t first, std::span<const JobStatus> statuses) = 0;
};

struct SimulationOptions {
  Duration timeline_interval = seconds(600);
  std::size_t timeline_max_samples = kMaxTimelineSamples;
  /// Local wall-clock time of day at SimTime 0 (the trace's epoch in its UTC offset), so that
  /// recovery policies can tell night from day. Only the value modulo 24 h matters.
  Duration local_clock_offset{};
  /// Called about every two seconds of wall time on long runs.
  std::function<void(const Progress&)> on_progress;
  /// Not owned; may be null. Called on job starts and ends; may spawn jobs (job_hook.hpp).
  JobHook* hook = nullptr;
  /// Not owned; may be null. Told of settled trace jobs in JobId order (O(1) per job, amortized).
  SettledJobs* settled = nullptr;
  LaunchLatency launch;
  AdmissionLatency admission;
  /// The scenario's seed: the cluster model's own random streams (launch latency) derive from it.
  std::uint64_t seed = 1;
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
  void on(const JobAdmitted& e);
  void on(const JobEnded& e);
  void on(const JobRequeued& e);
  void on(const SchedulingDue& e);
  void on(const SampleDue& e);
  void on(const HookDue& e);
  void on(const NodeFailed& e);
  void on(const NodeRepaired& e);
  /// Feeds the failure model's next node event to the engine (one pending at a time).
  void schedule_next_node_event();
  /// Ends a running job now for good (a node failure under a job no recovery policy covers).
  void end_now(JobId id, FinalState state, FailureReason reason);
  void request_pass(SimTime at);
  void start(JobId id, const Allocation& where);
  /// Takes a running job off its resources; see Interruption. O(nodes of the job + log n).
  void interrupt(JobId id, const Interruption& how);
  /// Frees the job's resources and closes its current attempt's books.
  ClosedAttempt close_attempt(JobId id);
  /// End of the current attempt of a running job if nothing interrupts it (the engine's truth).
  SimTime expected_end(JobId id) const;
  /// The same for the recorded duration: what the scheduler's RunningJobs are ordered by.
  SimTime advertised_end(JobId id) const;
  /// Builds running_jobs_ from the jobs running now and keeps it from then on.
  void keep_running_jobs();
  /// This start's launch latency (0 without a launch model).
  Duration draw_launch();
  void report_progress(std::chrono::steady_clock::time_point wall_start, bool force);
  /// Tells options_.settled of the trace jobs settled since the last call, if any.
  void tell_settled();

  Cluster cluster_;
  JobTable jobs_;
  Attempts attempts_;
  Recorder recorder_;
  Policies policies_;
  SimulationOptions options_;
  SimEngine engine_;
  /// The allocations of running jobs, one slot each, reused after the job stops: memory for the
  /// jobs running at once (at most a few thousand), not for every job. O(1) per start and stop.
  std::vector<Allocation> allocations_;
  std::vector<std::uint32_t> free_slots_;
  std::vector<std::uint32_t> slot_of_;  // by JobId: its slot in allocations_ while it runs
  /// Node -> jobs holding GPUs on it, in start order: what a node failure kills. A node holds at
  /// most G jobs, so updates and lookups are O(jobs on the node).
  std::vector<boost::container::small_vector<JobId, 2>> jobs_on_node_;
  /// Times of the scheduling passes the engine holds, latest first: a request for now (most of
  /// them) is O(log k) and the pass pops the back, O(1); a wake-up later than now inserts in
  /// O(k), k = passes pending (a few: now plus the schedulers' wake-ups). Replaces a
  /// std::set<SimTime>, which allocated a node per pass.
  std::vector<SimTime> pending_passes_;
  /// SchedulingPass::running(), kept from the first call on (keep_running_jobs()); O(log n) per
  /// start and end then. fifo and most schedulers never ask: a tree insert and erase with an
  /// allocation per job were 3 % of a 1M-job replay.
  RunningJobs running_jobs_;
  bool running_jobs_kept_ = false;
  std::string outcome_note_;
  std::size_t told_settled_ = 0;  // trace jobs told to options_.settled
  std::chrono::steady_clock::time_point last_progress_{};
  Rng launch_rng_;
  Rng admission_rng_;
};

}  // namespace acmesim
