#include "io/scenario.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "policies/catalog.hpp"
#include "sim/core/error.hpp"
#include "tests/support.hpp"

using namespace acmesim;

namespace {
const std::string kBase = "trace: t.csv\ncluster: {nodes: 4}\n";

std::string error_of(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  try {
    const Scenario s = parse_scenario("dir/x.yaml", yaml, overrides);
    const Catalog catalog = builtin_catalog();
    catalog.schedulers.make(s.scheduler);
    catalog.placements.make(s.placement);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("a minimal scenario gets the documented defaults") {
  const Scenario s = parse_scenario("dir/x.yaml", kBase);
  CHECK(s.name == "x");
  CHECK(s.seed == 1);
  CHECK(s.trace_path == "dir/t.csv");
  CHECK(s.cluster.gpu_nodes == 4);
  CHECK(s.cluster.gpus_per_node == 8);
  CHECK(s.cluster.cpus_per_node == 0);
  CHECK(s.scheduler.name() == "fifo");
  CHECK(s.placement.name() == "pack");
  CHECK(s.timeline_interval == seconds(600));
}

TEST_CASE("a policy is named in the short or the long form") {
  CHECK(parse_scenario("x.yaml", kBase + "scheduler: replay\n").scheduler.name() == "replay");
  CHECK(parse_scenario("x.yaml", kBase + "scheduler: {name: replay}\n").scheduler.name() == "replay");
}

TEST_CASE("an unknown top-level key is an error naming the valid keys and its place") {
  CHECK(error_of(kBase + "shceduler: fifo\n") ==
        "dir/x.yaml:3:1: scenario: expected a known key (name, description, seed, trace, cluster, scheduler, "
        "placement, timeline_interval_s, skip_bad_rows, outcomes, failures, recovery), found 'shceduler' (did you mean "
        "'scheduler'?)");
}

TEST_CASE("an unknown policy name lists the known ones") {
  CHECK(error_of(kBase + "scheduler: fifoo\n") ==
        "dir/x.yaml:3:12: scheduler: expected a known policy (acme, "
        "conservative-backfill, easy-backfill, fair-share, fifo, las, qssf, "
        "replay, sjf, slurm, srtf), found 'fifoo' (did you mean 'fifo'?)");
}

TEST_CASE("a parameter no policy reads is an error") {
  CHECK(error_of(kBase + "scheduler:\n  name: fifo\n  depth: 3\n") ==
        "dir/x.yaml:5:3: scheduler 'fifo': expected no key (it takes no parameters), found 'depth'");
}

TEST_CASE("a cluster value of the wrong form names the key, the expectation and the value") {
  CHECK(error_of("trace: t.csv\ncluster: {nodes: lots}\n") ==
        "dir/x.yaml:2:18: cluster.nodes: expected a whole number in [1, 1000000], found 'lots'");
  CHECK(error_of("trace: t.csv\ncluster: {nodes: 2, gpus: 8}\n") ==
        "dir/x.yaml:2:21: cluster: expected a known key (nodes, gpus_per_node, cpus_per_node, "
        "memory_gib_per_node, cpu_nodes, nodes_per_switch, launch_latency_s, launch_in_duration, admission_latency_s), "
        "found 'gpus'");
  CHECK(error_of("cluster: {nodes: 2}\n") ==
        "dir/x.yaml:1:1: trace: expected the path of an AcmeTrace CSV file (plain or .gz) (a required key), found ''");
}

TEST_CASE("overrides set dotted keys, and a trace given there is relative to the working directory") {
  const Scenario s =
      parse_scenario("dir/x.yaml", kBase, {"cluster.nodes=300", "scheduler=replay", "trace=y.csv", "seed=7"}, "/work");
  CHECK(s.cluster.gpu_nodes == 300);
  CHECK(s.scheduler.name() == "replay");
  CHECK(s.trace_path == "/work/y.csv");
  CHECK(s.seed == 7);
  CHECK(error_of(kBase, {"cluster.nodes=0"}) ==
        "--set cluster.nodes: cluster.nodes: expected a whole number in [1, 1000000], "
        "found '0'");
  CHECK(error_of(kBase, {"nodes"}) ==
        "--set nodes: override: expected key=value, e.g. --set cluster.nodes=300, found "
        "'nodes'");
}

TEST_CASE("malformed YAML is reported with its position") {
  CHECK(error_of("trace: [unclosed\n") ==
        "dir/x.yaml:2:1: YAML: expected valid YAML (end of sequence flow not found), found ''");
  CHECK(error_of("trace: t.csv\ncluster: {nodes: 4}\nseed: [1\nname: x\n") ==
        "dir/x.yaml:4:5: YAML: expected valid YAML (end of sequence flow not found), found ': x'");
}

TEST_CASE("a list or mapping used as a key is an InputError naming file, line and column, not a crash") {
  // yaml-cpp throws its own exception for `? [a, b] : 1`; the program used to abort on it.
  CHECK(error_of(kBase + "? [a, b] : 1\n") ==
        "dir/x.yaml:3:3: scenario: expected a plain key (a name or a number, not a list or a mapping), found '[a, b]: "
        "1'");
  CHECK(error_of("trace: t.csv\ncluster: {nodes: 4, ? {x: 1} : 2}\n")
            .rfind("dir/x.yaml:2:23: cluster: expected a plain key", 0) == 0);
  CHECK(error_of(kBase + "scheduler: {name: fifo, ? [a] : 1}\n")
            .rfind("dir/x.yaml:3:27: scheduler: expected a plain key", 0) == 0);
  const auto path = acmesim::testing::scratch_dir() / "acmesim_nonscalar_key.yaml";
  std::ofstream(path) << kBase << "? [a, b] : 1\n";
  CHECK_THROWS_MATCHES(load_scenario(path.string()), InputError,
                       Catch::Message(path.string() + ":3:3: scenario: expected a plain key (a name or a number, not a "
                                                      "list or a mapping), found '[a, b]: 1'"));
  std::filesystem::remove(path);
}

TEST_CASE("a scenario value out of its range names the range and its place") {
  CHECK(error_of("trace: t.csv\ncluster: {nodes: 2, gpus_per_node: 65}\n") ==
        "dir/x.yaml:2:36: cluster.gpus_per_node: expected a whole number in [1, 64], found '65'");
  CHECK(error_of(kBase + "seed: -3\n") == "dir/x.yaml:3:7: seed: expected a whole number >= 0, found '-3'");
  CHECK(error_of(kBase + "timeline_interval_s: .inf\n") ==
        "dir/x.yaml:3:22: timeline_interval_s: expected a number in [1, 315360000], found '.inf'");
}
