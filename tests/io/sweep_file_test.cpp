// Sweep files: the grid, zipped axes, ranges and seeds, and every malformed file's message.
#include "io/sweep_file.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "policies/catalog.hpp"
#include "sim/core/error.hpp"
#include "tests/support.hpp"

namespace {

using namespace acmesim;
using acmesim::testing::kSource;

// An inline base scenario, so the file is self-contained; its trace is never read here.
const std::string kBase = "base: {trace: t.csv, cluster: {nodes: 10}}\n";

SweepFile sweep_of(const std::string& body) { return parse_sweep("dir/s.yaml", kBase + body); }

std::vector<std::string> cells(const SweepFile& sweep) {
  std::vector<std::string> out;
  for (const SweepPoint& p : sweep_points(sweep)) {
    std::string line;
    for (const SweepValue* v : p.values) line += (line.empty() ? "" : " ") + v->cell;
    out.push_back(line);
  }
  return out;
}

std::string error_of(const std::string& body) {
  try {
    const SweepFile sweep = sweep_of(body);
    validate_sweep(sweep, sweep_points(sweep), builtin_catalog());
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("a grid varies the last axis fastest and a zipped group moves together") {
  const SweepFile sweep = sweep_of(
      "axes:\n  cluster.nodes: [8, 10]\n  scheduler: [fifo, sjf]\n"
      "zip:\n  - {recovery.name: [manual, auto], recovery.mode: [sync, async]}\nseeds: 2\n");
  CHECK(sweep.dimensions.size() == 3);
  CHECK(cells(sweep) == std::vector<std::string>{"8 fifo manual sync", "8 fifo auto async", "8 sjf manual sync",
                                                 "8 sjf auto async", "10 fifo manual sync", "10 fifo auto async",
                                                 "10 sjf manual sync", "10 sjf auto async"});
  CHECK(sweep.seeds == std::vector<std::uint64_t>{1, 2});
  const std::vector<SweepPoint> points = sweep_points(sweep);
  const Scenario s = sweep_scenario(sweep, points[5], 2);
  CHECK(s.cluster.gpu_nodes == 10);
  CHECK(s.scheduler.name() == "fifo");
  CHECK(s.recovery.name() == "auto");
  CHECK(s.seed == 2);
}

TEST_CASE("a range gives whole numbers for whole bounds and ends at its last value despite rounding") {
  CHECK(cells(sweep_of("axes:\n  cluster.nodes: {from: 200, to: 340, step: 20}\n")) ==
        std::vector<std::string>{"200", "220", "240", "260", "280", "300", "320", "340"});
  CHECK(cells(sweep_of("axes:\n  failures.rate_per_day: {from: 0.1, to: 0.3, step: 0.1}\n")) ==
        std::vector<std::string>{"0.1", "0.2", "0.3"});
  CHECK(cells(sweep_of("axes:\n  cluster.nodes: {from: 30, to: 10, step: -10}\n")) ==
        std::vector<std::string>{"30", "20", "10"});
}

TEST_CASE("a mapping value is applied whole and shown as flow YAML") {
  const SweepFile sweep = sweep_of("axes:\n  failures: [none, {name: node-mtbf, rate_per_day: 0.01}]\nseeds: [3, 7]\n");
  CHECK(cells(sweep) == std::vector<std::string>{"none", "{name: node-mtbf, rate_per_day: 0.01}"});
  CHECK(sweep.seeds == std::vector<std::uint64_t>{3, 7});
  CHECK(sweep_scenario(sweep, sweep_points(sweep)[1], 7).failures.name() == "node-mtbf");
}

TEST_CASE("{seed} in a value is each run's seed, so that every seed can read its own trace") {
  const SweepFile sweep = sweep_of("set:\n  trace: w_s{seed}.csv\nseeds: [4, 12]\n");
  CHECK(sweep_scenario(sweep, sweep_points(sweep)[0], 4).trace_path == "dir/w_s4.csv");
  CHECK(sweep_scenario(sweep, sweep_points(sweep)[0], 12).trace_path == "dir/w_s12.csv");
}

TEST_CASE("a sweep without axes is one point, and the plan ignores names, comments and keep") {
  const SweepFile a = sweep_of("seeds: 3\n");
  CHECK(sweep_points(a).size() == 1);
  const SweepFile b = parse_sweep("dir/s.yaml", "# a comment\nname: other\n" + kBase + "seeds: 3\nkeep: [summary]\n");
  CHECK(sweep_plan_text(a, sweep_points(a)) == sweep_plan_text(b, sweep_points(b)));
  const SweepFile c = sweep_of("seeds: 4\n");
  CHECK(sweep_plan_text(a, sweep_points(a)) != sweep_plan_text(c, sweep_points(c)));
}

TEST_CASE("every malformed sweep file names file:line:column, the key, what was expected and what was found") {
  CHECK(error_of("axes:\n  cluster.nodes: []\n") ==
        "dir/s.yaml:3:18: axes.cluster.nodes: expected a non-empty list of values, or {from, to, step}, found '[]'");
  CHECK(error_of("axes:\n  cluster.nodes: 5\n") ==
        "dir/s.yaml:3:18: axes.cluster.nodes: expected a non-empty list of values, or {from, to, step}, found '5'");
  CHECK(error_of("axes:\n  cluster.nodez: [5]\n") ==
        "dir/s.yaml:3:19: cluster: expected a known key (nodes, gpus_per_node, cpus_per_node, memory_gib_per_node, "
        "cpu_nodes, nodes_per_switch, launch_latency_s, launch_in_duration, admission_latency_s), found 'nodez' "
        "(did you mean 'nodes'?)");
  CHECK(error_of("axes:\n  cluster.nodes: [5, -3]\n") ==
        "dir/s.yaml:3:22: cluster.nodes: expected a whole number in [1, 1000000], found '-3'");
  CHECK(error_of("axes:\n  scheduler: [fifo, fiffo]\n") ==
        "dir/s.yaml:3:21: scheduler: expected a known policy (acme, conservative-backfill, easy-backfill, "
        "fair-share, fifo, las, qssf, replay, sjf, slurm, srtf), found 'fiffo' (did you mean 'fifo'?)");
  CHECK(error_of("axes:\n  cluster.nodes: {from: 1, to: 5}\n") ==
        "dir/s.yaml:3:18: axes.cluster.nodes.step: expected a number, not 0 (a required key), found ''");
  CHECK(error_of("axes:\n  cluster.nodes: {from: 1, to: 5, step: 0}\n") ==
        "dir/s.yaml:3:41: axes.cluster.nodes.step: expected a number, not 0, found '0'");
  CHECK(error_of("axes:\n  cluster.nodes: {from: 5, to: 1, step: 1}\n") ==
        "dir/s.yaml:3:41: axes.cluster.nodes.step: expected a step that goes from 5 towards 1, found '1'");
  CHECK(error_of("zip:\n  - {scheduler: [fifo, sjf], cluster.nodes: [5]}\n") ==
        "dir/s.yaml:3:45: zip[0].cluster.nodes: expected 2 values, as many as 'scheduler' has (a zipped group moves "
        "together), found '[5]'");
  CHECK(error_of("axes:\n  scheduler: [fifo]\nzip:\n  - {scheduler: [sjf]}\n") ==
        "dir/s.yaml:5:6: scheduler: expected a key not already set by this sweep, found 'scheduler'");
  CHECK(error_of("axes:\n  seed: [1, 2]\n") ==
        "dir/s.yaml:3:3: axes.seed: expected a scenario key other than seed (the seeds of each point are `seeds:`), "
        "found 'seed'");
  CHECK(error_of("seeds: 0\n") == "dir/s.yaml:2:8: seeds: expected a whole number in [1, 10000], found '0'");
  CHECK(error_of("seeds: [1, 1]\n") == "dir/s.yaml:2:12: seeds[1]: expected a seed not already in the list, found '1'");
  CHECK(error_of("keep: [jobs, summry]\n") ==
        "dir/s.yaml:2:14: keep[1]: expected a known output (jobs, timeline, summary), found 'summry' (did you mean "
        "'summary'?)");
  CHECK(error_of("axis:\n  scheduler: [fifo]\n") ==
        "dir/s.yaml:2:1: sweep: expected a known key (name, description, base, set, axes, zip, seeds, keep), found "
        "'axis' (did you mean 'axes'?)");
  CHECK(error_of("set: {cluster.nodes: x}\n") ==
        "dir/s.yaml:2:22: cluster.nodes: expected a whole number in [1, 1000000], found 'x'");
  CHECK(error_of("axes:\n  cluster.nodes: {from: 1, to: 1e9, step: 1}\n") ==
        "dir/s.yaml:3:18: axes.cluster.nodes: expected a range of at most 10000 values, found '{from: 1, to: 1e9, "
        "step: 1}'");
}

TEST_CASE("a sweep with no base, or a base that cannot be read, says so") {
  CHECK_THROWS_WITH(parse_sweep("dir/s.yaml", "seeds: 2\n"),
                    "dir/s.yaml:1:1: base: expected a scenario file, or a mapping (an inline scenario) (a required "
                    "key), found ''");
  CHECK_THROWS_WITH(parse_sweep("/nonexistent/s.yaml", "base: x.yaml\n"),
                    Catch::Contains("/nonexistent/x.yaml: scenario: expected a file that can be read"));
}

TEST_CASE("every bundled sweep file is valid") {
  for (const auto& entry : std::filesystem::directory_iterator(kSource + "/configs/sweeps")) {
    if (entry.path().extension() != ".yaml") continue;
    INFO(entry.path().string());
    const SweepFile sweep = load_sweep(entry.path().string());
    CHECK_NOTHROW(validate_sweep(sweep, sweep_points(sweep), builtin_catalog()));
  }
}

TEST_CASE("a sweep over an eval-cluster file runs one evaluation policy per run") {
  const std::string base = "base: " + kSource + "/configs/eval/acme_week.yaml\n";
  const SweepFile sweep =
      parse_sweep("dir/e.yaml", base + "axes:\n  policies: [coupled, decoupled]\n  cluster.nodes: [200]\n");
  CHECK(sweep.kind == SweepKind::EvalCluster);
  const std::vector<SweepPoint> points = sweep_points(sweep);
  CHECK_NOTHROW(validate_sweep(sweep, points, builtin_catalog()));
  const EvalClusterConfig config = sweep_eval_config(sweep, points[1], 3);
  CHECK(config.policies.size() == 1);
  CHECK(config.policies.front().label == "decoupled");
  CHECK(config.scenario.cluster.gpu_nodes == 200);
  CHECK(config.seed == 3);
  CHECK(config.scenario.seed == 3);
  const SweepFile both = parse_sweep("dir/e.yaml", base + "axes:\n  cluster.nodes: [200]\n");
  CHECK_THROWS_WITH(validate_sweep(both, sweep_points(both), builtin_catalog()),
                    "dir/e.yaml: policies: expected one evaluation policy per run of an eval-cluster sweep (make it "
                    "an axis: policies: [coupled, decoupled]), found '2 policies'");
}
