#include "policies/placement/node_choice.hpp"
#include "sim/policy_api/placement.hpp"
#include "sim/policy_api/policy_args.hpp"

namespace acmesim::policies {

namespace {

/// `spread`: the emptiest node that fits (worst fit), lowest id first among equals: load is
/// spread over nodes at the price of fragments that block whole-node jobs.
class Spread final : public Placement {
 public:
  std::optional<Allocation> place(const Cluster& cluster, const Demand& demand) const override {
    return choose_nodes(cluster, demand, NodeOrder::EmptiestFirst);
  }
};

}  // namespace

std::unique_ptr<Placement> make_spread(const PolicyArgs&) { return std::make_unique<Spread>(); }

}  // namespace acmesim::policies
