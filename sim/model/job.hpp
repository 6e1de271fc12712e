#pragma once
/// Jobs: the immutable spec read from a trace, and the mutable status the simulation owns.
/// Both live in vectors indexed by JobId (style.md §2.3).
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sim/core/id.hpp"
#include "sim/core/time.hpp"

namespace acmesim {

/// Workload types as AcmeTrace labels them (acme-paper.md §2.2 [R-nb]).
enum class JobType : std::uint8_t { Pretrain, Eval, Sft, Mllm, Debug, Other };
inline constexpr std::size_t kJobTypeCount = 6;
inline constexpr std::array<JobType, kJobTypeCount> kJobTypes{JobType::Pretrain, JobType::Eval, JobType::Sft,
                                                               JobType::Mllm,     JobType::Debug, JobType::Other};

/// Final states of AcmeTrace (acme-paper.md §2.2): TIMEOUT and NODE_FAIL count as failed in
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
  bool cpu_only() const { return gpus == 0; }
  /// Share of `total` on the i'th of `nodes` nodes: the remainder goes to the first ones.
  static int share(int total, int nodes, int i) { return total / nodes + (i < total % nodes ? 1 : 0); }
  int gpus_per_node_max() const { return share(gpus, nodes, 0); }
  int cpus_per_node_max() const { return share(cpus, nodes, 0); }
};

/// What the trace says about a job; immutable after load.
struct JobSpec {
  JobId id{0};
  std::string trace_id;  // the trace's own job_id, for outputs only
  UserId user{0};
  JobType type = JobType::Other;
  Demand demand;
  SimTime submitted{};
  Duration runtime{};  // the recorded `duration`: how long it runs once started
  FinalState recorded_state = FinalState::Completed;
  std::optional<SimTime> recorded_start;  // used by the `replay` scheduler and for validation
  std::uint32_t source_line = 0;          // line in the trace file, for messages
};

enum class JobPhase : std::uint8_t { Pending, Queued, Running, Ended, Unschedulable };

/// What the simulation did to a job.
struct JobStatus {
  JobPhase phase = JobPhase::Pending;
  std::uint32_t attempt = 0;  // bumps on every (re)start; older JobEnded events go stale
  std::optional<SimTime> started;
  std::optional<SimTime> ended;
  FinalState state = FinalState::Completed;
};

}  // namespace acmesim
