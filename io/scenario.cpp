#include "io/scenario.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "io/policy_yaml.hpp"
#include "io/profile.hpp"
#include "io/yaml.hpp"
#include "sim/core/error.hpp"

namespace acmesim {

namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kTopKeys{"name",          "description", "seed",      "trace",
                                        "cluster",       "scheduler",   "placement", "timeline_interval_s",
                                        "skip_bad_rows", "outcomes",    "failures",  "recovery"};
const std::vector<std::string> kClusterKeys{"nodes",
                                            "gpus_per_node",
                                            "cpus_per_node",
                                            "memory_gib_per_node",
                                            "cpu_nodes",
                                            "nodes_per_switch",
                                            "launch_latency_s",
                                            "launch_in_duration",
                                            "admission_latency_s"};

}  // namespace

namespace {

Scenario read_scenario(const yaml::Node& root) {
  const std::string& name = root.file();
  root.only_keys(kTopKeys);

  Scenario s;
  s.source = name;
  s.name = root.get<std::string>("name", fs::path(name).stem().string());
  // The name is the default output folder (out/NAME): one plain folder name, never a path.
  if (s.name.empty() || s.name == "." || s.name == ".." || s.name.find_first_of("/\\") != std::string::npos ||
      s.name.find('\0') != std::string::npos) {
    root["name"].fail("a plain folder name (no '/', not '.' or '..')");
  }
  s.seed = root.get<std::uint64_t>("seed", 1, {.min = 0});

  s.trace_path = root.required("trace", "the path of an AcmeTrace CSV file (plain or .gz)")
                     .as_path("the path of an AcmeTrace CSV file (plain or .gz)");

  const yaml::Node cluster = root.required("cluster", fmt::format("a mapping with {}", fmt::join(kClusterKeys, ", ")));
  cluster.only_keys(kClusterKeys);
  // Bounds that keep every product (nodes x GPUs, nodes x CPUs) well inside an int.
  s.cluster.gpu_nodes = cluster.need<int>("nodes", {.min = 1, .max = kMaxNodes});
  s.cluster.gpus_per_node = cluster.get<int>("gpus_per_node", 8, {.min = 1, .max = 64});
  s.cluster.cpus_per_node = cluster.get<int>("cpus_per_node", 0, {.min = 0, .max = 1024});
  s.cluster.memory_gib_per_node = cluster.get<int>("memory_gib_per_node", 0, {.min = 0, .max = 1 << 20});
  s.cluster.cpu_nodes = cluster.get<int>("cpu_nodes", 0, {.min = 0, .max = kMaxNodes});
  s.cluster.nodes_per_switch = cluster.get<int>("nodes_per_switch", 0, {.min = 0, .max = kMaxNodes});
  if (cluster.has("launch_latency_s")) s.launch.cdf = read_point_cdf(cluster["launch_latency_s"]);
  s.launch.in_duration = cluster.get<bool>("launch_in_duration", true);
  if (cluster.has("admission_latency_s")) s.admission.cdf = read_point_cdf(cluster["admission_latency_s"]);

  s.scheduler = policy_block(root["scheduler"], "scheduler", "fifo", s.seed);
  s.placement = policy_block(root["placement"], "placement", "pack", s.seed);
  s.outcomes = policy_block(root["outcomes"], "outcomes", "trace", s.seed);
  s.failures = policy_block(root["failures"], "failures", "none", s.seed);
  s.recovery = policy_block(root["recovery"], "recovery", "none", s.seed);
  s.timeline_interval = from_seconds(root.get<double>("timeline_interval_s", 600.0, yaml::seconds_range(1.0)));
  s.skip_bad_rows = root.get<bool>("skip_bad_rows", false);
  return s;
}

}  // namespace

ScenarioOverride command_line_override(const std::string& text, const std::string& working_dir) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    throw input_error("--set " + text, "override", "key=value, e.g. --set cluster.nodes=300", text);
  }
  const std::string key = text.substr(0, eq);
  return ScenarioOverride{key, text.substr(eq + 1), "--set " + key, working_dir};
}

