#pragma once
/// The evaluation-policy contract: given one evaluation request and the GPUs granted to it,
/// decide the trials (sim/model/eval/plan.hpp). The evaluation simulation (sim/model/eval/eval_sim.hpp)
/// carries the plan out and checks it: every piece of every dataset exactly once, pinned GPUs
/// in range. A policy sees only priors (the suite's numbers), never the actual runtimes.
#include "sim/model/eval/plan.hpp"
#include "sim/model/eval/suite.hpp"

namespace acmesim {

class EvaluationPolicy {
 public:
  virtual ~EvaluationPolicy() = default;
  virtual EvalPlan plan(const EvalRequest& request, const EvalResources& resources) const = 0;
};

}  // namespace acmesim
