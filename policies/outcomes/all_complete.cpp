// Outcome model `all-complete`: the what-if "nothing fails, nobody cancels". Every job completes
// after its recorded runtime (how long a failed or cancelled job would have run to completion is
// not in the trace; its recorded runtime is kept: docs/failures.md).
#include "sim/policy_api/outcome.hpp"
#include "sim/policy_api/policy_args.hpp"

namespace acmesim::policies {

namespace {

class AllComplete final : public OutcomeModel {
 public:
  explicit AllComplete(const PolicyArgs&) {}
  JobOutcome decide(const JobSpec& job) override {
    return JobOutcome{FinalState::Completed, job.runtime, FailureReason::None};
  }
};

}  // namespace

std::unique_ptr<OutcomeModel> make_all_complete(const PolicyArgs& args) { return std::make_unique<AllComplete>(args); }

}  // namespace acmesim::policies