Scenario parse_scenario_at(const std::string& name, const std::string& yaml_text, const std::string& within,
                           const std::vector<ScenarioOverride>& overrides) {
  return yaml::guard(name, [&] {
    YAML::Node document = yaml::load(name, yaml_text);
    YAML::Node root = document;
    if (!within.empty()) {
      if (!document.IsMap()) yaml::Node{name, document, "document"}.fail("a mapping");
      root = document[within];
      if (!root.IsMap()) yaml::Node{name, root, within}.fail("a mapping of scenario keys to values");
    }
    if (!root || root.IsNull()) root = YAML::Node{YAML::NodeType::Map};
    if (!root.IsMap()) yaml::Node{name, root, "scenario"}.fail("a mapping of scenario keys to values");
    std::vector<yaml::Override> overridden;
    for (const ScenarioOverride& o : overrides) {
      yaml::set_key(root, o.key, o.value, o.place);
      overridden.push_back(yaml::Override{o.key, o.place, o.base_dir});
    }
    return read_scenario(yaml::Node{name, root, "scenario", overridden});
  });
}

Scenario parse_scenario(const std::string& name, const std::string& yaml_text,
                        const std::vector<std::string>& overrides, const std::string& working_dir) {
  std::vector<ScenarioOverride> parsed;
  for (const std::string& o : overrides) parsed.push_back(command_line_override(o, working_dir));
  return parse_scenario_at(name, yaml_text, "", parsed);
}

Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides,
                       const std::string& working_dir) {
  return parse_scenario(path, yaml::read_file(path, "scenario"), overrides, working_dir);
}

namespace {

void emit(YAML::Emitter& out, const ParamValue& value) {
  switch (value.kind) {
    case ParamValue::Kind::Null:
      out << YAML::Null;
      break;
    case ParamValue::Kind::Scalar:
      out << value.text;
      break;
    case ParamValue::Kind::List:
      out << YAML::Flow << YAML::BeginSeq;
      for (const ParamValue& item : value.items) emit(out, item);
      out << YAML::EndSeq;
      break;
    case ParamValue::Kind::Map:
      out << YAML::Flow << YAML::BeginMap;
      for (const ParamEntry& e : value.entries) {
        out << YAML::Key << e.key << YAML::Value;
        emit(out, e.value);
      }
      out << YAML::EndMap;
      break;
  }
}

void emit(YAML::Emitter& out, const PointCdf& cdf) {
  out << YAML::Flow << YAML::BeginMap;
  for (const auto& [x, percent] : cdf.points) out << YAML::Key << x << YAML::Value << percent;
  out << YAML::EndMap;
}

/// `slot: {name: ..., every parameter}`; the parameters are those the policy reads given these
/// arguments (a policy may read some only in some modes), in reading order.
template <class Registry>
void emit_policy(YAML::Emitter& out, const PolicyArgs& given, const Registry& registry) {
  const PolicyArgs args = given;  // a copy: building records what it reads
  registry.make(args);
  out << YAML::Key << args.slot() << YAML::Value << YAML::Block << YAML::BeginMap << YAML::Key << "name" << YAML::Value
      << args.name();
  for (const ParamInfo& p : args.parameters()) {
    const ParamValue* value = args.given().find(p.key);
    if (value && p.type == "CSV file" && value->kind == ParamValue::Kind::Scalar) {
      // As the trace: absolute, so the resolved scenario reads back from any folder.
      out << YAML::Key << p.key << YAML::Value
          << fs::absolute(resolve_table_path(value->text, PolicyArgs::table_origin(*value)))
                 .lexically_normal()
                 .string();
    } else if (value) {
      out << YAML::Key << p.key << YAML::Value;
      emit(out, *value);
    } else if (p.fallback_is_value) {
      out << YAML::Key << p.key << YAML::Value << YAML::Flow << YAML::Load(p.fallback) << YAML::Comment("default");
    } else {
      out << YAML::Newline << YAML::Comment(fmt::format("{}: not set (default: {})", p.key, p.fallback));
    }
  }
  out << YAML::EndMap;
}

}  // namespace

