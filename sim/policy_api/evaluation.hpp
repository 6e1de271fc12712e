#pragma once
/// The evaluation-policy contract: given one evaluation request and the GPUs granted to it,
/// decide the trials (sim/eval/plan.hpp). The evaluation simulation (sim/eval/eval_sim.hpp)
/// carries the plan out and checks it: every piece of every dataset exactly once, pinned GPUs
/// in range. A policy sees only priors (the suite's numbers), never the actual runtimes.
#include "sim/eval/plan.hpp"
#include "sim/eval/suite.hpp"

namespace acmesim {

/// What the cluster scheduler granted to one evaluation request.
struct EvalResources {
  int nodes = 1;
  int gpus_per_node = 8;
  int gpus() const { return nodes * gpus_per_node; }
};

class EvaluationPolicy {
public:
  virtual ~EvaluationPolicy() = default;
  virtual EvalPlan plan(const EvalRequest& request, const EvalResources& resources) const = 0;
};

}  // namespace acmesim
