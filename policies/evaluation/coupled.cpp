// coupled: the pre-Acme baseline. One trial per dataset, submitted in suite order; each loads
// the model from remote storage itself, runs inference and then computes its metrics while
// still holding its GPU [Acme §6.2, Fig 13].
#include "sim/policy_api/evaluation.hpp"
#include "sim/policy_api/policy_args.hpp"

namespace acmesim::policies {

namespace {

class Coupled final : public EvaluationPolicy {
 public:
  explicit Coupled(const PolicyArgs&) {}

  EvalPlan plan(const EvalRequest& request, const EvalResources&) const override {
    EvalPlan plan;
    const auto n = static_cast<std::uint32_t>(request.suite->datasets.size());
    plan.trials.reserve(n);
    for (std::uint32_t d = 0; d < n; ++d) plan.trials.push_back(PlannedTrial{{TrialPiece{d, 0, 1}}, std::nullopt});
    return plan;
  }
};

}  // namespace

std::unique_ptr<EvaluationPolicy> make_coupled(const PolicyArgs& args) { return std::make_unique<Coupled>(args); }

}  // namespace acmesim::policies
