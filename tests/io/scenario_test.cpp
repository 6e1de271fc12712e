#include <catch2/catch.hpp>

#include "policies/catalog.hpp"
#include "io/scenario.hpp"
#include "sim/core/error.hpp"

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
        "dir/x.yaml:3:1: unknown key 'shceduler' (valid: name, description, seed, trace, cluster, scheduler, "
        "placement, timeline_interval_s, skip_bad_rows, outcomes, failures, recovery)");
}

TEST_CASE("an unknown policy name lists the known ones") {
  CHECK(error_of(kBase + "scheduler: fifoo\n") == "dir/x.yaml:3:12: scheduler: unknown policy 'fifoo' (known: acme, "
                                                  "conservative-backfill, easy-backfill, fair-share, fifo, las, qssf, "
                                                  "replay, sjf, srtf)");
}

TEST_CASE("a parameter no policy reads is an error") {
  CHECK(error_of(kBase + "scheduler:\n  name: fifo\n  depth: 3\n") ==
        "dir/x.yaml:5:3: scheduler 'fifo': unknown key 'depth' (known: none, it takes no parameters)");
}

TEST_CASE("a cluster value of the wrong form names the key, the expectation and the value") {
  CHECK(error_of("trace: t.csv\ncluster: {nodes: lots}\n") ==
        "dir/x.yaml:2:18: cluster.nodes: expected a whole number >= 1, found 'lots'");
  CHECK(error_of("trace: t.csv\ncluster: {nodes: 2, gpus: 8}\n") ==
        "dir/x.yaml:2:21: unknown key 'cluster.gpus' (valid: nodes, gpus_per_node, cpus_per_node, "
        "memory_gib_per_node, cpu_nodes, nodes_per_switch)");
  CHECK(error_of("cluster: {nodes: 2}\n") ==
        "dir/x.yaml: trace: expected the path of an AcmeTrace CSV file (plain or .gz), found nothing");
}

TEST_CASE("overrides set dotted keys, and a trace given there is relative to the working directory") {
  const Scenario s = parse_scenario("dir/x.yaml", kBase,
                                    {"cluster.nodes=300", "scheduler=replay", "trace=y.csv", "seed=7"}, "/work");
  CHECK(s.cluster.gpu_nodes == 300);
  CHECK(s.scheduler.name() == "replay");
  CHECK(s.trace_path == "/work/y.csv");
  CHECK(s.seed == 7);
  CHECK(error_of(kBase, {"cluster.nodes=0"}) == "--set cluster.nodes: cluster.nodes: expected a whole number >= 1, "
                                                "found '0'");
  CHECK(error_of(kBase, {"nodes"}) == "--set nodes: expected key=value, e.g. --set cluster.nodes=300");
}

TEST_CASE("malformed YAML is reported with its position") {
  CHECK(error_of("trace: [unclosed\n") == "dir/x.yaml:2:1: not valid YAML: end of sequence flow not found");
}
