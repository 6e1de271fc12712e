#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "io/profile.hpp"
#include "policies/catalog.hpp"
#include "sim/core/error.hpp"
#include "tests/support.hpp"
#include "tools/workload/generator.hpp"
#include "tools/workload/trace_stats.hpp"

using namespace acmesim;
using namespace acmesim::testing;

namespace {

WorkloadProfile profile(const std::string& name) {
  return load_profile(kSource + "/configs/profiles/" + name + ".yaml");
}

std::string synth_to_file(const std::string& name, std::uint64_t jobs, std::uint64_t seed, const std::string& file) {
  const WorkloadProfile p = profile(name);
  Trace trace = generate_submissions(p, SynthOptions{std::nullopt, jobs, 1.0, seed});
  schedule_submissions(trace, p, builtin_catalog(), seed);
  const auto path = acmesim::testing::scratch_dir() / file;
  write_acme_trace(path.string(), trace, p);
  return path.string();
}

double metric(const TraceStats& s, const std::string& key) {
  const Metric* m = s.find(key);
  INFO(key);
  REQUIRE(m != nullptr);
  return m->value;
}

}  // namespace

TEST_CASE("generating a trace twice with the same seed writes byte-identical files") {
  for (const std::string name : {"seren", "kalos"}) {
    INFO(name);
    const std::string a = synth_to_file(name, 3000, 7, "acmesim_synth_a_" + name + ".csv.gz");
    const std::string b = synth_to_file(name, 3000, 7, "acmesim_synth_b_" + name + ".csv.gz");
    const std::string c = synth_to_file(name, 3000, 8, "acmesim_synth_c_" + name + ".csv.gz");
    CHECK(slurp(a) == slurp(b));
    CHECK(slurp(a) != slurp(c));
    for (const auto& f : {a, b, c}) std::filesystem::remove(f);
  }
}

TEST_CASE("a generated trace reads back through the trace reader with the same jobs and schedule") {
  for (const std::string name : {"seren", "kalos"}) {
    INFO(name);
    const WorkloadProfile p = profile(name);
    Trace trace = generate_submissions(p, SynthOptions{std::nullopt, 2000, 1.0, 3});
    schedule_submissions(trace, p, builtin_catalog(), 3);
    const auto path = (acmesim::testing::scratch_dir() / ("acmesim_roundtrip_" + name + ".csv")).string();
    write_acme_trace(path, trace, p);
    const Trace back = read_acme_trace(path);
    CHECK(back.schema == p.schema);
    CHECK(back.utc_offset_minutes == p.utc_offset_minutes);
    const std::string header = slurp(path).substr(0, slurp(path).find('\n'));
    CHECK(std::count(header.begin(), header.end(), ',') + 1 == (name == "kalos" ? 17 : 13));
    REQUIRE(back.jobs.size() == trace.jobs.size());
    for (std::size_t i = 0; i < trace.jobs.size(); ++i) {
      const JobSpec& a = trace.jobs[i];
      const JobSpec& b = back.jobs[i];
      REQUIRE(b.trace_id == a.trace_id);
      CHECK(back.user_name(b.user) == trace.user_name(a.user));
      CHECK(b.type == a.type);
      CHECK(b.recorded_state == a.recorded_state);
      CHECK(b.demand.nodes == a.demand.nodes);
      CHECK(b.demand.gpus == a.demand.gpus);
      CHECK(b.demand.cpus == a.demand.cpus);
      CHECK(b.runtime == a.runtime);
      const std::int64_t shift = (back.epoch_unix_seconds - trace.epoch_unix_seconds) * 1000;
      CHECK(b.submitted.time_since_epoch().count() + shift == a.submitted.time_since_epoch().count());
      REQUIRE(b.recorded_start.has_value());
      CHECK(b.recorded_start->time_since_epoch().count() + shift == a.recorded_start->time_since_epoch().count());
    }
    std::filesystem::remove(path);
  }
}

