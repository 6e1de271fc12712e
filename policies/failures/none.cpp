// Failure model `none`: nodes never fail.
#include "sim/policy_api/failure_model.hpp"
#include "sim/policy_api/policy_args.hpp"

namespace acmesim::policies {

namespace {

class NoFailures final : public FailureModel {
 public:
  explicit NoFailures(const PolicyArgs&) {}
  void start(const ClusterSpec&, SimTime) override {}
  std::optional<NodeEvent> next() override { return std::nullopt; }
};

}  // namespace

std::unique_ptr<FailureModel> make_no_failures(const PolicyArgs& args) { return std::make_unique<NoFailures>(args); }

}  // namespace acmesim::policies