std::string resolved_scenario_yaml(const Scenario& s, const Catalog& catalog) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << s.name;
  out << YAML::Key << "seed" << YAML::Value << s.seed;
  out << YAML::Key << "trace" << YAML::Value
      << (s.trace_path.empty() ? s.trace_path : fs::absolute(s.trace_path).lexically_normal().string());
  out << YAML::Key << "cluster" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "nodes" << YAML::Value << s.cluster.gpu_nodes;
  out << YAML::Key << "gpus_per_node" << YAML::Value << s.cluster.gpus_per_node;
  out << YAML::Key << "cpus_per_node" << YAML::Value << s.cluster.cpus_per_node;
  out << YAML::Key << "memory_gib_per_node" << YAML::Value << s.cluster.memory_gib_per_node;
  out << YAML::Key << "cpu_nodes" << YAML::Value << s.cluster.cpu_nodes;
  out << YAML::Key << "nodes_per_switch" << YAML::Value << s.cluster.nodes_per_switch;
  if (s.launch.cdf.empty()) {
    out << YAML::Newline << YAML::Comment("launch_latency_s: not set (no launch latency)");
  } else {
    out << YAML::Key << "launch_latency_s" << YAML::Value;
    emit(out, s.launch.cdf);
  }
  out << YAML::Key << "launch_in_duration" << YAML::Value << s.launch.in_duration;
  if (s.admission.cdf.empty()) {
    out << YAML::Newline << YAML::Comment("admission_latency_s: not set (no admission latency)");
  } else {
    out << YAML::Key << "admission_latency_s" << YAML::Value;
    emit(out, s.admission.cdf);
  }
  out << YAML::EndMap;
  emit_policy(out, s.scheduler, catalog.schedulers);
  emit_policy(out, s.placement, catalog.placements);
  emit_policy(out, s.outcomes, catalog.outcomes);
  emit_policy(out, s.failures, catalog.failures);
  emit_policy(out, s.recovery, catalog.recoveries);
  out << YAML::Key << "timeline_interval_s" << YAML::Value << to_seconds(s.timeline_interval);
  out << YAML::Key << "skip_bad_rows" << YAML::Value << s.skip_bad_rows;
  out << YAML::EndMap;
  if (!out.good()) throw std::logic_error("resolved_scenario_yaml: " + out.GetLastError());
  // yaml-cpp starts a comment on its own line at column 0: indent it as the entry before it (a
  // comment is never a map's first entry: `name` or `nodes` comes first).
  std::istringstream lines{out.c_str()};
  std::string yaml;
  std::size_t indent = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("# ", 0) == 0) {
      yaml.append(indent, ' ');
    } else {
      indent = std::min(line.find_first_not_of(' '), line.size());
    }
    yaml += line + "\n";
  }
  return yaml;
}

Policies make_policies(const Scenario& scenario, const Catalog& catalog) {
  return Policies{catalog.schedulers.make(scenario.scheduler), catalog.placements.make(scenario.placement),
                  catalog.outcomes.make(scenario.outcomes), catalog.failures.make(scenario.failures),
                  catalog.recoveries.make(scenario.recovery)};
}

SimulationOptions simulation_options(const Scenario& scenario, const Trace& trace) {
  SimulationOptions options;
  options.timeline_interval = scenario.timeline_interval;
  options.launch = scenario.launch;
  options.admission = scenario.admission;
  options.seed = scenario.seed;
  options.local_clock_offset = seconds(trace.epoch_unix_seconds + 60 * std::int64_t{trace.utc_offset_minutes});
  return options;
}

}  // namespace acmesim
