#pragma once
/// A scenario: everything one run needs, read from YAML once and then a plain value.
///
///   name: seren                     # optional, default: the file's stem
///   seed: 1                         # the one seed every random stream derives from
///   trace: ../traces/x.csv.gz       # relative to the scenario file (or to the working
///                                   # directory when given with --set)
///   cluster: {nodes: 286, gpus_per_node: 8, cpus_per_node: 128, memory_gib_per_node: 1024,
///             cpu_nodes: 0, nodes_per_switch: 0,   # GPU nodes per leaf switch, 0: no topology
///             launch_latency_s: {8: 0, 16: 50, 32: 100},  # CDF {s: percent}; absent: none
///             launch_in_duration: true}        # recorded durations include the first launch
///   scheduler: fifo                 # or {name: fifo, ...parameters}
///   placement: pack
///   outcomes: trace                 # how jobs end: trace | all-complete | taxonomy (docs/failures.md)
///   failures: none                  # node failure injection: none | node-mtbf | replay
///   recovery: none                  # checkpointing + restart of pretraining jobs: none | manual | auto
///   timeline_interval_s: 600        # timeline.csv sampling period
///   skip_bad_rows: false            # count and report malformed trace rows instead of failing
///
/// Unknown keys are errors that name the valid ones; every error says file:line:col.
#include <cstdint>
#include <string>
#include <vector>

#include "io/acme_trace.hpp"
#include "sim/core/time.hpp"
#include "sim/model/cluster.hpp"
#include "sim/policy_api/catalog.hpp"
#include "sim/policy_api/policy_args.hpp"
#include "sim/run/simulation.hpp"

namespace acmesim {

struct Scenario {
  std::string name;
  std::string source;  // the scenario file, or "<built-in>"
  std::uint64_t seed = 1;
  std::string trace_path;
  ClusterSpec cluster;
  LaunchLatency launch;        // cluster.launch_latency_s, cluster.launch_in_duration
  AdmissionLatency admission;  // cluster.admission_latency_s
  PolicyArgs scheduler;
  PolicyArgs placement;
  // The fault slots default to the core's behaviour (load_scenario() sets them from the file).
  PolicyArgs outcomes = PolicyArgs::named("outcomes", "trace");
  PolicyArgs failures = PolicyArgs::named("failures", "none");
  PolicyArgs recovery = PolicyArgs::named("recovery", "none");
  Duration timeline_interval = seconds(600);
  bool skip_bad_rows = false;
};

/// One key replaced in a scenario before it is read: `--set KEY=VALUE` on the command line, or
/// one value of a sweep axis. Errors in it are placed at `place` and relative paths in it
/// (`trace`, a policy's CSV table) start at `base_dir`.
struct ScenarioOverride {
  std::string key;    // dotted: "cluster.nodes", "recovery.mode"
  std::string value;  // YAML text: "300", "{name: node-mtbf, rate_per_day: 0.2}"
  std::string place;  // "--set KEY", or the sweep file's file:line:column
  std::string base_dir;
};

/// "KEY=VALUE" as given to --set: placed at "--set KEY", relative to `working_dir`.
ScenarioOverride command_line_override(const std::string& text, const std::string& working_dir);

/// Loads `path`, applying `overrides` ("dotted.key=value", values parsed as YAML) first.
/// A path given in an override is relative to `working_dir`.
Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides = {},
                       const std::string& working_dir = ".");

/// Same, from YAML text; `name` stands for the file in messages and relative paths.
Scenario parse_scenario(const std::string& name, const std::string& yaml_text,
                        const std::vector<std::string>& overrides = {}, const std::string& working_dir = ".");

/// The scenario in `yaml_text` (the whole document, or the mapping under the top-level key
/// `within`, e.g. a sweep file's inline `base`), with `overrides` applied first. `name` stands
/// for the file in messages and relative paths.
Scenario parse_scenario_at(const std::string& name, const std::string& yaml_text, const std::string& within,
                           const std::vector<ScenarioOverride>& overrides);

/// The scenario with every value resolved, as YAML that load_scenario() reads back to the same
/// scenario: every key (defaults filled in), the trace as an absolute path, and each policy with
/// every parameter it reads. A value left at its default is marked `# default`; a parameter whose
/// default is a behaviour rather than a value ("none: every type") is written as a comment.
/// InputError if a policy cannot be built.
std::string resolved_scenario_yaml(const Scenario& scenario, const Catalog& catalog);

/// The five policies `scenario` names, built from `catalog` (InputError for an unknown name or
/// parameter).
Policies make_policies(const Scenario& scenario, const Catalog& catalog);

/// The options every run of `scenario` on `trace` shares (`run`, `compare`, `eval-cluster`):
/// the scenario's timeline interval, its launch latency and seed, and the local time of day at
/// SimTime 0 (the trace's epoch in its UTC offset) for recovery policies whose people sleep at
/// night.
SimulationOptions simulation_options(const Scenario& scenario, const Trace& trace);

}  // namespace acmesim
