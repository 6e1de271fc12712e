#include "sim/run/simulation.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <span>
#include <sstream>
#include <thread>

#include "io/acme_trace.hpp"
#include "io/outputs.hpp"
#include "io/scenario.hpp"
#include "policies/catalog.hpp"
#include "sim/metrics/failure_breakdown.hpp"
#include "sim/metrics/job_record.hpp"
#include "sim/run/job_table.hpp"
#include "tests/support.hpp"

using namespace acmesim;
using namespace acmesim::testing;

namespace {

struct Outputs {
  std::string jobs, timeline, summary;
};

Outputs run_scenario(const std::string& scenario_path, const std::string& out) {
  const Scenario scenario = load_scenario(scenario_path);
  const Trace trace = read_acme_trace(scenario.trace_path);
  const Catalog catalog = builtin_catalog();
  Simulation sim{scenario.cluster, trace.jobs, make_policies(scenario, catalog)};
  const RunResult result = sim.run();
  const Provenance provenance{"test", {}, resolved_scenario_yaml(scenario, catalog)};
  write_outputs(out, provenance, scenario, trace, result,
                summarize(trace.jobs, result, scenario.cluster.gpu_nodes * scenario.cluster.gpus_per_node));
  const std::filesystem::path dir{out};
  return Outputs{slurp(dir / "jobs.csv"), slurp(dir / "timeline.csv"), slurp(dir / "summary.json")};
}

}  // namespace

TEST_CASE("with zero contention every job's JCT equals its duration under every scheduler and placement") {
  const Catalog catalog = builtin_catalog();
  std::vector<JobSpec> jobs = make_jobs({{0, 8, 100}, {0, 64, 3600}, {5, 1, 1}, {5, 0, 30}, {7, 16, 0}, {9, 4, 12345}});
  for (JobSpec& j : jobs) j.recorded_start = j.submitted;
  for (const auto& s : catalog.schedulers.entries()) {
    for (const auto& p : catalog.placements.entries()) {
      INFO(s.name << " + " << p.name);
      const RunResult r = run_policies(ClusterSpec{16, 8, 128, 0, 0, 4}, jobs, s.name, p.name);  // 4 leaf groups
      for (std::size_t i = 0; i < jobs.size(); ++i) {
        REQUIRE(r.jobs[i].phase == JobPhase::Ended);
        CHECK(*r.jobs[i].started == jobs[i].submitted);
        CHECK(*r.jobs[i].ended - jobs[i].submitted == jobs[i].runtime);
      }
    }
  }
}

TEST_CASE("a job that can never fit is reported as unschedulable and does not block the queue") {
  const std::vector<JobSpec> jobs = make_jobs({{0, 32, 10}, {1, 8, 10}});
  const RunResult r = run_policies(ClusterSpec{2, 8, 128, 0, 0}, jobs, "fifo", "pack");
  REQUIRE(r.unschedulable.size() == 1);
  CHECK(r.unschedulable[0].job == JobId{0});
  CHECK(r.unschedulable[0].reason == "it asks for 4 GPU nodes; the cluster has 2");
  CHECK(r.jobs[0].phase == JobPhase::Unschedulable);
  CHECK(*r.jobs[1].started == SimTime{seconds(1)});
}

TEST_CASE("at the end of a run every job ended exactly once and GPU time adds up") {
  const Scenario scenario = load_scenario(kSource + "/configs/default.yaml");
  const Trace trace = read_acme_trace(scenario.trace_path);
  REQUIRE(trace.jobs.size() > 1000);
  const Catalog catalog = builtin_catalog();
  for (const std::string scheduler : {"fifo", "replay"}) {
    Scenario variant = scenario;
    variant.scheduler = PolicyArgs::named("scheduler", scheduler);
    Simulation sim{variant.cluster, trace.jobs, make_policies(variant, catalog)};
    const RunResult r = sim.run();  // run() itself throws if conservation fails
    std::int64_t gpu_ms = 0;
    for (std::size_t i = 0; i < trace.jobs.size(); ++i) {
      REQUIRE(r.jobs[i].phase == JobPhase::Ended);
      CHECK(r.jobs[i].attempt == 1);
      gpu_ms += r.jobs[i].held_gpu_ms;
      CHECK(r.jobs[i].held_gpu_ms == trace.jobs[i].demand.gpus * (*r.jobs[i].ended - *r.jobs[i].started).count());
    }
    CHECK(gpu_ms == r.allocated_gpu_ms);
    CHECK(r.unstarted == 0);
  }
}

