#include "io/eval_cluster_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "io/eval_suite.hpp"
#include "io/policy_yaml.hpp"
#include "io/yaml.hpp"

namespace acmesim {

namespace {

const std::vector<std::string> kKeys{"name",
                                     "description",
                                     "scenario",
                                     "set",
                                     "suite",
                                     "model_gb",
                                     "checkpoint_interval_h",
                                     "min_pretrain_gpus",
                                     "plan_nodes",
                                     "noise",
                                     "seed",
                                     "policies",
                                     "pretraining"};
const std::vector<std::string> kRunKeys{"start_h", "gpus", "hours"};

EvalClusterConfig read_config(const yaml::Node& root) {
  root.only_keys(kKeys);
  EvalClusterConfig c;

  std::vector<std::string> overrides;
  if (const yaml::Node set = root["set"]) {
    for (const yaml::Node& s : set.items("a list of key=value")) overrides.push_back(s.as<std::string>());
  }
  const std::string base = std::filesystem::path(root.file()).parent_path().string();
  c.scenario = load_scenario(root.required("scenario", "a file path").as_path("a file path"), overrides,
                             base.empty() ? "." : base);
  c.suite = load_eval_suite(root.required("suite", "a file path").as_path("a file path"));

  c.checkpoint_bytes = std::llround(root.get<double>("model_gb", 14.6, {.min = 0.001}) * 1e9);
  c.checkpoint_interval = from_seconds(root.get<double>("checkpoint_interval_h", 4, {.min = 0.01}) * 3600);
  c.min_pretrain_gpus = root.get<int>("min_pretrain_gpus", 64, {.min = 1});
  c.plan_nodes = root.get<int>("plan_nodes", 4, {.min = 1});
  c.noise_sigma = root.get<double>("noise", 0.2, {.min = 0});
  c.seed = root.get<std::uint64_t>("seed", c.scenario.seed);

  const ClusterSpec& cluster = c.scenario.cluster;
  if (const yaml::Node runs = root["pretraining"]) {
    for (const yaml::Node& r : runs.items("a list of {start_h, gpus, hours}")) {
      r.only_keys(kRunKeys);
      PretrainingRun run;
      run.start_offset = from_seconds(r.get<double>("start_h", 0, {.min = 0}) * 3600);
      run.gpus = r.get<int>("gpus", 256, {.min = 1});
      run.length = from_seconds(r.get<double>("hours", 24, {.min = 0.01}) * 3600);
      const int nodes = (run.gpus + cluster.gpus_per_node - 1) / cluster.gpus_per_node;
      if (run.gpus % cluster.gpus_per_node != 0 || nodes > cluster.gpu_nodes) {
        r["gpus"].fail(fmt::format("whole nodes of {} GPUs, at most {}", cluster.gpus_per_node,
                                   cluster.gpu_nodes * cluster.gpus_per_node));
      }
      c.pretraining.push_back(run);
    }
  }

  if (const yaml::Node list = root["policies"]) {
    const std::vector<yaml::Node> blocks = list.items("a list of policy names or {name: ..., parameters}");
    for (std::size_t i = 0; i < blocks.size(); ++i) {
      EvalClusterPolicy p{"", "", policy_block(blocks[i], "evaluation", "", c.seed)};
      p.label = blocks[i].is_scalar() ? blocks[i].as<std::string>() : blocks[i].dump();
      std::replace(p.label.begin(), p.label.end(), '\n', ' ');
      p.tag = blocks[i].is_scalar() ? p.label : fmt::format("policy{}", i);
      c.policies.push_back(std::move(p));
    }
  } else {
    for (const std::string name : {"coupled", "decoupled"}) {
      c.policies.push_back(EvalClusterPolicy{name, name, PolicyArgs::named("evaluation", name, c.seed)});
    }
  }
  return c;
}

}  // namespace

EvalClusterConfig load_eval_cluster_config(const std::string& path) {
  return yaml::guard(path, [&] { return read_config(yaml::parse_file(path, "eval-cluster")); });
}

}  // namespace acmesim
