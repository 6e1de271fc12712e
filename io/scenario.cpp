#include "io/scenario.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "io/policy_yaml.hpp"
#include "sim/core/error.hpp"

namespace acmesim {

namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kTopKeys{"name", "description", "seed", "trace", "cluster", "scheduler",
                                        "placement", "timeline_interval_s", "skip_bad_rows",
                                        "outcomes", "failures", "recovery"};
const std::vector<std::string> kClusterKeys{"nodes", "gpus_per_node", "cpus_per_node", "memory_gib_per_node",
                                            "cpu_nodes", "nodes_per_switch"};

class Reader {
public:
  Reader(std::string file, std::vector<std::string> overridden) : file_{std::move(file)}, overridden_{std::move(overridden)} {}

  std::string where(const std::string& key, const YAML::Node& node) const {
    for (const auto& o : overridden_) {
      if (o == key || key.rfind(o + ".", 0) == 0) return fmt::format("--set {}", o);
    }
    const YAML::Mark mark = node.Mark();
    if (mark.line < 0) return file_;
    return fmt::format("{}:{}:{}", file_, mark.line + 1, mark.column + 1);
  }

  [[noreturn]] void fail(const std::string& key, const YAML::Node& node, const std::string& expected) const {
    throw InputError(fmt::format("{}: {}: expected {}, found '{}'", where(key, node), key, expected, YAML::Dump(node)));
  }

  void only_keys(const std::string& key, const YAML::Node& node, const std::vector<std::string>& valid) const {
    if (!node.IsMap()) fail(key.empty() ? "scenario" : key, node, "a mapping of keys to values");
    for (const auto& entry : node) {
      const std::string k = entry.first.as<std::string>();
      if (std::find(valid.begin(), valid.end(), k) == valid.end()) {
        const std::string full = key.empty() ? k : key + "." + k;
        throw InputError(fmt::format("{}: unknown key '{}' (valid: {})", where(full, entry.first), full,
                                     fmt::join(valid, ", ")));
      }
    }
  }

  template <class T>
  T get(const YAML::Node& parent, const std::string& key, const std::string& full, T fallback, T min_value) const {
    const YAML::Node node = parent[key];
    if (!node) return fallback;
    T value{};
    try {
      value = node.as<T>();
    } catch (const YAML::Exception&) {
      fail(full, node, expected<T>(min_value));
    }
    if (value < min_value) fail(full, node, expected<T>(min_value));
    return value;
  }

  bool flag(const YAML::Node& parent, const std::string& key) const {
    const YAML::Node node = parent[key];
    if (!node) return false;
    try {
      return node.as<bool>();
    } catch (const YAML::Exception&) {
      fail(key, node, "true or false");
    }
  }

  PolicyArgs policy(const YAML::Node& root, const std::string& slot, const std::string& fallback,
                    std::uint64_t seed) const {
    return policy_args_from_yaml(root[slot], slot, fallback, YamlOrigin{file_, overridden_}, seed);
  }

private:
  template <class T>
  static std::string expected(T min_value) {
    if constexpr (std::is_integral_v<T>) return fmt::format("a whole number >= {}", min_value);
    else return fmt::format("a number >= {}", min_value);
  }

  std::string file_;
  std::vector<std::string> overridden_;
};

/// Applies "a.b.c=value" to `root`, creating maps on the way. A scalar policy slot
/// (`scheduler: fifo`) becomes {name: fifo} when a parameter is set under it.
void apply_override(YAML::Node root, const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw InputError(fmt::format("--set {}: expected key=value, e.g. --set cluster.nodes=300", text));
  }
  const std::string key = text.substr(0, eq);
  YAML::Node value;
  try {
    value = YAML::Load(text.substr(eq + 1));
  } catch (const YAML::Exception& e) {
    throw InputError(fmt::format("--set {}: the value is not valid YAML ({})", text, e.msg));
  }
  std::vector<std::string> parts;
  std::stringstream ss(key);
  for (std::string part; std::getline(ss, part, '.');) parts.push_back(part);
  std::vector<YAML::Node> path{root};
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    YAML::Node child = path.back()[parts[i]];
    if (child && child.IsScalar()) {
      const std::string name = child.as<std::string>();
      path.back()[parts[i]] = YAML::Node{YAML::NodeType::Map};
      path.back()[parts[i]]["name"] = name;
    } else if (!child || !child.IsMap()) {
      path.back()[parts[i]] = YAML::Node{YAML::NodeType::Map};
    }
    path.push_back(path.back()[parts[i]]);
  }
  path.back()[parts.back()] = value.IsNull() ? YAML::Node{""} : value;
}

}  // namespace

