// The cluster model's launch latency (sim/run LaunchLatency): resources held from the
// scheduling decision, work after the latency, and recorded durations read as including the
// first launch. Times in seconds; one 8-GPU node.
#include <catch2/catch.hpp>

#include "io/scenario.hpp"
#include "policies/catalog.hpp"
#include "sim/core/error.hpp"
#include "sim/run/simulation.hpp"
#include "tests/support.hpp"

using namespace acmesim;
using namespace acmesim::testing;

namespace {

/// A launch of exactly `s` seconds: a one-point CDF.
LaunchLatency fixed_launch(double s, bool in_duration) { return LaunchLatency{PointCdf{{{s, 100.0}}}, in_duration}; }

RunResult run_with_launch(const std::vector<JobSpec>& jobs, const std::string& scheduler, LaunchLatency launch) {
  const Catalog catalog = builtin_catalog();
  const PolicyArgs args = policy_from_text("scheduler", scheduler, "<test>", 1);
  SimulationOptions options;
  options.launch = std::move(launch);
  Simulation sim{ClusterSpec{1, 8, 0, 0, 0}, jobs,
                 core_policies(catalog, catalog.schedulers.make(args),
                               catalog.placements.make(PolicyArgs::named("placement", "pack"))),
                 options};
  return sim.run();
}

}  // namespace

