#pragma once
/// Jobs: the immutable spec read from a trace, and the mutable status the simulation owns.
/// Both live in vectors indexed by JobId [Design ids].
#include <array>
#include <boost/container/string.hpp>
#include <boost/container/vector.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/id.hpp"
#include "sim/core/time.hpp"
#include "sim/model/failure.hpp"

namespace acmesim {

/// Workload types as AcmeTrace labels them [AcmeTrace README].
enum class JobType : std::uint8_t { Pretrain, Eval, Sft, Mllm, Debug, Other };
inline constexpr std::size_t kJobTypeCount = 6;
inline constexpr std::array<JobType, kJobTypeCount> kJobTypes{JobType::Pretrain, JobType::Eval,  JobType::Sft,
                                                              JobType::Mllm,     JobType::Debug, JobType::Other};

/// Final states of AcmeTrace [AcmeTrace README]: TIMEOUT and NODE_FAIL count as failed in
/// the paper's statistics.
enum class FinalState : std::uint8_t { Completed, Cancelled, Failed, Timeout, NodeFail };
inline constexpr std::size_t kFinalStateCount = 5;
inline constexpr std::array<FinalState, kFinalStateCount> kFinalStates{
    FinalState::Completed, FinalState::Cancelled, FinalState::Failed, FinalState::Timeout, FinalState::NodeFail};

std::string_view name(JobType type);
std::string_view name(FinalState state);
/// Accepts the trace spellings; `Evaluation` is an alias of `Eval`.
std::optional<JobType> parse_job_type(std::string_view text);
std::optional<FinalState> parse_final_state(std::string_view text);

/// What a job asks for, in totals; `node_num` nodes share it evenly (gang-scheduled).
struct Demand {
  int nodes = 1;
  int gpus = 0;
  int cpus = 0;
  int mem_gib_per_node = 0;  // Kalos `mem_per_pod_GB`; Seren records none (0 = not requested)
  float shared_mem_gb = 0;   // Kalos `shared_mem_per_pod`, kept only to be written back; NaN if blank
  bool cpu_only() const { return gpus == 0; }
  /// Share of `total` on the i'th of `nodes` nodes: the remainder goes to the first ones.
  static int share(int total, int nodes, int i) { return total / nodes + (i < total % nodes ? 1 : 0); }
  int gpus_per_node_max() const { return share(gpus, nodes, 0); }
  int cpus_per_node_max() const { return share(cpus, nodes, 0); }
};

/// A trace's own job id. Boost's string keeps up to 22 characters inline in 24 bytes, where
/// std::string keeps 15 in 32: Seren's ids (7 digits) and Kalos's (`dlc` and 13 more) never
/// allocate, and a 1M-job trace holds one per job (docs/performance.md, "Memory per job").
using JobName = boost::container::string;

/// What the trace says about a job; immutable after load. Its fields are ordered so that it has
/// no padding holes (88 bytes).
struct JobSpec {
  JobId id{0};
  UserId user{0};
  std::uint32_t source_line = 0;  // line in the trace file, for messages
  JobType type = JobType::Other;
  FinalState recorded_state = FinalState::Completed;
  Demand demand;
  JobName trace_id;  // the trace's own job_id, for outputs only
  SimTime submitted{};
  Duration runtime{};           // the recorded `duration`: how long it runs once started
  OptionalTime recorded_start;  // used by the `replay` scheduler and for validation
};

/// Pending: not yet submitted. Queued: with the scheduler. Running: holds resources.
/// Waiting: interrupted, out of the queue until its requeue time (e.g. recovering from a failure).
enum class JobPhase : std::uint8_t { Pending, Queued, Running, Waiting, Ended, Unschedulable };
inline constexpr std::size_t kJobPhaseCount = 6;

/// Why a running job lost its resources before its end.
enum class InterruptCause : std::uint8_t { Preempted, Failed };

/// One failure a job went through: an interruption it recovered from, or the one that ended it.
struct FailureRecord {
  FailureReason reason;
  std::int64_t attempt_gpu_ms;  // GPU time of the attempt the failure ended (Table 3's "GPU time")
};

using FailureLog =
    boost::container::vector<FailureRecord, void,
                             boost::container::vector_options_t<boost::container::stored_size<std::uint32_t>>>;

/// What the simulation did to a job. A job needs `work` (its outcome's; by default
/// `JobSpec::runtime`) of work; each attempt
/// (a start) first pays its restart overhead, then works until it ends or is interrupted, and
/// an interruption keeps only the progress its cause allows (a checkpoint, say).
struct JobStatus {
  // The one-byte and four-byte fields first, together, so that the struct has no padding holes
  // (144 bytes; a 1M-job run holds one per job).
  JobPhase phase = JobPhase::Pending;
  FinalState state = FinalState::Completed;
  FailureReason end_reason = FailureReason::None;    // why it ended failed, if it did and it is known
  FailureReason last_failure = FailureReason::None;  // cause of the restart overhead now being paid
  std::uint16_t switch_groups = 0;                   // most leaf-switch groups one attempt spanned (0: not modelled)
  std::uint32_t attempt = 0;                         // number of starts; a JobEnded of an older attempt is stale
  std::uint32_t preemptions = 0;
  std::uint32_t failures = 0;
  std::uint32_t manual_interventions = 0;  // failures a person had to handle

