#include "io/sweep_file.hpp"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <set>

#include "io/yaml.hpp"
#include "sim/core/error.hpp"

namespace acmesim {

namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kKeys{"name", "description", "base", "set", "axes", "zip", "seeds", "keep"};
const std::vector<std::string> kRangeKeys{"from", "to", "step"};
const std::vector<std::string> kKeepable{"jobs", "timeline", "summary"};
// Bounds that keep a mistyped range or seed count from planning a billion runs.
constexpr std::size_t kMaxAxisValues = 10'000;
constexpr std::size_t kMaxRuns = 1'000'000;

std::string flow_yaml(const YAML::Node& node) {
  YAML::Emitter out;
  out.SetMapFormat(YAML::Flow);
  out.SetSeqFormat(YAML::Flow);
  out << node;
  return out.c_str();
}

/// Whole numbers written as such ("200", "-3") stay whole; anything else is a number.
bool whole_text(const std::string& text) {
  return !text.empty() && text.find_first_not_of("+-0123456789") == std::string::npos;
}

std::vector<SweepValue> range_values(const yaml::Node& range) {
  range.only_keys(kRangeKeys);
  const double from = range.need<double>("from");
  const double to = range.need<double>("to");
  const yaml::Node step_node = range.required("step", "a number, not 0");
  const double step = step_node.as<double>();
  if (step == 0) step_node.fail("a number, not 0");
  const double span = (to - from) / step;
  if (span < 0) step_node.fail(fmt::format("a step that goes from {} towards {}", from, to));
  // A tolerance of 1e-9 steps: {from: 0, to: 1, step: 0.1} ends at 1, not 0.9.
  const double count = std::floor(span + 1e-9) + 1;
  if (count > static_cast<double>(kMaxAxisValues)) {
    range.fail(fmt::format("a range of at most {} values", kMaxAxisValues));
  }
  const bool whole = whole_text(range["from"].raw().Scalar()) && whole_text(step_node.raw().Scalar());
  std::vector<SweepValue> values;
  for (std::size_t i = 0; i < static_cast<std::size_t>(count); ++i) {
    const double v = from + static_cast<double>(i) * step;
    // 12 significant digits: 0.1 + 2 x 0.1 reads 0.3, as the user meant.
    const std::string text = whole ? fmt::format("{}", std::llround(v)) : fmt::format("{:.12g}", v);
    values.push_back(SweepValue{text, text, range.place()});
  }
  return values;
}

SweepAxis read_axis(const yaml::Entry& entry) {
  SweepAxis axis{entry.name(), entry.key.place(), {}};
  const std::string expected = "a non-empty list of values, or {from, to, step}";
  if (entry.value.is_map()) {
    axis.values = range_values(entry.value);
  } else {
    if (!entry.value.is_list() || entry.value.size() == 0) entry.value.fail(expected);
    for (const yaml::Node& item : entry.value.items(expected)) {
      const YAML::Node& raw = item.raw();
      if (raw.IsNull()) item.fail("a value (a scalar, a list or a mapping), not null");
      axis.values.push_back(SweepValue{flow_yaml(raw), raw.IsScalar() ? raw.Scalar() : flow_yaml(raw), item.place()});
    }
  }
  if (axis.key.empty() || axis.key.front() == '.' || axis.key.back() == '.' ||
      axis.key.find("..") != std::string::npos) {
    throw input_error(entry.key.place(), entry.value.field(), "a dotted scenario key, e.g. cluster.nodes", axis.key);
  }
  if (axis.key == "seed") {
    throw input_error(entry.key.place(), entry.value.field(),
                      "a scenario key other than seed (the seeds of each point are `seeds:`)", axis.key);
  }
  return axis;
}

std::vector<std::uint64_t> read_seeds(const yaml::Node& node) {
  if (!node) return {1};
  if (node.is_scalar()) {
    const auto n = node.as<std::uint64_t>({.min = 1, .max = kMaxAxisValues});
    std::vector<std::uint64_t> seeds;
    for (std::uint64_t s = 1; s <= n; ++s) seeds.push_back(s);
    return seeds;
  }
  const std::string expected = "a number of seeds (1, 2, ... N) or a non-empty list of seeds";
  if (!node.is_list() || node.size() == 0) node.fail(expected);
  std::vector<std::uint64_t> seeds;
  std::set<std::uint64_t> seen;
  for (const yaml::Node& item : node.items(expected)) {
    const auto seed = item.as<std::uint64_t>();
    if (!seen.insert(seed).second) item.fail("a seed not already in the list");
    seeds.push_back(seed);
  }
  return seeds;
}

RunOutputs read_keep(const yaml::Node& node) {
  RunOutputs keep{false, false, false};
  if (!node) return keep;
  const std::string expected = "a list of outputs to keep per run (jobs, timeline, summary)";
  for (const yaml::Node& item : node.items(expected)) {
    const std::string name = item.as<std::string>();
    if (name == "jobs") {
      keep.jobs = true;
    } else if (name == "timeline") {
      keep.timeline = true;
    } else if (name == "summary") {
      keep.summary = true;
    } else {
      throw unknown_name_error(item.place(), item.field(), "output", kKeepable, name);
    }
  }
  return keep;
}

}  // namespace