TEST_CASE("a launch inside the recorded duration holds the job's GPUs from the decision and lengthens nothing") {
  // j0 (8 GPUs, 100 s) is started at 0: it holds the node from 0, its pod works from 5 and it
  // ends at 100, its recorded duration. j1 (submitted at 10) gets the node at 100, works from
  // 105 and ends at 150.
  const auto jobs = make_jobs({{0, 8, 100}, {10, 8, 50}});
  const RunResult r = run_with_launch(jobs, "fifo", fixed_launch(5, true));
  CHECK(start_seconds(r) == std::vector<std::int64_t>{0, 100});
  CHECK(end_seconds(r) == std::vector<std::int64_t>{100, 150});
  for (const JobStatus& s : r.jobs) CHECK(s.overhead_gpu_ms == 0);
  CHECK(r.jobs[0].held_gpu_ms == 8 * 100'000);
  // A job shorter than its launch ends at its recorded duration: its launch is cut to it.
  const RunResult tiny = run_with_launch(make_jobs({{0, 8, 3}}), "fifo", fixed_launch(5, true));
  CHECK(end_seconds(tiny) == std::vector<std::int64_t>{3});
  CHECK(tiny.jobs[0].overhead_gpu_ms == 0);
}

TEST_CASE("a launch on top of the recorded duration is held before the work at every start") {
  // launch_in_duration: false. j0 holds the node 0-105 (5 s launch, then 100 s of work); j1 gets
  // it at 105 and ends at 160. The launches are booked as overhead.
  const auto jobs = make_jobs({{0, 8, 100}, {10, 8, 50}});
  const RunResult r = run_with_launch(jobs, "fifo", fixed_launch(5, false));
  CHECK(start_seconds(r) == std::vector<std::int64_t>{0, 105});
  CHECK(end_seconds(r) == std::vector<std::int64_t>{105, 160});
  CHECK(r.jobs[0].overhead_gpu_ms == 8 * 5'000);
  CHECK(r.jobs[0].held_gpu_ms == 8 * 105'000);
}

TEST_CASE("a restarted job pays a new launch, the first one stays inside its recorded duration") {
  // srtf, no restart overhead, 5 s launches inside the duration. a (100 s) runs 0-10 and is
  // preempted by b (20 s), which runs 10-30 (its launch inside its 20 s). a restarts at 30:
  // a new 5 s launch, then its 90 s left: ends at 125 (120 without the launch).
  const auto jobs = make_jobs({{0, 8, 100}, {10, 8, 20}});
  const RunResult r = run_with_launch(jobs, "{name: srtf, restart_overhead_s: 0}", fixed_launch(5, true));
  CHECK(end_seconds(r) == std::vector<std::int64_t>{125, 30});
  CHECK(r.jobs[0].preemptions == 1);
  CHECK(r.jobs[0].overhead_gpu_ms == 8 * 5'000);
  CHECK(r.jobs[0].held_gpu_ms == 8 * 105'000);
}

TEST_CASE("launch latencies are drawn from the configured CDF in whole seconds, the same for the same seed") {
  std::vector<JobLine> lines;
  for (int i = 0; i < 200; ++i) lines.push_back({i, 1, 100});
  const auto jobs = make_jobs(lines);
  // On top of the duration, so that each launch shows as the job's time beyond its runtime.
  const LaunchLatency launch{PointCdf{{{8, 0}, {16, 50}, {32, 100}}}, false};
  const RunResult a = run_with_launch(jobs, "fifo", launch);
  const RunResult b = run_with_launch(jobs, "fifo", launch);
  const auto launch_of = [&](const RunResult& r, std::size_t i) {
    return *r.jobs[i].ended - *r.jobs[i].started - jobs[i].runtime;
  };
  bool varied = false;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const Duration l = launch_of(a, i);
    CHECK(l >= seconds(8));
    CHECK(l <= seconds(32));
    CHECK(l.count() % 1000 == 0);
    CHECK(l == launch_of(b, i));
    CHECK(a.jobs[i].overhead_gpu_ms == jobs[i].demand.gpus * l.count());
    varied = varied || l != launch_of(a, 0);
  }
  CHECK(varied);
  // Inside the duration (the default), the same draws lengthen no job.
  const RunResult inside = run_with_launch(jobs, "fifo", LaunchLatency{launch.cdf, true});
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    CHECK(*inside.jobs[i].ended - *inside.jobs[i].started == jobs[i].runtime);
  }
}

TEST_CASE("a scenario reads cluster.launch_latency_s and launch_in_duration, and rejects a malformed CDF") {
  const Scenario s =
      parse_scenario("x.yaml", "trace: t.csv\ncluster: {nodes: 2, launch_latency_s: {8: 0, 16: 50, 32: 100}}\n");
  REQUIRE(s.launch.cdf.points.size() == 3);
  CHECK(s.launch.in_duration);
  const Scenario off = parse_scenario(
      "x.yaml", "trace: t.csv\ncluster: {nodes: 2, launch_latency_s: {8: 100}, launch_in_duration: false}\n");
  CHECK_FALSE(off.launch.in_duration);
  CHECK(parse_scenario("x.yaml", "trace: t.csv\ncluster: {nodes: 2}\n").launch.cdf.empty());
  CHECK_THROWS_AS(parse_scenario("x.yaml", "trace: t.csv\ncluster: {nodes: 2, launch_latency_s: {8: 0, 16: 50}}\n"),
                  InputError);
}

TEST_CASE("an admission latency delays when a job reaches the scheduler and counts as queueing") {
  // Admission of exactly 7 s: j0 (submitted 0) starts at 7 and ends at 107; j1 (submitted 10) is
  // admitted at 17 and waits for the node until 107. Queues 7 and 97 s.
  const auto jobs = make_jobs({{0, 8, 100}, {10, 8, 50}});
  const Catalog catalog = builtin_catalog();
  SimulationOptions options;
  options.admission = AdmissionLatency{PointCdf{{{7.0, 100.0}}}};
  Simulation sim{ClusterSpec{1, 8, 0, 0, 0}, jobs,
                 core_policies(catalog, catalog.schedulers.make(PolicyArgs::named("scheduler", "fifo")),
                               catalog.placements.make(PolicyArgs::named("placement", "pack"))),
                 options};
  const RunResult r = sim.run();
  CHECK(start_seconds(r) == std::vector<std::int64_t>{7, 107});
  CHECK(end_seconds(r) == std::vector<std::int64_t>{107, 157});
  CHECK(parse_scenario("x.yaml", "trace: t.csv\ncluster: {nodes: 2, admission_latency_s: {4: 0, 8: 100}}\n")
            .admission.cdf.points.size() == 2);
}