TEST_CASE("replay of the bundled trace reproduces its recorded start times") {
  const Scenario scenario = load_scenario(kSource + "/configs/default.yaml", {"scheduler=replay"});
  const Trace trace = read_acme_trace(scenario.trace_path);
  const Catalog catalog = builtin_catalog();
  Simulation sim{scenario.cluster, trace.jobs, make_policies(scenario, catalog)};
  const RunResult r = sim.run();
  CHECK(r.conflicts == 0);
  for (std::size_t i = 0; i < trace.jobs.size(); ++i) {
    REQUIRE(trace.jobs[i].recorded_start.has_value());
    CHECK(*r.jobs[i].started == *trace.jobs[i].recorded_start);
  }
}

TEST_CASE("two runs of the default scenario write byte-identical outputs") {
  const auto base = acmesim::testing::scratch_dir() / "acmesim_determinism";
  const Outputs a = run_scenario(kSource + "/configs/default.yaml", (base / "a").string());
  const Outputs b = run_scenario(kSource + "/configs/default.yaml", (base / "b").string());
  CHECK(a.jobs == b.jobs);
  CHECK(a.timeline == b.timeline);
  CHECK(a.summary == b.summary);
  CHECK(a.jobs.rfind("job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,"
                     "queue,gpu_time,",
                     0) == 0);
  CHECK(a.summary.find("\"fingerprint\"") != std::string::npos);
  std::filesystem::remove_all(base);
}

TEST_CASE("jobs.csv is the same bytes however many threads help format its rows") {
  const Scenario scenario = load_scenario(kSource + "/configs/default.yaml");
  const Trace trace = read_acme_trace(scenario.trace_path);
  REQUIRE(trace.jobs.size() > 4 * JobsCsvWriter::kRowsPerBlock);
  const Catalog catalog = builtin_catalog();
  Simulation sim{scenario.cluster, trace.jobs, make_policies(scenario, catalog)};
  const RunResult result = sim.run();
  const auto dir = acmesim::testing::scratch_dir() / "acmesim_jobs_csv_helpers";
  std::filesystem::create_directories(dir);
  write_jobs_csv((dir / "alone.csv").string(), trace, result, JobsCsvColumns::WithExtras);
  std::size_t calls = 0;
  std::size_t last_rows = 0;
  {
    JobsCsvWriter writer{(dir / "helped.csv").string(), trace, result, JobsCsvColumns::WithExtras};
    std::thread helpers[2] = {std::thread{[&writer] { writer.help(); }}, std::thread{[&writer] { writer.help(); }}};
    writer.write([&](std::size_t rows) {
      ++calls;
      CHECK(rows > last_rows);
      last_rows = rows;
    });
    for (std::thread& helper : helpers) helper.join();
  }
  const std::string alone = slurp(dir / "alone.csv");
  CHECK(alone.size() > trace.jobs.size() * 100);
  CHECK(slurp(dir / "helped.csv") == alone);
  CHECK(calls == (trace.jobs.size() + JobsCsvWriter::kRowsPerBlock - 1) / JobsCsvWriter::kRowsPerBlock);
  CHECK(last_rows == trace.jobs.size());
  std::filesystem::remove_all(dir);
}

namespace {

/// The scenarios whose jobs change most after their first start: preemption (srtf) and node
/// failures with automatic recovery (requeues, restarts, failure logs).
std::vector<Scenario> settling_scenarios() {
  const std::string path = kSource + "/configs/default.yaml";
  return {load_scenario(path), load_scenario(path, {"scheduler=srtf"}),
          load_scenario(path, {"failures.name=node-mtbf", "failures.rate_per_day=0.05", "recovery.name=auto"})};
}

/// Keeps a copy of every status it is told of, checking that they come in JobId order.
class SettledCopies final : public SettledJobs {
 public:
  void settled(std::size_t first, std::span<const JobStatus> statuses) override {
    CHECK(first == copies.size());
    CHECK(!statuses.empty());
    copies.insert(copies.end(), statuses.begin(), statuses.end());
  }
  std::vector<JobStatus> copies;
};

}  // namespace

