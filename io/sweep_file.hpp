#pragma once
/// A sweep file: a base scenario and the axes a study varies (docs/studies.md, key by key).
///
///   name: seren-capacity                # optional, default: the file's stem
///   base: ../seren.yaml                 # a scenario file, or a mapping (an inline scenario), or
///                                       # an eval-cluster file (one evaluation policy per run)
///   set: {trace: ../../traces/x.csv}    # optional: keys fixed for every point
///   axes:                               # a grid: the first axis varies slowest
///     cluster.nodes: {from: 200, to: 340, step: 20}
///     scheduler: [fifo, sjf, easy-backfill, acme]
///   zip:                                # optional: groups of axes whose values move together
///     - {recovery.name: [manual, auto], recovery.mode: [sync, async]}
///   seeds: 3                            # seeds 1..3 per point, or a list [1, 7, 9]
///   keep: [summary]                     # optional: each run's own files under runs/<point>-s<seed>/
///
/// A value may hold "{seed}", replaced by each run's seed (a trace per seed: `trace: w_s{seed}.csv`).
/// Axis keys are scenario keys as `--set` takes them, policy parameters included. Every value
/// is applied as an override placed at its own file:line:column, so a bad value, an unknown key
/// or an unknown policy is reported there, before anything runs (validate_sweep()).
#include <cstdint>
#include <string>
#include <vector>

#include "io/eval_cluster_config.hpp"
#include "io/outputs.hpp"
#include "io/scenario.hpp"
#include "sim/policy_api/catalog.hpp"

namespace acmesim {

/// One value of an axis: YAML text for the override and the cell results.csv shows.
struct SweepValue {
  std::string yaml;  // flow YAML: "300", "fifo", "{name: node-mtbf, rate_per_day: 0.2}"
  std::string cell;  // a scalar as written ("300", "fifo"), anything else as its flow YAML
  std::string place;
};

struct SweepAxis {
  std::string key;  // dotted scenario key: the column name in results.csv
  std::string place;
  std::vector<SweepValue> values;
};

/// One dimension of the grid: a single axis, or a zipped group (equal lengths, moving together).
struct SweepDimension {
  std::vector<SweepAxis> axes;
  std::size_t size() const { return axes.front().values.size(); }
};

/// What each run of a sweep is: `acmesim run` of a scenario, or `acmesim eval-cluster` of an
/// eval-cluster file (a base with `suite:`), one evaluation policy per run.
enum class SweepKind { Run, EvalCluster };

struct SweepFile {
  SweepKind kind = SweepKind::Run;
  std::string path;
  std::string name;
  std::string base_name;                // the scenario's file (the sweep file itself for an inline base)
  std::string base_text;                // the whole text of base_name
  std::string base_within;              // "base" for an inline scenario, "" for a file
  std::string base_identity;            // what identifies the base in the plan: the file's text, or the inline mapping
  std::vector<ScenarioOverride> fixed;  // `set:`, applied to every point before its axes
  std::vector<SweepDimension> dimensions;
  std::vector<std::uint64_t> seeds;
  std::string seeds_place;
  RunOutputs keep{false, false, false};  // none by default: results.csv holds every figure
};

/// One point of the grid: its id (0-based, grid order) and one value per axis (column order).
struct SweepPoint {
  std::size_t id = 0;
  std::vector<const SweepValue*> values;
};

/// Reads and checks the form of a sweep file (not yet the scenarios: validate_sweep()).
SweepFile load_sweep(const std::string& path);
SweepFile parse_sweep(const std::string& path, const std::string& text);

/// The axes in column order: every dimension's axes, in the order of the file.
std::vector<const SweepAxis*> sweep_columns(const SweepFile& sweep);
/// Every point of the grid, first dimension slowest. O(points x axes).
std::vector<SweepPoint> sweep_points(const SweepFile& sweep);

/// The overrides of one run, in the order they apply: `set`, the point's values, then the seed.
std::vector<ScenarioOverride> run_overrides(const SweepFile& sweep, const SweepPoint& point, std::uint64_t seed);
/// The scenario of one run of a Run sweep: the base, `set`, the point's values, then the seed.
Scenario sweep_scenario(const SweepFile& sweep, const SweepPoint& point, std::uint64_t seed);
/// The eval-cluster file of one run of an EvalCluster sweep, overridden the same way.
EvalClusterConfig sweep_eval_config(const SweepFile& sweep, const SweepPoint& point, std::uint64_t seed);

/// Reads every point's scenario and builds its policies, so that any bad value fails here, placed
/// in the sweep file, before a run starts. O(points) scenario reads.
void validate_sweep(const SweepFile& sweep, const std::vector<SweepPoint>& points, const Catalog& catalog);

/// What the runs are, in one canonical text (base scenario, fixed keys, each point's values, the
/// seeds; not `name`, `keep` or comments): two sweeps with the same plan give the same results.
std::string sweep_plan_text(const SweepFile& sweep, const std::vector<SweepPoint>& points);

}  // namespace acmesim