SweepFile parse_sweep(const std::string& path, const std::string& text) {
  return yaml::guard(path, [&] {
    const yaml::Node root = yaml::parse_text(path, text, "sweep");
    if (!root.is_map()) root.fail("a mapping with base, axes, seeds, ...");
    root.only_keys(kKeys);
    SweepFile sweep;
    sweep.path = path;
    sweep.name = root.get<std::string>("name", fs::path(path).stem().string());
    if (sweep.name.empty() || sweep.name.find_first_of("/\\") != std::string::npos || sweep.name == "." ||
        sweep.name == "..") {
      root["name"].fail("a plain folder name (no '/', not '.' or '..')");
    }
    const std::string base_dir = fs::path(path).parent_path().string();
    const yaml::Node base = root.required("base", "a scenario file, or a mapping (an inline scenario)");
    if (base.is_map()) {
      sweep.base_name = path;
      sweep.base_text = text;
      sweep.base_within = "base";
      sweep.base_identity = "inline " + flow_yaml(base.raw());
    } else {
      sweep.base_name = base.as_path("a scenario file, or a mapping (an inline scenario)");
      sweep.base_text = yaml::read_file(sweep.base_name, "scenario");
      // An eval-cluster file names a suite; a scenario never does.
      const YAML::Node base_root = yaml::load(sweep.base_name, sweep.base_text);
      if (base_root.IsMap() && base_root["suite"]) sweep.kind = SweepKind::EvalCluster;
      // The file by its full path and text: the same sweep from another working directory is the same plan.
      std::error_code ec;
      sweep.base_identity =
          fmt::format("file {}\n{}", fs::weakly_canonical(sweep.base_name, ec).string(), sweep.base_text);
    }

    std::set<std::string> keys;  // every key the sweep sets, once
    const auto claim = [&keys](const yaml::Node& key, const std::string& name) {
      if (!keys.insert(name).second) throw input_error(key.place(), name, "a key not already set by this sweep", name);
    };
    if (const yaml::Node set = root["set"]) {
      for (const yaml::Entry& e : set.entries("a mapping of scenario keys to values")) {
        claim(e.key, e.name());
        sweep.fixed.push_back(ScenarioOverride{e.name(), flow_yaml(e.value.raw()), e.value.place(), base_dir});
      }
    }
    if (const yaml::Node axes = root["axes"]) {
      for (const yaml::Entry& e : axes.entries("a mapping of scenario keys to lists of values")) {
        claim(e.key, e.name());
        sweep.dimensions.push_back(SweepDimension{{read_axis(e)}});
      }
    }
    if (const yaml::Node zip = root["zip"]) {
      const std::string expected = "a list of mappings, each of axes of equal length that move together";
      for (const yaml::Node& group : zip.items(expected)) {
        SweepDimension dimension;
        for (const yaml::Entry& e : group.entries(expected)) {
          claim(e.key, e.name());
          dimension.axes.push_back(read_axis(e));
          if (dimension.axes.back().values.size() != dimension.axes.front().values.size()) {
            e.value.fail(fmt::format("{} values, as many as '{}' has (a zipped group moves together)",
                                     dimension.axes.front().values.size(), dimension.axes.front().key));
          }
        }
        if (dimension.axes.empty()) group.fail(expected);
        sweep.dimensions.push_back(std::move(dimension));
      }
    }
    sweep.seeds = read_seeds(root["seeds"]);
    sweep.seeds_place = root["seeds"] ? root["seeds"].place() : root.place();
    sweep.keep = read_keep(root["keep"]);

    std::size_t runs = sweep.seeds.size();
    for (const SweepDimension& d : sweep.dimensions) {
      runs *= d.size();
      if (runs > kMaxRuns) root.fail(fmt::format("a sweep of at most {} runs (points x seeds)", kMaxRuns));
    }
    return sweep;
  });
}

