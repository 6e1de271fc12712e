#pragma once
/// Every policy slot's registry. policies/catalog.cpp fills one (builtin_catalog()).
#include "sim/policy_api/evaluation.hpp"
#include "sim/policy_api/failure_model.hpp"
#include "sim/policy_api/outcome.hpp"
#include "sim/policy_api/placement.hpp"
#include "sim/policy_api/recovery.hpp"
#include "sim/policy_api/registry.hpp"
#include "sim/policy_api/scheduler.hpp"

namespace acmesim {

struct Catalog {
  Registry<Scheduler> schedulers{"scheduler"};
  Registry<Placement> placements{"placement"};
  Registry<EvaluationPolicy> evaluations{"evaluation"};
  Registry<OutcomeModel> outcomes{"outcomes"};
  Registry<FailureModel> failures{"failures"};
  Registry<RecoveryPolicy> recoveries{"recovery"};
};

}  // namespace acmesim
