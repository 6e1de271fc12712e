// Recovery `none`: no job checkpoints; a node failure ends the jobs on it (NODE_FAIL).
#include "sim/policy_api/policy_args.hpp"
#include "sim/policy_api/recovery.hpp"

namespace acmesim::policies {

namespace {

class NoRecovery final : public RecoveryPolicy {
 public:
  explicit NoRecovery(const PolicyArgs&) {}
  bool covers(const JobSpec&) const override { return false; }
  CheckpointPlan checkpointing(const JobSpec&) const override { return {}; }
  RecoveryPlan recover(const JobSpec&, const FailureContext&) override { return {}; }
};

}  // namespace

std::unique_ptr<RecoveryPolicy> make_no_recovery(const PolicyArgs& args) { return std::make_unique<NoRecovery>(args); }

}  // namespace acmesim::policies