SweepFile load_sweep(const std::string& path) { return parse_sweep(path, yaml::read_file(path, "sweep")); }

std::vector<const SweepAxis*> sweep_columns(const SweepFile& sweep) {
  std::vector<const SweepAxis*> columns;
  for (const SweepDimension& d : sweep.dimensions) {
    for (const SweepAxis& a : d.axes) columns.push_back(&a);
  }
  return columns;
}

std::vector<SweepPoint> sweep_points(const SweepFile& sweep) {
  std::size_t count = 1;
  for (const SweepDimension& d : sweep.dimensions) count *= d.size();
  std::vector<SweepPoint> points(count);
  for (std::size_t id = 0; id < count; ++id) {
    points[id].id = id;
    // Mixed radix, the last dimension fastest.
    std::vector<std::size_t> index(sweep.dimensions.size());
    std::size_t rest = id;
    for (std::size_t d = sweep.dimensions.size(); d-- > 0;) {
      index[d] = rest % sweep.dimensions[d].size();
      rest /= sweep.dimensions[d].size();
    }
    for (std::size_t d = 0; d < sweep.dimensions.size(); ++d) {
      for (const SweepAxis& a : sweep.dimensions[d].axes) points[id].values.push_back(&a.values[index[d]]);
    }
  }
  return points;
}

std::vector<ScenarioOverride> run_overrides(const SweepFile& sweep, const SweepPoint& point, std::uint64_t seed) {
  std::vector<ScenarioOverride> overrides = sweep.fixed;
  const std::string base_dir = fs::path(sweep.path).parent_path().string();
  const std::vector<const SweepAxis*> columns = sweep_columns(sweep);
  for (std::size_t i = 0; i < columns.size(); ++i) {
    overrides.push_back(ScenarioOverride{columns[i]->key, point.values[i]->yaml, point.values[i]->place, base_dir});
  }
  overrides.push_back(ScenarioOverride{"seed", std::to_string(seed), sweep.seeds_place, base_dir});
  // "{seed}" in a value is the run's seed: each seed can read its own workload (a trace per seed).
  const std::string seed_text = std::to_string(seed);
  for (ScenarioOverride& o : overrides) {
    for (std::size_t at = o.value.find("{seed}"); at != std::string::npos; at = o.value.find("{seed}", at)) {
      o.value.replace(at, 6, seed_text);
      at += seed_text.size();
    }
  }
  return overrides;
}

Scenario sweep_scenario(const SweepFile& sweep, const SweepPoint& point, std::uint64_t seed) {
  return parse_scenario_at(sweep.base_name, sweep.base_text, sweep.base_within, run_overrides(sweep, point, seed));
}

EvalClusterConfig sweep_eval_config(const SweepFile& sweep, const SweepPoint& point, std::uint64_t seed) {
  return parse_eval_cluster_config(sweep.base_name, sweep.base_text, run_overrides(sweep, point, seed));
}

void validate_sweep(const SweepFile& sweep, const std::vector<SweepPoint>& points, const Catalog& catalog) {
  for (const SweepPoint& point : points) {
    if (sweep.kind == SweepKind::Run) {
      make_policies(sweep_scenario(sweep, point, sweep.seeds.front()), catalog);
      continue;
    }
    const EvalClusterConfig config = sweep_eval_config(sweep, point, sweep.seeds.front());
    make_policies(config.scenario, catalog);
    if (config.policies.size() != 1) {
      throw input_error(sweep.path, "policies",
                        "one evaluation policy per run of an eval-cluster sweep (make it an axis: "
                        "policies: [coupled, decoupled])",
                        fmt::format("{} policies", config.policies.size()));
    }
    catalog.evaluations.make(config.policies.front().args);
  }
}

std::string sweep_plan_text(const SweepFile& sweep, const std::vector<SweepPoint>& points) {
  std::string text = fmt::format("base {}\n", sweep.base_identity);
  for (const ScenarioOverride& o : sweep.fixed) text += fmt::format("set {}={}\n", o.key, o.value);
  const std::vector<const SweepAxis*> columns = sweep_columns(sweep);
  for (const SweepPoint& p : points) {
    text += fmt::format("point {}", p.id);
    for (std::size_t i = 0; i < columns.size(); ++i) text += fmt::format(" {}={}", columns[i]->key, p.values[i]->yaml);
    text += '\n';
  }
  text += fmt::format("seeds {}\n", fmt::join(sweep.seeds, " "));
  return text;
}

}  // namespace acmesim
