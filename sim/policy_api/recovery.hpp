#pragma once
/// Recovery policies: which jobs checkpoint and how (the stall each checkpoint costs), and what
/// happens after a node failure kills a covered job (how long until it is back in the queue,
/// what its restart costs, whether a person was needed). Jobs a policy does not cover are not
/// checkpointed and end NODE_FAIL when a node under them fails.
#include "sim/model/checkpoint.hpp"
#include "sim/model/failure.hpp"
#include "sim/model/job.hpp"

namespace acmesim {

/// What to do with a covered job a failure just killed.
struct RecoveryPlan {
  Duration requeue_after{};     // detection + diagnosis + response: the job waits out of the queue
  Duration restart_overhead{};  // paid at the next start: init + checkpoint load
  bool manual = false;          // a person had to act
};

/// When and how a failure hit, as the recovery policy sees it.
struct FailureContext {
  FailureReason reason = FailureReason::NodeFailure;
  Duration time_of_day{};  // local wall-clock time of day of the failure (the trace's UTC offset)
};

class RecoveryPolicy {
 public:
  virtual ~RecoveryPolicy() = default;
  /// True if the policy checkpoints and restarts `job` (typically pretraining jobs).
  virtual bool covers(const JobSpec& job) const = 0;
  /// Checkpointing of a covered job; asked once, at submission.
  virtual CheckpointPlan checkpointing(const JobSpec& job) const = 0;
  /// After a failure killed covered `job`. Called in event order, so random draws are deterministic.
  virtual RecoveryPlan recover(const JobSpec& job, const FailureContext& failure) = 0;
};

}  // namespace acmesim
