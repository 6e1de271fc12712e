#pragma once
/// One run's policies, a value with a slot per decision, and the catalog-built defaults.
#include <memory>

#include "sim/policy_api/catalog.hpp"

namespace acmesim {

/// The five decisions of a run, every slot non-null: "nothing happens" is a policy too (the
/// `trace` outcomes, `none` failures and `none` recovery are the null objects), so the engine
/// never asks whether a slot is filled.
struct Policies {
  std::unique_ptr<Scheduler> scheduler;
  std::unique_ptr<Placement> placement;
  std::unique_ptr<OutcomeModel> outcomes;
  std::unique_ptr<FailureModel> failures;
  std::unique_ptr<RecoveryPolicy> recovery;
};

/// `scheduler` and `placement` with the default of every other slot (`trace` outcomes, `none`
/// failures, `none` recovery): the core simulator, whose results the fault slots leave alone.
inline Policies core_policies(const Catalog& catalog, std::unique_ptr<Scheduler> scheduler,
                              std::unique_ptr<Placement> placement) {
  return Policies{std::move(scheduler), std::move(placement),
                  catalog.outcomes.make(PolicyArgs::named("outcomes", "trace")),
                  catalog.failures.make(PolicyArgs::named("failures", "none")),
                  catalog.recoveries.make(PolicyArgs::named("recovery", "none"))};
}

}  // namespace acmesim