TEST_CASE(
    "Kalos jobs wait at least their admission latency and hold their GPUs for their drawn duration, and Seren GPU jobs "
    "fit 8-GPU nodes") {
  const WorkloadProfile k = profile("kalos");
  Trace kalos = generate_submissions(k, SynthOptions{std::nullopt, 3000, 1.0, 5});
  const ScheduleReport report = schedule_submissions(kalos, k, builtin_catalog(), 5);
  for (std::size_t i = 0; i < kalos.jobs.size(); ++i) {
    const JobSpec& j = kalos.jobs[i];
    const JobStatus& s = report.result.jobs[i];
    CHECK(*j.recorded_start == *s.started);         // the recorded start is the decision
    CHECK(*s.ended - *s.started == j.runtime);      // nothing on top of the drawn duration
    CHECK(*s.started - j.submitted >= seconds(4));  // [AcmeTrace T7]: no Kalos job starts within 4 s
  }
  const WorkloadProfile s = profile("seren");
  const Trace seren = generate_submissions(s, SynthOptions{std::nullopt, 20000, 1.0, 5});
  for (const JobSpec& j : seren.jobs) {
    if (j.demand.gpus == 0) continue;
    CHECK(j.demand.nodes == (j.demand.gpus + 7) / 8);
    CHECK(j.demand.cpus == 16 * j.demand.gpus);
    if (j.type == JobType::Pretrain) CHECK((j.demand.gpus >= 40 && j.demand.gpus <= 1024));
  }
}

TEST_CASE("stats of a small hand-written trace match hand-computed numbers for every cluster_summary column") {
  const std::string csv =
      "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time\n"
      "1,u1,1,8,128,Pretrain,COMPLETED,2023-03-01 00:00:00+08:00,2023-03-01 00:00:10+08:00,2023-03-01 "
      "00:01:50+08:00,100,10,800.0\n"
      "2,u1,1,1,16,Eval,FAILED,2023-03-01 00:00:00+08:00,2023-03-01 00:00:00+08:00,2023-03-01 "
      "00:00:20+08:00,20,0,20.0\n"
      "3,u2,1,2,32,Eval,CANCELLED,2023-03-01 00:01:00+08:00,2023-03-01 00:01:30+08:00,2023-03-01 "
      "00:06:30+08:00,300,30,600.0\n"
      "4,u2,1,4,64,SFT,TIMEOUT,2023-03-01 00:02:00+08:00,2023-03-01 00:02:00+08:00,2023-03-01 "
      "00:02:40+08:00,40,0,160.0\n"
      "5,u3,1,0,4,Other,COMPLETED,2023-03-01 00:00:05+08:00,2023-03-01 00:00:06+08:00,2023-03-01 "
      "00:00:13+08:00,7,1,0.0\n"
      "6,u3,1,0,4,Other,NODE_FAIL,2023-03-01 00:00:05+08:00,2023-03-01 00:00:08+08:00,2023-03-01 "
      "00:00:17+08:00,9,3,0.0\n"
      "7,u3,1,1,16,Eval,CANCELLED,2023-03-01 00:03:00+08:00,,,,,\n";
  const TraceStats s = compute_trace_stats(parse_acme_trace("hand.csv", csv));
  // GPU jobs: durations 100, 20, 300, 40; queues 10, 0, 30, 0; GPUs 8, 1, 2, 4 (job 7 never started).
  CHECK(metric(s, "job_num") == 6);
  CHECK(metric(s, "cpu_job_num") == 2);
  CHECK(metric(s, "gpu_job_num") == 4);
  CHECK(metric(s, "jobs_without_start") == 1);
  CHECK(metric(s, "avg_run_time_gpu") == Approx(115.0));
  CHECK(metric(s, "avg_que_time_gpu") == Approx(10.0));
  CHECK(metric(s, "avg_gpu_num") == Approx(3.75));
  CHECK(metric(s, "med_run_time_gpu") == Approx(70.0));
  CHECK(metric(s, "med_que_time_gpu") == Approx(5.0));
  CHECK(metric(s, "med_gpu_num") == Approx(3.0));
  CHECK(metric(s, "max_run_time_gpu") == 300);
  CHECK(metric(s, "max_gpu") == 8);
  CHECK(metric(s, "complete_rate_gpu") == Approx(0.25));
  CHECK(metric(s, "cancel_rate_gpu") == Approx(0.25));
  CHECK(metric(s, "fail_rate_gpu") == Approx(0.5));  // FAILED + TIMEOUT
  CHECK(metric(s, "complete_gpu_time") == 800);
  CHECK(metric(s, "cancel_gpu_time") == 600);
  CHECK(metric(s, "fail_gpu_time") == 180);
  CHECK(metric(s, "complete_rate_gpu_time") == Approx(800.0 / 1580));
  CHECK(metric(s, "cancel_rate_gpu_time") == Approx(600.0 / 1580));
  CHECK(metric(s, "fail_rate_gpu_time") == Approx(180.0 / 1580));
  CHECK(metric(s, "avg_run_time_cpu") == Approx(8.0));
  CHECK(metric(s, "avg_que_time_cpu") == Approx(2.0));
  CHECK(metric(s, "med_run_time_cpu") == Approx(8.0));
  CHECK(metric(s, "med_que_time_cpu") == Approx(2.0));
  CHECK(metric(s, "complete_rate_cpu") == Approx(0.5));
  CHECK(metric(s, "cancel_rate_cpu") == Approx(0.0));
  CHECK(metric(s, "fail_rate_cpu") == Approx(0.5));  // NODE_FAIL
  // Per type and the CDF tables.
  CHECK(metric(s, "Eval.jobs") == 2);
  CHECK(metric(s, "Eval.job_share") == Approx(50.0));
  CHECK(metric(s, "Eval.gpu_time_share") == Approx(100.0 * 620 / 1580));
  CHECK(metric(s, "Eval.gpu_median") == Approx(1.5));
  CHECK(metric(s, "Eval.duration_cdf.16") == Approx(0.0));
  CHECK(metric(s, "Eval.duration_cdf.32") == Approx(50.0));
  CHECK(metric(s, "Eval.duration_cdf.512") == Approx(100.0));
  CHECK(metric(s, "Eval.cancelled") == Approx(50.0));
  CHECK(metric(s, "Eval.gpu_time_cancelled") == Approx(100.0 * 600 / 620));
  CHECK(metric(s, "all.duration_cdf.64") == Approx(50.0));
  CHECK(metric(s, "all.duration_p25") == Approx(35.0));  // 20, 40, 100, 300: 20 + 0.75 x 20
  CHECK(metric(s, "all.queue_cdf.16") == Approx(75.0));
  CHECK(metric(s, "gpu_cdf.1") == Approx(25.0));
  CHECK(metric(s, "gpu_cdf.4") == Approx(75.0));
  CHECK(metric(s, "gpu_time_cdf.4") == Approx(100.0 * 780 / 1580));
  CHECK(metric(s, "cpu.duration_cdf.8") == Approx(50.0));
  CHECK_FALSE(s.find("Debug.gpu_q1")->defined);
}

