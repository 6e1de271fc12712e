// Outcome model `trace`: every job ends in its recorded state after its recorded runtime.
#include "sim/policy_api/outcome.hpp"
#include "sim/policy_api/policy_args.hpp"

namespace acmesim::policies {

namespace {

class TraceOutcomes final : public OutcomeModel {
 public:
  explicit TraceOutcomes(const PolicyArgs&) {}
  JobOutcome decide(const JobSpec& job) override {
    return JobOutcome{job.recorded_state, job.runtime, FailureReason::None};
  }
};

}  // namespace

std::unique_ptr<OutcomeModel> make_trace_outcomes(const PolicyArgs& args) {
  return std::make_unique<TraceOutcomes>(args);
}

}  // namespace acmesim::policies
