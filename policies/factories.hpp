#pragma once
/// Factories of the built-in policies, one per policy file; catalog.cpp is their only caller.
#include <memory>

#include "sim/policy_api/evaluation.hpp"
#include "sim/policy_api/failure_model.hpp"
#include "sim/policy_api/outcome.hpp"
#include "sim/policy_api/placement.hpp"
#include "sim/policy_api/policy_args.hpp"
#include "sim/policy_api/recovery.hpp"
#include "sim/policy_api/scheduler.hpp"

namespace acmesim::policies {

std::unique_ptr<Scheduler> make_fifo(const PolicyArgs& args);
std::unique_ptr<Scheduler> make_replay(const PolicyArgs& args);
std::unique_ptr<Scheduler> make_sjf(const PolicyArgs& args);
std::unique_ptr<Scheduler> make_srtf(const PolicyArgs& args);
std::unique_ptr<Scheduler> make_qssf(const PolicyArgs& args);
std::unique_ptr<Scheduler> make_las(const PolicyArgs& args);
std::unique_ptr<Scheduler> make_easy_backfill(const PolicyArgs& args);
std::unique_ptr<Scheduler> make_conservative_backfill(const PolicyArgs& args);
std::unique_ptr<Scheduler> make_fair_share(const PolicyArgs& args);
std::unique_ptr<Scheduler> make_acme(const PolicyArgs& args);

std::unique_ptr<Placement> make_pack(const PolicyArgs& args);
std::unique_ptr<Placement> make_spread(const PolicyArgs& args);
std::unique_ptr<Placement> make_first_fit(const PolicyArgs& args);
std::unique_ptr<Placement> make_topology(const PolicyArgs& args);

std::unique_ptr<EvaluationPolicy> make_coupled(const PolicyArgs& args);
std::unique_ptr<EvaluationPolicy> make_decoupled(const PolicyArgs& args);
std::unique_ptr<OutcomeModel> make_trace_outcomes(const PolicyArgs& args);
std::unique_ptr<OutcomeModel> make_all_complete(const PolicyArgs& args);
std::unique_ptr<OutcomeModel> make_taxonomy(const PolicyArgs& args);

std::unique_ptr<FailureModel> make_no_failures(const PolicyArgs& args);
std::unique_ptr<FailureModel> make_node_mtbf(const PolicyArgs& args);
std::unique_ptr<FailureModel> make_replay_failures(const PolicyArgs& args);

std::unique_ptr<RecoveryPolicy> make_no_recovery(const PolicyArgs& args);
std::unique_ptr<RecoveryPolicy> make_manual_recovery(const PolicyArgs& args);
std::unique_ptr<RecoveryPolicy> make_auto_recovery(const PolicyArgs& args);

}  // namespace acmesim::policies
