// Recovery `manual` (Acme before its fault-tolerant system [Acme §5, Fig 14]): covered jobs
// checkpoint (the checkpoint model and defaults of `auto`); after a failure a person notices and restarts the job
// from its last checkpoint, more slowly at night. Every failure is a manual intervention.
#include "policies/recovery/common.hpp"
#include "sim/policy_api/policy_args.hpp"
#include "sim/policy_api/recovery.hpp"

namespace acmesim::policies {

namespace {

class ManualRecovery final : public RecoveryPolicy {
 public:
  explicit ManualRecovery(const PolicyArgs& args) : checkpoints_{args}, person_{args}, rng_{args.rng()} {}
  bool covers(const JobSpec& job) const override { return checkpoints_.covers(job); }
  CheckpointPlan checkpointing(const JobSpec& job) const override { return checkpoints_.plan(job); }
  RecoveryPlan recover(const JobSpec& job, const FailureContext& failure) override {
    return RecoveryPlan{person_.delay(rng_, failure.time_of_day), checkpoints_.restart_overhead(job), true};
  }

 private:
  CheckpointModel checkpoints_;
  Responder person_;
  Rng rng_;
};

}  // namespace

std::unique_ptr<RecoveryPolicy> make_manual_recovery(const PolicyArgs& args) {
  return std::make_unique<ManualRecovery>(args);
}

}  // namespace acmesim::policies
