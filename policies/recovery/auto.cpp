// Recovery `auto` (Acme's fault-tolerant pretraining system [Acme §6.1], with `mode: async` for
// its asynchronous checkpoints): after a failure, detection, LLM-assisted diagnosis, the two-round
// pairwise NCCL test that isolates the faulty node, and an automatic restart from the last
// checkpoint. A configurable share of failures still needs a person (the paper: ~90 % fewer
// manual interventions), who then adds the manual response delay.
#include <fmt/format.h>

#include <boost/random/uniform_01.hpp>

#include "policies/recovery/common.hpp"
#include "sim/policy_api/policy_args.hpp"
#include "sim/policy_api/recovery.hpp"

namespace acmesim::policies {

namespace {

class AutoRecovery final : public RecoveryPolicy {
 public:
  explicit AutoRecovery(const PolicyArgs& args)
      : checkpoints_{args},
        person_{args},
        rng_{args.rng()},
        // [ByteRobust; est]: an explicit error is detected in ~30 s.
        detect_{from_seconds(args.number("auto_detect_s", 30.0, Range::duration(0, 1), "seconds to detect a failure"))},
        // [MegaScale; est]: diagnosis + isolation ~3 min in total (MegaScale < 10 min);
        // our split: 2 min of log diagnosis, then two NCCL test rounds of 45 s.
        diagnose_{from_seconds(args.number("diagnose_s", 120.0, Range::duration(0, 1), "seconds of log diagnosis"))},
        // [Acme §6.1]: two rounds (pairs, then suspects paired with good nodes); the
        // pairs of a round run in parallel, so the test takes two round times whatever the size.
        nccl_round_{from_seconds(
            args.number("nccl_round_s", 45.0, Range::duration(0, 1), "seconds per round of the two-round NCCL test"))},
        // [Acme §6.1]: manual intervention reduced by ~90 %.
        manual_share_{args.number("manual_share", 0.1, Range{0, 1}, "share of failures that still need a person")} {}
  bool covers(const JobSpec& job) const override { return checkpoints_.covers(job); }
  CheckpointPlan checkpointing(const JobSpec& job) const override { return checkpoints_.plan(job); }
  RecoveryPlan recover(const JobSpec& job, const FailureContext& failure) override {
    // Drawn every time, so the person's delay stream does not depend on the coin.
    const bool needs_person = boost::random::uniform_01<double>{}(rng_) < manual_share_;
    const Duration person = person_.delay(rng_, failure.time_of_day);
    const Duration automatic = detect_ + diagnose_ + 2 * nccl_round_;
    return RecoveryPlan{automatic + (needs_person ? person : Duration{0}), checkpoints_.restart_overhead(job),
                        needs_person};
  }

 private:
  CheckpointModel checkpoints_;
  Responder person_;
  Rng rng_;
  Duration detect_;
  Duration diagnose_;
  Duration nccl_round_;
  double manual_share_;
};

}  // namespace

std::unique_ptr<RecoveryPolicy> make_auto_recovery(const PolicyArgs& args) {
  return std::make_unique<AutoRecovery>(args);
}

}  // namespace acmesim::policies
