#include "policies/placement/node_choice.hpp"
#include "sim/policy_api/placement.hpp"
#include "sim/policy_api/policy_args.hpp"

namespace acmesim::policies {

namespace {

/// `pack`: the fullest node that fits (best fit), lowest id first among equals. A job that
/// wants whole nodes therefore lands on idle nodes, and small jobs fill partly used ones.
class Pack final : public Placement {
 public:
  std::optional<Allocation> place(const Cluster& cluster, const Demand& demand) const override {
    return choose_nodes(cluster, demand, NodeOrder::FullestFirst);
  }
};

}  // namespace

std::unique_ptr<Placement> make_pack(const PolicyArgs&) { return std::make_unique<Pack>(); }

}  // namespace acmesim::policies