TEST_CASE("a simulation tells of each settled trace job once, in JobId order, with the status it ends with") {
  const Catalog catalog = builtin_catalog();
  for (const Scenario& scenario : settling_scenarios()) {
    INFO(scenario.scheduler.name() << ", failures " << scenario.failures.name());
    const Trace trace = read_acme_trace(scenario.trace_path);
    SettledCopies told;
    SimulationOptions options = simulation_options(scenario, trace);
    options.settled = &told;
    Simulation sim{scenario.cluster, trace.jobs, make_policies(scenario, catalog), options};
    const RunResult result = sim.run();
    // Every settled job of the trace's leading run of settled jobs, and none after it.
    std::size_t prefix = 0;
    while (prefix < trace.jobs.size() && JobTable::is_settled(result.jobs[prefix].phase)) ++prefix;
    REQUIRE(prefix > trace.jobs.size() / 2);
    REQUIRE(told.copies.size() == prefix);
    std::size_t changed = 0;
    for (std::size_t i = 0; i < prefix; ++i) {
      const JobRecord a = job_record(trace.jobs[i], told.copies[i]);
      const JobRecord b = job_record(trace.jobs[i], result.jobs[i]);
      const bool same = a.outcome == b.outcome && a.state == b.state && a.start_ms == b.start_ms &&
                        a.end_ms == b.end_ms && a.gpu_time_ms == b.gpu_time_ms && a.wait_ms == b.wait_ms &&
                        a.attempts == b.attempts && a.preemptions == b.preemptions && a.failures == b.failures &&
                        a.lost_gpu_time_ms == b.lost_gpu_time_ms && a.overhead_gpu_time_ms == b.overhead_gpu_time_ms &&
                        a.checkpoint_gpu_time_ms == b.checkpoint_gpu_time_ms &&
                        a.recovery_wait_ms == b.recovery_wait_ms && a.failure_reason == b.failure_reason &&
                        failure_log_cell(told.copies[i]) == failure_log_cell(result.jobs[i]);
      changed += same ? 0 : 1;
    }
    CHECK(changed == 0);
  }
}

