#include "io/eval_cluster_config.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "io/eval_suite.hpp"
#include "io/policy_yaml.hpp"
#include "io/scenario.hpp"
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

EvalClusterConfig read_config(const yaml::Node& root, const std::vector<ScenarioOverride>& for_scenario) {
  root.only_keys(kKeys);
  EvalClusterConfig c;

  // The file's own `set` first (each entry placed where it is written, relative to this file),
  // then the overrides given from outside for the scenario's keys.
  std::vector<ScenarioOverride> overrides;
  const std::string base = std::filesystem::path(root.file()).parent_path().string();
  if (const yaml::Node set = root["set"]) {
    for (const yaml::Node& s : set.items("a list of key=value")) {
      const std::string text = s.as<std::string>();
      const auto eq = text.find('=');
      if (eq == std::string::npos || eq == 0) s.fail("key=value, e.g. scheduler=acme");
      overrides.push_back(
          ScenarioOverride{text.substr(0, eq), text.substr(eq + 1), s.place(), base.empty() ? "." : base});
    }
  }
  overrides.insert(overrides.end(), for_scenario.begin(), for_scenario.end());
  const std::string scenario_path = root.required("scenario", "a file path").as_path("a file path");
  c.scenario = parse_scenario_at(scenario_path, yaml::read_file(scenario_path, "scenario"), "", overrides);
  c.suite = load_eval_suite(root.required("suite", "a file path").as_path("a file path"));

  c.checkpoint_bytes = checkpoint_bytes(root.get<double>("model_gb", 14.6, {.min = 0.001, .max = kMaxCheckpointGb}));
  c.checkpoint_interval = from_seconds(root.get<double>("checkpoint_interval_h", 4, yaml::hours_range(0.01)) * 3600);
  c.min_pretrain_gpus = root.get<int>("min_pretrain_gpus", 64, {.min = 1});
  c.plan_nodes = root.get<int>("plan_nodes", 4, {.min = 1});
  c.noise_sigma = root.get<double>("noise", 0.2, {.min = 0, .max = 2});
  c.seed = root.get<std::uint64_t>("seed", c.scenario.seed);

  const ClusterSpec& cluster = c.scenario.cluster;
  if (const yaml::Node runs = root["pretraining"]) {
    for (const yaml::Node& r : runs.items("a list of {start_h, gpus, hours}")) {
      r.only_keys(kRunKeys);
      PretrainingRun run;
      run.start_offset = from_seconds(r.get<double>("start_h", 0, yaml::hours_range()) * 3600);
      run.gpus = r.get<int>("gpus", 256, {.min = 1});
      run.length = from_seconds(r.get<double>("hours", 24, yaml::hours_range(0.01)) * 3600);
      const int nodes = (run.gpus + cluster.gpus_per_node - 1) / cluster.gpus_per_node;
      if (run.gpus % cluster.gpus_per_node != 0 || nodes > cluster.gpu_nodes) {
        r["gpus"].fail(fmt::format("whole nodes of {} GPUs, at most {}", cluster.gpus_per_node,
                                   cluster.gpu_nodes * cluster.gpus_per_node));
      }
      c.pretraining.push_back(run);
    }
  }

  if (const yaml::Node list = root["policies"]) {
    // One policy may stand alone (`policies: decoupled`): a sweep's axis over single policies.
    const std::vector<yaml::Node> blocks = list.is_list()
                                               ? list.items("a list of policy names or {name: ..., parameters}")
                                               : std::vector<yaml::Node>{list};
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

bool is_eval_cluster_key(const std::string& key) {
  const std::string top = key.substr(0, key.find('.'));
  return top != "name" && top != "description" && std::find(kKeys.begin(), kKeys.end(), top) != kKeys.end();
}

EvalClusterConfig load_eval_cluster_config(const std::string& path, const std::vector<ScenarioOverride>& overrides) {
  return parse_eval_cluster_config(path, yaml::read_file(path, "eval-cluster"), overrides);
}

EvalClusterConfig parse_eval_cluster_config(const std::string& path, const std::string& text,
                                            const std::vector<ScenarioOverride>& overrides) {
  return yaml::guard(path, [&] {
    YAML::Node document = yaml::load(path, text);
    if (!document || document.IsNull()) document = YAML::Node{YAML::NodeType::Map};
    if (!document.IsMap()) yaml::Node{path, document, "eval-cluster"}.fail("a mapping of eval-cluster keys to values");
    std::vector<yaml::Override> overridden;
    std::vector<ScenarioOverride> for_scenario;
    for (const ScenarioOverride& o : overrides) {
      // `seed` is both the file's (noise, suite draws) and the scenario's; other keys are one or the other.
      if (o.key == "seed" || !is_eval_cluster_key(o.key)) for_scenario.push_back(o);
      if (o.key == "seed" || is_eval_cluster_key(o.key)) {
        yaml::set_key(document, o.key, o.value, o.place);
        overridden.push_back(yaml::Override{o.key, o.place, o.base_dir});
      }
    }
    return read_config(yaml::Node{path, document, "eval-cluster", overridden}, for_scenario);
  });
}

}  // namespace acmesim