TEST_CASE("a seeded 50K-job Seren generation stays within the paper's tolerances for scale-free figures") {
  const WorkloadProfile p = profile("seren");
  Trace trace = generate_submissions(p, SynthOptions{std::nullopt, 50000, 1.0, 11});
  for (JobSpec& j : trace.jobs) j.recorded_start = j.submitted;  // durations, sizes and states need no schedule
  const TraceStats s = compute_trace_stats(trace);
  const ReferenceRow paper = load_reference(kSource + "/configs/reference/seren.yaml", trace_stat_keys());
  const auto ref = [&](const std::string& key) {
    INFO(key);
    REQUIRE(paper.find(key).has_value());
    return *paper.find(key);
  };
  for (const std::string key : {"complete_rate_gpu", "cancel_rate_gpu", "fail_rate_gpu", "complete_rate_cpu",
                                "cancel_rate_cpu", "fail_rate_cpu"}) {
    INFO(key);
    CHECK(std::fabs(metric(s, key) - ref(key)) * 100 <= 2.0);
  }
  CHECK(metric(s, "cpu_job_num") / metric(s, "job_num") == Approx(0.3565).margin(0.02));
  CHECK(metric(s, "med_gpu_num") == 1);
  CHECK(metric(s, "med_run_time_cpu") == Approx(ref("med_run_time_cpu")).epsilon(0.10));
  // The paper's 122 s median includes 213K GPU jobs missing from the public trace
  // [Acme Table 2 + AcmeTrace; derived]; the per-type CDFs come from the public trace, whose median (T1) is 134 s.
  CHECK(metric(s, "med_run_time_gpu") == Approx(ref("all.duration_p50")).epsilon(0.10));
  for (const std::string type : {"Eval", "Pretrain", "SFT", "MLLM", "Debug", "Other"}) {
    INFO(type);
    CHECK(std::fabs(metric(s, type + ".job_share") - ref(type + ".job_share")) <= 2.0);
    // Pretrain has ~300 jobs at this size: its CDF is checked at paper scale in docs/validation.md.
    if (type == "Pretrain") continue;
    for (int i = 0; i <= 21; ++i) {
      const std::string key = fmt::format("{}.duration_cdf.{}", type, 1 << i);
      INFO(key);
      CHECK(std::fabs(metric(s, key) - ref(key)) <= 5.0);
    }
  }
  for (const std::string key : {"Eval.completed", "Eval.cancelled", "Eval.failed"}) {
    INFO(key);
    CHECK(std::fabs(metric(s, key) - ref(key)) <= 2.0);
  }
}