TEST_CASE("jobs.csv written during the run is the same bytes as one written after it") {
  const Catalog catalog = builtin_catalog();
  const auto dir = acmesim::testing::scratch_dir() / "acmesim_jobs_csv_during_run";
  std::filesystem::create_directories(dir);
  for (const Scenario& scenario : settling_scenarios()) {
    INFO(scenario.scheduler.name() << ", failures " << scenario.failures.name());
    const Trace trace = read_acme_trace(scenario.trace_path);
    REQUIRE(trace.jobs.size() > (JobsCsvWriter::kMaxCopiedBlocks + 2) * JobsCsvWriter::kRowsPerBlock);
    // Written during the run as `run` does (however far the writer gets before the end), and with
    // the writer started only after the run: the copies stop at kMaxCopiedBlocks and the rest of
    // the rows come from the result.
    for (const bool writer_during_run : {true, false}) {
      INFO("writer started " << (writer_during_run ? "before" : "after") << " the run");
      const auto during = dir / "during.csv";
      std::filesystem::remove(during);
      JobsCsvWriter writer{during.string(), trace, JobsCsvColumns::WithExtras};
      std::future<void> writing;
      if (writer_during_run) writing = std::async(std::launch::async, [&writer] { writer.write(); });
      SimulationOptions options = simulation_options(scenario, trace);
      options.settled = &writer;
      Simulation sim{scenario.cluster, trace.jobs, make_policies(scenario, catalog), options};
      const RunResult result = sim.run();
      CHECK_FALSE(std::filesystem::exists(during));  // not in place before finish()
      writer.finish(result);
      if (writer_during_run) {
        writing.get();
      } else {
        CHECK(writer.rows_written_before_finish() == 0);
        writer.write();
      }
      write_jobs_csv((dir / "after.csv").string(), trace, result, JobsCsvColumns::WithExtras);
      const std::string after = slurp(dir / "after.csv");
      CHECK(after.size() > trace.jobs.size() * 100);
      CHECK(slurp(during) == after);
    }
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("the job table counts a departure each time a job stops running, and at no other change") {
  // QuotaBook gives quota back only when this count moved: a departure it misses keeps GPUs
  // reserved for a job that left, one it counts too many only costs a walk.
  std::vector<JobSpec> jobs(2);
  jobs[0].id = JobId{0};
  jobs[1].id = JobId{1};
  JobTable table{jobs};
  const JobId a{0};
  const JobId b{1};
  for (const JobPhase phase : {JobPhase::Queued, JobPhase::Running}) table.set_phase(a, phase);
  table.set_phase(b, JobPhase::Queued);
  CHECK(table.departures() == 0);
  table.set_phase(a, JobPhase::Queued);  // preempted
  CHECK(table.departures() == 1);
  table.set_phase(a, JobPhase::Running);
  table.set_phase(b, JobPhase::Running);
  CHECK(table.departures() == 1);
  table.set_phase(a, JobPhase::Waiting);  // failed, waits for its restart
  table.set_phase(b, JobPhase::Ended);
  CHECK(table.departures() == 3);
  table.set_phase(a, JobPhase::Queued);
  CHECK(table.departures() == 3);
}

TEST_CASE("jobs.csv is not in place before the run is over, even once every row is written") {
  const Scenario scenario = load_scenario(kSource + "/configs/default.yaml");
  Trace trace = read_acme_trace(scenario.trace_path);
  trace.jobs.resize(3 * JobsCsvWriter::kRowsPerBlock + 5);  // every block copied: fewer than kMaxCopiedBlocks
  RunResult result;
  result.jobs.resize(trace.jobs.size());  // never started: "unstarted" rows
  const auto dir = acmesim::testing::scratch_dir() / "acmesim_jobs_csv_in_place";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  JobsCsvWriter writer{(dir / "jobs.csv").string(), trace, JobsCsvColumns::WithExtras};
  auto writing = std::async(std::launch::async, [&writer] { writer.write(); });
  writer.settled(0, result.jobs);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (writer.rows_written() < trace.jobs.size() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  CHECK(writer.rows_written() == trace.jobs.size());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK_FALSE(std::filesystem::exists(dir / "jobs.csv"));
  writer.finish(result);
  writing.get();
  CHECK(writer.rows_written_before_finish() == trace.jobs.size());
  write_jobs_csv((dir / "after.csv").string(), trace, result, JobsCsvColumns::WithExtras);
  CHECK(slurp(dir / "jobs.csv") == slurp(dir / "after.csv"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("jobs.csv of a run abandoned before its end leaves no file, not even a partial one") {
  const Scenario scenario = load_scenario(kSource + "/configs/default.yaml");
  const Trace trace = read_acme_trace(scenario.trace_path);
  const auto dir = acmesim::testing::scratch_dir() / "acmesim_jobs_csv_abandoned";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  JobsCsvWriter writer{(dir / "jobs.csv").string(), trace, JobsCsvColumns::WithExtras};
  auto writing = std::async(std::launch::async, [&writer] { writer.write(); });
  // Every block but the last, as a run that fails near its end would have given them.
  const std::vector<JobStatus> statuses(trace.jobs.size() - 1);
  writer.settled(0, statuses);
  writer.abandon();
  CHECK_THROWS(writing.get());
  CHECK(std::filesystem::is_empty(dir));
  std::filesystem::remove_all(dir);
}

TEST_CASE("jobs.csv reads back through the trace reader with the simulated times") {
  const auto dir = acmesim::testing::scratch_dir() / "acmesim_roundtrip";
  run_scenario(kSource + "/configs/default.yaml", dir.string());
  const Trace original = read_acme_trace(load_scenario(kSource + "/configs/default.yaml").trace_path);
  const Trace back = read_acme_trace((dir / "jobs.csv").string());
  REQUIRE(back.jobs.size() == original.jobs.size());
  for (std::size_t i = 0; i < back.jobs.size(); ++i) {
    CHECK(back.jobs[i].runtime == original.jobs[i].runtime);
    CHECK(back.jobs[i].demand.gpus == original.jobs[i].demand.gpus);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("every shipped scenario loads and builds its policies") {
  const Catalog catalog = builtin_catalog();
  // Scenarios live in configs/ and configs/failures/; the other folders hold workload profiles,
  // paper references and evaluation suites/scenarios, each tested by its own loader.
  for (const auto& entry : std::filesystem::recursive_directory_iterator(kSource + "/configs")) {
    if (entry.path().extension() != ".yaml") continue;
    const std::string folder = entry.path().parent_path().filename().string();
    if (folder != "configs" && folder != "failures") continue;
    INFO(entry.path().string());
    const Scenario s = load_scenario(entry.path().string());
    CHECK(catalog.schedulers.make(s.scheduler));
    CHECK(catalog.placements.make(s.placement));
    CHECK(catalog.outcomes.make(s.outcomes));
    CHECK(catalog.failures.make(s.failures));
    CHECK(catalog.recoveries.make(s.recovery));
    CHECK(std::filesystem::exists(s.trace_path));
  }
}

TEST_CASE("the timeline stops at its sample cap and says so, so a tiny interval cannot exhaust memory") {
  const Catalog catalog = builtin_catalog();
  const std::vector<JobSpec> jobs = make_jobs({{0, 8, 100'000}});
  SimulationOptions options;
  options.timeline_interval = seconds(10);
  options.timeline_max_samples = 50;
  const ClusterSpec cluster{2, 8, 128, 0, 0};
  Simulation capped{cluster, jobs,
                    core_policies(catalog, catalog.schedulers.make(PolicyArgs::named("scheduler", "fifo")),
                                  catalog.placements.make(PolicyArgs::named("placement", "pack"))),
                    options};
  const RunResult r = capped.run();
  CHECK(r.timeline.size() == 50);
  CHECK(r.timeline_truncated);
  CHECK(r.jobs[0].phase == JobPhase::Ended);  // the run itself goes on to the end
  options.timeline_max_samples = kMaxTimelineSamples;
  Simulation full{cluster, jobs,
                  core_policies(catalog, catalog.schedulers.make(PolicyArgs::named("scheduler", "fifo")),
                                catalog.placements.make(PolicyArgs::named("placement", "pack"))),
                  options};
  const RunResult whole = full.run();
  CHECK_FALSE(whole.timeline_truncated);
  CHECK(whole.timeline.size() == 10'001);
}
