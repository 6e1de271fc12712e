#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "io/acme_trace.hpp"
#include "io/failures_csv.hpp"
#include "io/outputs.hpp"
#include "io/scenario.hpp"
#include "policies/catalog.hpp"
#include "sim/core/error.hpp"
#include "sim/metrics/failure_breakdown.hpp"
#include "sim/metrics/summary.hpp"
#include "sim/model/checkpoint.hpp"
#include "sim/run/simulation.hpp"
#include "tests/support.hpp"

using namespace acmesim;
using namespace acmesim::testing;

namespace {

PolicyArgs args(const std::string& slot, const std::string& name, const std::string& yaml = "{}") {
  YAML::Node block = YAML::Load(yaml);
  block["name"] = name;
  return policy_args_from_yaml(block, slot, name, YamlOrigin{"<built-in>", {}}, 1);
}

/// Writes a node-event CSV and returns its path.
std::string events_file(const std::string& name, const std::string& rows) {
  const auto path = acmesim::testing::scratch_dir() / ("acmesim_" + name + ".csv");
  std::ofstream(path) << "time_s,node,event,reason\n" << rows;
  return path.string();
}

// Manual recovery with round numbers: checkpoint every 100 s of work, a 22 GB checkpoint saved at
// 2.2 GB/s (10 s sync stall), restart = 20 s init + 22 GB / 2.2 GB/s load (one node: min(3.125,
// 2.2) GB/s) = 30 s, and a person
// who takes 60 s to notice and exactly 1 min to respond (sigma 0): back in the queue 120 s later.
const std::string kManual =
    "{types: [Pretrain], interval_min: 1.6666666666666667, checkpoint_gb: 22, storage_gbps: 2.2, init_s: 20, "
    "detect_s: 60, day_median_min: 1, night_median_min: 1, response_sigma: 0}";

/// The failure and recovery slots of a run; the outcomes slot is `trace`.
struct FaultModels {
  std::unique_ptr<FailureModel> failures;
  std::unique_ptr<RecoveryPolicy> recovery;
};

RunResult run_with(const ClusterSpec& cluster, const std::vector<JobSpec>& jobs, FaultModels faults) {
  const Catalog catalog = builtin_catalog();
  Policies policies = core_policies(catalog, catalog.schedulers.make(PolicyArgs::named("scheduler", "fifo")),
                                    catalog.placements.make(PolicyArgs::named("placement", "pack")));
  policies.failures = std::move(faults.failures);
  policies.recovery = std::move(faults.recovery);
  Simulation sim{cluster, jobs, std::move(policies)};
  return sim.run();
}

FaultModels replay_with(const std::string& file, const std::string& recovery = "none",
                        const std::string& params = "{}") {
  const Catalog catalog = builtin_catalog();
  return FaultModels{catalog.failures.make(args("failures", "replay", "{file: '" + file + "'}")),
                     catalog.recoveries.make(args("recovery", recovery, params))};
}

std::vector<JobSpec> pretrain(std::vector<JobSpec> jobs) {
  for (JobSpec& j : jobs) j.type = JobType::Pretrain;
  return jobs;
}

}  // namespace

TEST_CASE("checkpoint arithmetic splits an attempt into work, stalls and the durably kept part") {
  const CheckpointPlan sync{seconds(100), seconds(10), Duration{0}};
  // 0-100 work, 100-110 stall (checkpoint at 100 durable at 110), 110-210 work, 210-220 stall,
  // 220-250 work: 230 s of work, 20 s stalled, 200 s kept.
  AttemptSplit s = split_attempt(sync, Duration{0}, seconds(1000), seconds(250));
  CHECK(s.work == seconds(230));
  CHECK(s.stall == seconds(20));
  CHECK(s.kept == seconds(200));
  // Inside the second stall: the checkpoint at 200 is not durable yet.
  s = split_attempt(sync, Duration{0}, seconds(1000), seconds(215));
  CHECK(s.work == seconds(200));
  CHECK(s.stall == seconds(15));
  CHECK(s.kept == seconds(100));
  // Asynchronous: the checkpoint at 200 stalls 210-220 and is durable 50 s later, at 270.
  const CheckpointPlan async{seconds(100), seconds(10), seconds(50)};
  CHECK(split_attempt(async, Duration{0}, seconds(1000), seconds(250)).kept == seconds(100));
  CHECK(split_attempt(async, Duration{0}, seconds(1000), seconds(270)).kept == seconds(200));
  // Nine checkpoints on the way (100..900), none at the very end.
  CHECK(checkpoint_wall_time(sync, Duration{0}, seconds(1000), seconds(1000)) == seconds(1090));
  // Resuming from 200: checkpoints at 300..900.
  CHECK(checkpoint_wall_time(sync, seconds(200), seconds(1000), seconds(1000)) == seconds(870));
  CHECK(split_attempt(CheckpointPlan{}, Duration{0}, seconds(1000), seconds(250)).kept == Duration{0});
}