Scenario parse_scenario(const std::string& name, const std::string& yaml_text, const std::vector<std::string>& overrides,
                        const std::string& working_dir) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::ParserException& e) {
    throw InputError(fmt::format("{}:{}:{}: not valid YAML: {}", name, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
  if (!root || root.IsNull()) root = YAML::Node{YAML::NodeType::Map};
  std::vector<std::string> overridden;
  for (const auto& o : overrides) {
    apply_override(root, o);
    overridden.push_back(o.substr(0, o.find('=')));
  }
  const Reader r{name, overridden};
  r.only_keys("", root, kTopKeys);

  Scenario s;
  s.source = name;
  s.name = root["name"] ? root["name"].as<std::string>() : fs::path(name).stem().string();
  s.seed = r.get<std::uint64_t>(root, "seed", "seed", 1, 0);

  if (!root["trace"] || !root["trace"].IsScalar() || root["trace"].as<std::string>().empty()) {
    throw InputError(fmt::format("{}: trace: expected the path of an AcmeTrace CSV file (plain or .gz), found {}",
                                 r.where("trace", root["trace"]), root["trace"] ? YAML::Dump(root["trace"]) : "nothing"));
  }
  const fs::path trace = root["trace"].as<std::string>();
  const bool from_cli = std::find(overridden.begin(), overridden.end(), "trace") != overridden.end();
  const fs::path base = from_cli ? fs::path(working_dir) : fs::path(name).parent_path();
  s.trace_path = (trace.is_absolute() ? trace : (base / trace)).lexically_normal().string();

  const YAML::Node cluster = root["cluster"];
  if (!cluster) {
    throw InputError(fmt::format("{}: cluster: expected a mapping with {}", name, fmt::join(kClusterKeys, ", ")));
  }
  r.only_keys("cluster", cluster, kClusterKeys);
  if (!cluster["nodes"]) {
    throw InputError(fmt::format("{}: cluster.nodes: expected the number of GPU nodes, found nothing",
                                 r.where("cluster", cluster)));
  }
  s.cluster.gpu_nodes = r.get<int>(cluster, "nodes", "cluster.nodes", 0, 1);
  s.cluster.gpus_per_node = r.get<int>(cluster, "gpus_per_node", "cluster.gpus_per_node", 8, 1);
  s.cluster.cpus_per_node = r.get<int>(cluster, "cpus_per_node", "cluster.cpus_per_node", 0, 0);
  s.cluster.memory_gib_per_node = r.get<int>(cluster, "memory_gib_per_node", "cluster.memory_gib_per_node", 0, 0);
  s.cluster.cpu_nodes = r.get<int>(cluster, "cpu_nodes", "cluster.cpu_nodes", 0, 0);
  s.cluster.nodes_per_switch = r.get<int>(cluster, "nodes_per_switch", "cluster.nodes_per_switch", 0, 0);
  if (s.cluster.gpus_per_node > 64) {
    r.fail("cluster.gpus_per_node", cluster["gpus_per_node"], "at most 64 GPUs per node");
  }

  s.scheduler = r.policy(root, "scheduler", "fifo", s.seed);
  s.placement = r.policy(root, "placement", "pack", s.seed);
  s.outcomes = r.policy(root, "outcomes", "trace", s.seed);
  s.failures = r.policy(root, "failures", "none", s.seed);
  s.recovery = r.policy(root, "recovery", "none", s.seed);
  s.timeline_interval = from_seconds(r.get<double>(root, "timeline_interval_s", "timeline_interval_s", 600.0, 1.0));
  s.skip_bad_rows = r.flag(root, "skip_bad_rows");
  return s;
}

Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides,
                       const std::string& working_dir) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot open the scenario file", path));
  std::stringstream text;
  text << in.rdbuf();
  return parse_scenario(path, text.str(), overrides, working_dir);
}

Policies make_policies(const Scenario& scenario, const Catalog& catalog) {
  return Policies{catalog.schedulers.make(scenario.scheduler), catalog.placements.make(scenario.placement),
                  catalog.outcomes.make(scenario.outcomes), catalog.failures.make(scenario.failures),
                  catalog.recoveries.make(scenario.recovery)};
}

SimulationOptions simulation_options(const Scenario& scenario, const Trace& trace) {
  SimulationOptions options;
  options.timeline_interval = scenario.timeline_interval;
  options.local_clock_offset = seconds(trace.epoch_unix_seconds + 60 * std::int64_t{trace.utc_offset_minutes});
  return options;
}

}  // namespace acmesim
