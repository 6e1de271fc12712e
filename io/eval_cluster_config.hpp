#pragma once
/// The `acmesim eval-cluster` file (tools/eval_cluster.hpp has the format): read strictly into
/// a plain value, the scenario and suite it names loaded, every policy block built.
#include <cstdint>
#include <string>
#include <vector>

#include "io/scenario.hpp"
#include "sim/core/time.hpp"
#include "sim/model/eval/suite.hpp"
#include "sim/policy_api/policy_args.hpp"
#include "sim/run/cluster_eval.hpp"

namespace acmesim {

struct EvalClusterPolicy {
  std::string label;  // as tables show it: the name, or the block on one line
  std::string tag;    // for file names (checkpoints_<tag>.csv): the name, or policy<i>
  PolicyArgs args;    // of the evaluation slot
};

struct EvalClusterConfig {
  Scenario scenario;  // `scenario` with the `set` overrides applied
  EvalSuite suite;
  std::int64_t checkpoint_bytes = 0;  // model_gb
  Duration checkpoint_interval{};
  int min_pretrain_gpus = 64;
  int plan_nodes = 4;
  double noise_sigma = 0.2;
  std::uint64_t seed = 1;  // default: the scenario's
  std::vector<PretrainingRun> pretraining;
  std::vector<EvalClusterPolicy> policies;  // default: coupled, decoupled
};

/// Loads the file, its scenario and its suite (paths relative to the file). InputError with
/// file:line:col on any bad or unknown key. `overrides` (--set, a sweep's values) whose first
/// key is one of the file's (plan_nodes, noise, policies, pretraining, ...) replace the file's;
/// the others are the scenario's (cluster.nodes, scheduler, ...), applied after the file's own
/// `set`; `seed` is both.
EvalClusterConfig load_eval_cluster_config(const std::string& path,
                                           const std::vector<ScenarioOverride>& overrides = {});
EvalClusterConfig parse_eval_cluster_config(const std::string& path, const std::string& text,
                                            const std::vector<ScenarioOverride>& overrides);

/// Whether the dotted `key` belongs to an eval-cluster file rather than to its scenario.
bool is_eval_cluster_key(const std::string& key);

}  // namespace acmesim