TEST_CASE("a failure at a known time loses exactly the work since the last checkpoint") {
  // Pretrain job, 8 GPUs, 1,000 s of work on node 0 of 2. Node 0 fails at 250 s: 230 s done,
  // 200 s checkpointed, 30 s lost, 20 s stalled. Back in the queue at 370, restarts on node 1,
  // pays 30 s, does 800 s with 7 checkpoints (300..900): ends at 370 + 30 + 800 + 70 = 1,270 s.
  const auto jobs = pretrain(make_jobs({{0, 8, 1000}}));
  const RunResult r =
      run_with(ClusterSpec{2, 8, 0, 0, 0}, jobs,
               replay_with(events_file("known", "250,0,fail,NVLinkError\n5000,0,repair,\n"), "manual", kManual));
  const JobStatus& s = r.jobs[0];
  CHECK(end_seconds(r)[0] == 1270);
  CHECK(s.done == seconds(200));
  CHECK(s.lost_gpu_ms == 8 * 30'000);
  CHECK(s.overhead_gpu_ms == 8 * 30'000);
  CHECK(s.checkpoint_gpu_ms == 8 * (20'000 + 70'000));
  CHECK(s.held_gpu_ms == 8 * (250'000 + 900'000));
  CHECK(s.failures == 1);
  CHECK(s.manual_interventions == 1);
  CHECK(s.recovery_wait == seconds(120));
  CHECK(s.state == FinalState::Completed);
  REQUIRE(s.failure_log.size() == 1);
  CHECK(s.failure_log[0].reason == FailureReason::NVLinkError);
  CHECK(s.failure_log[0].attempt_gpu_ms == 8 * 250'000);
  CHECK(r.lost_gpu_ms_by_reason[static_cast<std::size_t>(FailureReason::NVLinkError)] == 8 * (30'000 + 30'000));
  const RunSummary summary = summarize(jobs, r, 16);
  CHECK(summary.by_type[static_cast<std::size_t>(JobType::Pretrain)].ettr() == Approx(1000.0 / 1270.0));
}

TEST_CASE("a node failure kills exactly the jobs on it") {
  // Pack puts A and B (4 GPUs each) on node 0 and C (8 GPUs) on node 1; node 0 fails at 50 s.
  const auto jobs = make_jobs({{0, 4, 100}, {0, 4, 100}, {0, 8, 100}});
  const RunResult r =
      run_with(ClusterSpec{2, 8, 0, 0, 0}, jobs, replay_with(events_file("kills", "50,0,fail,ECCError\n")));
  CHECK(end_seconds(r) == std::vector<std::int64_t>{50, 50, 100});
  CHECK(r.jobs[0].state == FinalState::NodeFail);
  CHECK(r.jobs[1].state == FinalState::NodeFail);
  CHECK(r.jobs[0].end_reason == FailureReason::ECCError);
  CHECK(r.jobs[2].state == FinalState::Completed);
  CHECK(r.jobs[2].failures == 0);
  CHECK(r.jobs_killed == 2);
  CHECK(r.jobs[0].work == seconds(50));
  CHECK(r.lost_gpu_ms_by_reason[static_cast<std::size_t>(FailureReason::ECCError)] == 2 * 4 * 50'000);
}

TEST_CASE("jobs a failure killed stay in the ETTR and the killed GPU time, with nothing useful kept") {
  // Same run as above, as pretraining without recovery: A and B each lost 50 s x 4 GPUs; C ran
  // its 100 s. ETTR = (0 + 0 + 100) / (50 + 50 + 100) = 0.5, not 1.
  const auto jobs = pretrain(make_jobs({{0, 4, 100}, {0, 4, 100}, {0, 8, 100}}));
  const RunResult r =
      run_with(ClusterSpec{2, 8, 0, 0, 0}, jobs, replay_with(events_file("killed", "50,0,fail,ECCError\n")));
  const RunSummary summary = summarize(jobs, r, 16);
  const GroupStats& pre = summary.by_type[static_cast<std::size_t>(JobType::Pretrain)];
  CHECK(pre.ettr() == Approx(0.5));
  CHECK(pre.killed == 2);
  CHECK(pre.killed_gpu_ms == 2 * 4 * 50'000);
  CHECK(r.jobs[0].useful_work() == Duration{0});
  CHECK(r.jobs[2].useful_work() == seconds(100));
}

TEST_CASE("the run reports the interruptions per size bucket and the failure rates it saw") {
  // The known-time run: one failure of an 8-GPU job that held its GPUs 250 + 900 s.
  const auto jobs = pretrain(make_jobs({{0, 8, 1000}}));
  const RunResult r =
      run_with(ClusterSpec{2, 8, 0, 0, 0}, jobs,
               replay_with(events_file("buckets", "250,0,fail,NVLinkError\n5000,0,repair,\n"), "manual", kManual));
  const RunSummary summary = summarize(jobs, r, 16);
  const SizeBucketFailures& small = summary.failures.by_size[0];
  CHECK(small.max_gpus == 8);
  CHECK(small.jobs == 1);
  CHECK(small.failures == 1);
  CHECK(small.mtbi_hours() == Approx(1150.0 / 3600.0));
  CHECK(summary.failures.by_size[5].min_gpus == 4097);
  // One hardware failure over 2 nodes x 1,270 s.
  CHECK(summary.failures.hardware_per_1000_node_days == Approx(1000.0 / (2 * 1270.0 / 86400.0)));
  CHECK(summary.failures.transient_per_1000_node_days == 0.0);
}

TEST_CASE("transient interruptions stop the jobs on a node but leave it up, at the configured rate") {
  // 50 nodes, one 8-GPU job per node for 200 days, 0.2 transient interruptions per node-day and no
  // hardware failures: about 2,000 interruptions, every node back 1 ms later, nothing lost for good.
  std::vector<testing::JobLine> lines(50, testing::JobLine{0, 8, 200 * 86400});
  const auto jobs = pretrain(make_jobs(lines));
  const Catalog catalog = builtin_catalog();
  FaultModels faults{catalog.failures.make(args("failures", "node-mtbf", "{rate_per_day: 0, transient_per_day: 0.2}")),
                     catalog.recoveries.make(args("recovery", "auto"))};
  const RunResult r = run_with(ClusterSpec{50, 8, 0, 0, 0}, jobs, std::move(faults));
  CHECK(r.transient_failures == r.node_failures);
  CHECK(r.node_repairs >= r.node_failures - 50);
  CHECK(r.jobs_killed == 0);
  CHECK(r.configured_rates.transient_per_node_day == Approx(0.2));
  const RunSummary summary = summarize(jobs, r, 400);
  CHECK(summary.failures.hardware_per_1000_node_days == 0.0);
  CHECK(summary.failures.transient_per_1000_node_days == Approx(200.0).epsilon(0.05));
  CHECK(summary.failures.node_availability > 0.999999);
}

TEST_CASE("a job ending exactly when a failure hits is not killed, by the phase order") {
  // A ends at 50 (Release) before node 0 fails at 50 (Fail).
  const auto jobs = make_jobs({{0, 8, 50}});
  const RunResult r = run_with(ClusterSpec{1, 8, 0, 0, 0}, jobs, replay_with(events_file("tie", "50,0,fail,\n")));
  CHECK(r.jobs[0].state == FinalState::Completed);
  CHECK(r.jobs_killed == 0);
  CHECK(end_seconds(r)[0] == 50);
}

TEST_CASE("a failure during recovery loses the restart overhead paid and nothing kept") {
  // As above, but node 0 is back at 300, the job restarts there at 370 and node 0 fails again at
  // 380, 10 s into the 30 s restart: nothing more kept, 10 s of overhead paid. Back at 500 on
  // node 1: 500 + 30 + 800 + 70 = 1,400 s.
  const auto jobs = pretrain(make_jobs({{0, 8, 1000}}));
  const RunResult r =
      run_with(ClusterSpec{2, 8, 0, 0, 0}, jobs,
               replay_with(events_file("again", "250,0,fail,NVLinkError\n300,0,repair,\n380,0,fail,CUDAError\n"),
                           "manual", kManual));
  const JobStatus& s = r.jobs[0];
  CHECK(end_seconds(r)[0] == 1400);
  CHECK(s.failures == 2);
  CHECK(s.attempt == 3);
  CHECK(s.done == seconds(200));
  CHECK(s.overhead_gpu_ms == 8 * (10'000 + 30'000));
  CHECK(s.lost_gpu_ms == 8 * 30'000);
  CHECK(s.held_gpu_ms == 8 * (250'000 + 10'000 + 900'000));
  REQUIRE(s.failure_log.size() == 2);
  CHECK(s.failure_log[1].reason == FailureReason::CUDAError);
  CHECK(r.node_repairs == 1);
}

TEST_CASE("a node that fails again while being repaired stays down until its repair") {
  // Node 0 fails at 10 (A killed), again at 20 (already down), is repaired at 30; B, submitted at
  // 15, waits for it and runs 30-40. Down 20 s of a 40 s makespan.
  const auto jobs = make_jobs({{0, 8, 100}, {15, 8, 10}});
  const RunResult r = run_with(ClusterSpec{1, 8, 0, 0, 0}, jobs,
                               replay_with(events_file("twice", "10,0,fail,\n20,0,fail,ECCError\n30,0,repair,\n")));
  CHECK(end_seconds(r) == std::vector<std::int64_t>{10, 40});
  CHECK(start_seconds(r)[1] == 30);
  CHECK(r.node_failures == 2);
  CHECK(r.node_failures_while_down == 1);
  CHECK(r.down_node_ms == 20'000);
  CHECK(summarize(jobs, r, 8).failures.node_availability == Approx(0.5));
}

TEST_CASE("a node-event file with a bad row is an error naming file, line, column name and what was expected") {
  const std::string path = events_file("bad", "10,0,fail,\n20,0,explode,\n");
  try {
    builtin_catalog().failures.make(args("failures", "replay", "{file: '" + path + "'}"));
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) == path + ":3: column 'event': expected 'fail' or 'repair', found 'explode'");
  }
}

TEST_CASE("with the default outcome, failure and recovery policies nothing changes from the core results") {
  const Scenario scenario = load_scenario(kSource + "/configs/default.yaml");
  const Trace trace = read_acme_trace(scenario.trace_path);
  const Catalog catalog = builtin_catalog();
  Simulation with{scenario.cluster, trace.jobs,
                  make_policies(scenario, catalog)};  // builds trace / none / none from the scenario
  const RunResult a = with.run();
  Simulation without{
      scenario.cluster, trace.jobs,
      core_policies(catalog, catalog.schedulers.make(scenario.scheduler), catalog.placements.make(scenario.placement))};
  const RunResult b = without.run();
  CHECK(a.fingerprint == b.fingerprint);
  CHECK(end_seconds(a) == end_seconds(b));
  for (std::size_t i = 0; i < trace.jobs.size(); ++i) {
    CHECK(a.jobs[i].state == trace.jobs[i].recorded_state);
    CHECK(a.jobs[i].checkpoint_gpu_ms == 0);
  }
  CHECK(a.node_failures == 0);

  Scenario complete = scenario;
  complete.outcomes = PolicyArgs::named("outcomes", "all-complete");
  Simulation all{complete.cluster, trace.jobs, make_policies(complete, catalog)};
  const RunResult c = all.run();
  CHECK(end_seconds(c) == end_seconds(b));
  for (const JobStatus& s : c.jobs) CHECK(s.state == FinalState::Completed);
}

TEST_CASE("seeded node failures with recovery give identical runs, and another seed another run") {
  Scenario scenario = load_scenario(kSource + "/configs/default.yaml", {"failures={name: node-mtbf, rate_per_day: 0.2}",
                                                                        "recovery=auto", "outcomes=taxonomy"});
  const Trace trace = read_acme_trace(scenario.trace_path);
  const Catalog catalog = builtin_catalog();
  const auto once = [&](std::uint64_t seed) {
    Scenario s = load_scenario(kSource + "/configs/default.yaml",
                               {"failures={name: node-mtbf, rate_per_day: 0.2}", "recovery=auto", "outcomes=taxonomy",
                                "seed=" + std::to_string(seed)});
    Simulation sim{s.cluster, trace.jobs, make_policies(s, catalog)};
    return sim.run();  // conservation is checked inside
  };
  const RunResult a = once(7);
  const RunResult b = once(7);
  const RunResult c = once(8);
  CHECK(a.fingerprint == b.fingerprint);
  CHECK(end_seconds(a) == end_seconds(b));
  CHECK(a.node_failures > 0);
  CHECK(a.fingerprint != c.fingerprint);
  const FailureBreakdown fa = failure_breakdown(a.jobs);
  CHECK(fa.total_count() > 0);
  CHECK(fa.total_count() == failure_breakdown(b.jobs).total_count());
}

TEST_CASE("taxonomy failures of CPU-only jobs never happen and failed GPU jobs stop at their time to failure") {
  const Scenario scenario =
      load_scenario(kSource + "/configs/default.yaml", {"outcomes={name: taxonomy, calibrate: true}"});
  const Trace trace = read_acme_trace(scenario.trace_path);
  Simulation sim{scenario.cluster, trace.jobs, make_policies(scenario, builtin_catalog())};
  const RunResult r = sim.run();
  std::size_t failed = 0;
  for (std::size_t i = 0; i < trace.jobs.size(); ++i) {
    const JobStatus& s = r.jobs[i];
    CHECK(s.work <= trace.jobs[i].runtime);
    if (trace.jobs[i].demand.cpu_only()) CHECK(s.state != FinalState::Failed);
    if (s.state == FinalState::Failed) {
      ++failed;
      CHECK(s.end_reason != FailureReason::None);
      CHECK(category(s.end_reason) != FailureCategory::Unknown);
    }
  }
  CHECK(failed > 100);
  CHECK(r.outcome_note.find("taxonomy calibrated on") != std::string::npos);
}

TEST_CASE("taxonomy uses its physical rates unless asked to calibrate them on the trace") {
  const Scenario scenario = load_scenario(kSource + "/configs/default.yaml", {"outcomes=taxonomy"});
  const Trace trace = read_acme_trace(scenario.trace_path);
  const auto model = builtin_catalog().outcomes.make(scenario.outcomes);
  model->prepare(trace.jobs);
  CHECK(model->note() ==
        "taxonomy (what-if, not calibrated): mid-run infrastructure hazard 0.0085 per node-day, start-time fault "
        "probability 0.1 per GPU job");
}

TEST_CASE("the failure breakdown read back from jobs.csv equals the run's own") {
  const Scenario scenario = load_scenario(kSource + "/configs/failures/taxonomy.yaml");
  const Trace trace = read_acme_trace(scenario.trace_path);
  Simulation sim{scenario.cluster, trace.jobs, make_policies(scenario, builtin_catalog())};
  const RunResult r = sim.run();
  const auto dir = acmesim::testing::scratch_dir() / "acmesim_breakdown";
  std::filesystem::create_directories(dir);
  write_jobs_csv((dir / "jobs.csv").string(), trace, r, JobsCsvColumns::WithExtras);
  FailureBreakdown back;
  add_failures_from_csv((dir / "jobs.csv").string(), back);
  const FailureBreakdown own = failure_breakdown(r.jobs);
  CHECK(back.count == own.count);
  CHECK(back.gpu_ms == own.gpu_ms);
  CHECK(back.jobs_read == trace.jobs.size());
  CHECK(own.category_count(FailureCategory::Infrastructure) > 0);
  CHECK(format_failure_breakdown(own).find("NVLinkError") != std::string::npos);
  std::filesystem::remove_all(dir);
}