TEST_CASE("a profile can record the schedule of a scheduler with parameters, and a wrong parameter is an error") {
  std::string text = slurp(kSource + "/configs/profiles/seren.yaml");
  const auto line = text.find("\nscheduler:") + 1;
  const auto eol = text.find('\n', line);
  const auto with = [&](const std::string& scheduler) {
    return text.substr(0, line) + "scheduler: " + scheduler + text.substr(eol);
  };
  const WorkloadProfile p =
      parse_profile("p.yaml", with("{name: acme, quota_share: {Pretrain: 0.7}, preemption: false}"));
  CHECK(p.scheduler == "acme");
  Trace trace = generate_submissions(p, SynthOptions{std::nullopt, 3000, 1.0, 4});
  const ScheduleReport report = schedule_submissions(trace, p, builtin_catalog(), 4);
  for (const JobStatus& s : report.result.jobs) CHECK(s.preemptions == 0);  // one start per recorded job
  const WorkloadProfile typo = parse_profile("p.yaml", with("{name: acme, preemptoin: false}"));
  Trace again = generate_submissions(typo, SynthOptions{std::nullopt, 100, 1.0, 4});
  CHECK_THROWS_WITH(schedule_submissions(again, typo, builtin_catalog(), 4),
                    Catch::Contains("p.yaml:") && Catch::Contains("found 'preemptoin'"));
}

TEST_CASE("a profile or reference with an unknown key is an error naming file, line and column") {
  const std::string good = slurp(kSource + "/configs/profiles/seren.yaml");
  CHECK_NOTHROW(parse_profile("p.yaml", good));
  // The appended key is on the line after the file's last.
  const auto line = std::count(good.begin(), good.end(), '\n') + 1;
  CHECK_THROWS_WITH(parse_profile("p.yaml", good + "bogus: 1\n"),
                    Catch::StartsWith(fmt::format("p.yaml:{}:1: profile: expected a known key (name, ", line)) &&
                        Catch::EndsWith("found 'bogus'"));
  const auto bad_share = good.substr(0, good.find("    share: 64.9")) + "    share: -1" +
                         good.substr(good.find("    share: 64.9") + std::string("    share: 64.9").size());
  CHECK_THROWS_WITH(parse_profile("p.yaml", bad_share),
                    Catch::Contains("gpu_types.Eval.share: expected a number >= 0, found '-1'"));
  const auto path = (acmesim::testing::scratch_dir() / "acmesim_bad_reference.yaml").string();
  std::ofstream(path) << "name: x\nmetrics:\n  Eval:\n    duration_cdf_typo: 3\n";
  CHECK_THROWS_WITH(
      load_reference(path, trace_stat_keys()),
      Catch::Contains(":4:5: metrics: expected a known metric") && Catch::EndsWith("found 'Eval.duration_cdf_typo'"));
  std::filesystem::remove(path);
}

TEST_CASE("pretraining comes as campaigns: one size and one user each, within the budget at every instant") {
  const WorkloadProfile p = profile("seren");
  const Trace trace = generate_submissions(p, SynthOptions{30.0, std::nullopt, 1.0, 7});
  // Runs of a campaign follow each other, so the GPUs of [submit, submit + runtime) intervals
  // never add up to more than the budget (70 % of Seren's 2,288 GPUs, whole GPUs: 1,601).
  std::vector<std::pair<std::int64_t, int>> edges;
  std::size_t runs = 0;
  for (const JobSpec& j : trace.jobs) {
    if (j.type != JobType::Pretrain) continue;
    ++runs;
    edges.emplace_back(j.submitted.time_since_epoch().count(), j.demand.gpus);
    edges.emplace_back((j.submitted + j.runtime).time_since_epoch().count(), -j.demand.gpus);
  }
  REQUIRE(runs > 100);
  std::sort(edges.begin(), edges.end());
  int held = 0, most = 0;
  for (const auto& [at, change] : edges) {
    held += change;
    most = std::max(most, held);
  }
  CHECK(most <= 1601);
  CHECK(most > 0);
  // A user's consecutive pretraining runs mostly keep one size (a campaign), unlike independent draws.
  std::map<std::uint32_t, std::vector<int>> sizes_by_user;
  for (const JobSpec& j : trace.jobs) {
    if (j.type == JobType::Pretrain) sizes_by_user[j.user.value()].push_back(j.demand.gpus);
  }
  std::size_t same = 0, pairs = 0;
  for (const auto& [user, sizes] : sizes_by_user) {
    for (std::size_t i = 1; i < sizes.size(); ++i, ++pairs) same += sizes[i] == sizes[i - 1] ? 1U : 0U;
  }
  CHECK(static_cast<double>(same) > 0.8 * static_cast<double>(pairs));
}
