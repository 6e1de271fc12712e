// The contract over all six policy slots: every combination the catalog offers of outcome model,
// failure model and recovery policy keeps the run's books (conservation is checked inside run()),
// under a preemptive and a backfilling scheduler; every evaluation policy plans a valid partition
// of the bundled suite. A policy added to any slot is covered here without a line of test code.
#include <fmt/format.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "io/eval_suite.hpp"
#include "io/scenario.hpp"
#include "policies/catalog.hpp"
#include "sim/model/eval/eval_sim.hpp"
#include "sim/run/simulation.hpp"
#include "tests/support.hpp"

using namespace acmesim;
using namespace acmesim::testing;

namespace {

/// 200 jobs on 8 nodes over about two hours: single-GPU jobs of every type, and 16-GPU
/// pretraining jobs long enough for node failures to hit them.
std::vector<JobSpec> fault_trace() {
  std::vector<JobSpec> jobs;
  for (std::uint32_t i = 0; i < 200; ++i) {
    JobSpec j;
    j.id = JobId{i};
    fmt::format_to(std::back_inserter(j.trace_id), "j{}", i);
    j.user = UserId{i % 5};
    const bool pretrain = i % 10 == 0;
    j.type = pretrain ? JobType::Pretrain : kJobTypes[1 + i % (kJobTypeCount - 1)];
    const int gpus = pretrain ? 16 : 1;
    j.demand = Demand{pretrain ? 2 : 1, gpus, gpus * 16, 0};
    j.submitted = SimTime{seconds(std::int64_t{30} * i)};
    j.runtime = seconds(pretrain ? 7200 : 60 + std::int64_t{i % 7} * 300);
    j.recorded_state = i % 9 == 0 ? FinalState::Failed : FinalState::Completed;
    j.recorded_start = j.submitted;
    j.source_line = i + 2;
    jobs.push_back(j);
  }
  return jobs;
}

/// The YAML block that makes each policy do something on the trace above.
std::string block(const std::string& slot, const std::string& name, const std::string& incident_log) {
  if (slot == "failures" && name == "replay") return fmt::format("{{name: replay, file: '{}'}}", incident_log);
  if (slot == "failures" && name == "node-mtbf") return "{name: node-mtbf, rate_per_day: 2.0}";
  return name;
}

}  // namespace

TEST_CASE("Every outcome, failure and recovery policy combination keeps the run's books", "[contract]") {
  const Catalog catalog = builtin_catalog();
  const auto jobs = fault_trace();
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("acmesim-slots-{}", ::getpid());
  std::filesystem::create_directories(dir);
  const std::string log = (dir / "incidents.csv").string();
  std::ofstream(log) << "time_s,node,event,reason\n600,0,fail,NVLinkError\n2400,0,repair,\n3000,3,fail,\n"
                        "3100,5,fail,ECCError\n9000,3,repair,\n9100,5,repair,\n";
  std::size_t runs = 0;
  for (const char* scheduler : {"las", "easy-backfill"}) {
    for (const auto& o : catalog.outcomes.entries()) {
      for (const auto& f : catalog.failures.entries()) {
        for (const auto& r : catalog.recoveries.entries()) {
          INFO(scheduler << " | outcomes " << o.name << " | failures " << f.name << " | recovery " << r.name);
          const std::string yaml = fmt::format(
              "trace: unused.csv\ncluster: {{nodes: 8, gpus_per_node: 8, cpus_per_node: 128}}\nscheduler: {}\n"
              "outcomes: {}\nfailures: {}\nrecovery: {}\n",
              scheduler, block("outcomes", o.name, log), block("failures", f.name, log),
              block("recovery", r.name, log));
          const Scenario scenario = parse_scenario((dir / "slots.yaml").string(), yaml);
          Simulation sim{scenario.cluster, jobs, make_policies(scenario, catalog)};
          const RunResult result = sim.run();  // throws if a job did not do exactly its work
          ++runs;
          for (const JobStatus& s : result.jobs) {
            REQUIRE(s.phase == JobPhase::Ended);
            CHECK(s.held_gpu_ms >= 0);
            CHECK(s.lost_gpu_ms >= 0);
          }
          if (f.name != "none") {
            CHECK(result.node_failures > 0);
          } else {
            CHECK(result.node_failures == 0);
          }
        }
      }
    }
  }
  CHECK(runs == 2 * catalog.outcomes.entries().size() * catalog.failures.entries().size() *
                    catalog.recoveries.entries().size());
  std::filesystem::remove_all(dir);
}

TEST_CASE("Every evaluation policy plans each dataset piece exactly once on one and on four nodes", "[contract]") {
  const Catalog catalog = builtin_catalog();
  const EvalSuite suite = load_eval_suite(kSource + "/configs/eval/opencompass63.yaml");
  const EvalRequest request{14'600'000'000, &suite};
  for (const auto& e : catalog.evaluations.entries()) {
    const auto policy = catalog.evaluations.make(PolicyArgs::named("evaluation", e.name));
    for (const int nodes : {1, 4}) {
      INFO(e.name << " on " << nodes << " nodes");
      const EvalResources resources{nodes, 8};
      const EvalPlan plan = policy->plan(request, resources);
      // simulate_evaluation throws unless the plan is a partition of the suite with pinned GPUs in range.
      const EvalResult result = simulate_evaluation(request, resources, plan);
      CHECK(result.metrics.size() == suite.datasets.size());
      CHECK(result.makespan > Duration{0});
      CHECK(result.gpu_held_ms >= result.gpu_inference_ms);
    }
  }
}