  OptionalTime started;  // first start
  OptionalTime ended;
  Duration work{};  // work to do, set at submission by the outcome model

  SimTime attempt_started{};    // start of the current (or last) attempt
  Duration attempt_overhead{};  // held before working in the current attempt: restart overhead + a launch on top
  Duration next_overhead{};     // restart overhead the next start will pay
  Duration done{};              // work kept from interrupted attempts

  Duration held{};                     // time holding resources, over all attempts
  std::int64_t held_gpu_ms = 0;        // GPU time held over all attempts (what the cluster lent)
  std::int64_t lost_gpu_ms = 0;        // GPU time of work done but not kept, redone later
  std::int64_t overhead_gpu_ms = 0;    // GPU time spent in restart overheads
  std::int64_t checkpoint_gpu_ms = 0;  // GPU time stalled by checkpoints (sync save or async copy)
  Duration recovery_wait{};            // time spent out of the queue recovering from failures
  /// In order; the last may be the end. Empty for most jobs, so a vector (memory only when a job
  /// fails) rather than room for one record in every job, and one with a 32-bit size and
  /// capacity: 16 bytes, where std::vector takes 24.
  FailureLog failure_log;

  /// Work that counts as training done (ETTR): all of it, except that a job a node failure ended
  /// (NODE_FAIL) lost its last attempt and keeps only what it checkpointed before.
  Duration useful_work() const { return state == FinalState::NodeFail ? done : work; }
  /// Of an ended job: end - submission minus the time it held resources, so that time suspended
  /// after a preemption or failure counts as waiting, not only the wait before the first start.
  Duration wait(SimTime submitted) const { return *ended - submitted - held; }
  /// Of an ended job: bounded slowdown, (end - submission) / max(recorded runtime, 10 s), at least
  /// 1 (Feitelson's bound keeps seconds-long jobs from dominating the mean).
  double slowdown(SimTime submitted, Duration runtime) const;
};

/// How an interruption treats a running job (see Simulation::interrupt).
struct Interruption {
  InterruptCause cause = InterruptCause::Preempted;
  /// Upper bound on the progress of the current attempt that is kept (e.g. up to the last
  /// checkpoint); Duration::max() keeps it all.
  Duration keep_at_most = Duration::max();
  /// Paid at the job's next start before any work (restart, reload of the checkpoint).
  Duration restart_overhead{};
  /// Back in the scheduler's queue after this long (0: at once, in the same instant).
  Duration requeue_after{};
  /// For failures: the reason, booked in the job's failure log and the run's losses by cause.
  FailureReason reason = FailureReason::None;
};

}  // namespace acmesim
