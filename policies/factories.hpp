#pragma once
/// Factories of the built-in policies, one per policy file; catalog.cpp is their only caller.
#include <memory>

#include "sim/policy_api/evaluation.hpp"
#include "sim/policy_api/placement.hpp"
#include "sim/policy_api/policy_args.hpp"
#include "sim/policy_api/scheduler.hpp"

namespace acmesim::policies {

std::unique_ptr<Scheduler> make_fifo(const PolicyArgs& args);
std::unique_ptr<Scheduler> make_replay(const PolicyArgs& args);

std::unique_ptr<Placement> make_pack(const PolicyArgs& args);
std::unique_ptr<Placement> make_spread(const PolicyArgs& args);

std::unique_ptr<EvaluationPolicy> make_coupled(const PolicyArgs& args);
std::unique_ptr<EvaluationPolicy> make_decoupled(const PolicyArgs& args);

}  // namespace acmesim::policies
