// The `trace-reasons` outcome model (policies/outcomes/trace_reasons.cpp): the trace's workload is
// kept, and the recorded FAILED GPU jobs get Table 3 reasons whose shares of failures and of failed
// GPU time are the table's.
#include <fmt/format.h>

#include <array>
#include <boost/random/uniform_01.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "io/acme_trace.hpp"
#include "io/policy_yaml.hpp"
#include "io/scenario.hpp"
#include "policies/catalog.hpp"
#include "sim/core/error.hpp"
#include "sim/metrics/failure_breakdown.hpp"
#include "sim/run/simulation.hpp"
#include "tests/support.hpp"

using namespace acmesim;
using namespace acmesim::testing;

namespace {

JobSpec job(std::uint32_t id, int gpus, std::int64_t runtime_s, FinalState state, JobType type = JobType::Other) {
  JobSpec j;
  j.id = JobId{id};
  fmt::format_to(std::back_inserter(j.trace_id), "j{}", id);
  j.type = type;
  j.demand = Demand{std::max(1, (gpus + 7) / 8), gpus, std::max(1, gpus) * 16, 0};
  j.submitted = SimTime{seconds(std::int64_t{id})};
  j.runtime = seconds(runtime_s);
  j.recorded_state = state;
  return j;
}

std::unique_ptr<OutcomeModel> model(const std::string& block = "trace-reasons", std::uint64_t seed = 1) {
  return builtin_catalog().outcomes.make(policy_from_text("outcomes", block, "<test>", seed));
}

/// The reasons the model gives `jobs`, by position.
std::vector<FailureReason> reasons(OutcomeModel& m, const std::vector<JobSpec>& jobs) {
  m.prepare(jobs);
  std::vector<FailureReason> out;
  for (const JobSpec& j : jobs) out.push_back(m.decide(j).reason);
  return out;
}

/// `n` FAILED GPU jobs shaped like a trace's: most small and short, a few large and long; every
/// third an evaluation job.
std::vector<JobSpec> population(std::uint32_t n, std::uint64_t seed) {
  Rng rng{seed, "test/population"};
  std::vector<JobSpec> jobs;
  const std::array<int, 10> sizes{1, 1, 1, 2, 4, 8, 8, 16, 64, 256};
  for (std::uint32_t i = 0; i < n; ++i) {
    const int gpus = sizes[boost::random::uniform_int_distribution<std::size_t>{0, sizes.size() - 1}(rng)];
    // log-uniform from 10 s to 3 days, skewed to short runs
    const double u = boost::random::uniform_01<double>{}(rng);
    const auto runtime = static_cast<std::int64_t>(10.0 * std::exp(u * u * std::log(26'000.0)));
    jobs.push_back(job(i, gpus, runtime, FinalState::Failed, i % 3 == 0 ? JobType::Eval : JobType::Other));
  }
  return jobs;
}

bool gpu_error(FailureReason r) {
  return r == FailureReason::NVLinkError || r == FailureReason::CUDAError || r == FailureReason::ECCError;
}

std::string outcome_error(const std::string& block) {
  try {
    model(block);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("trace-reasons keeps every job's recorded state and runtime and gives reasons to FAILED GPU jobs only") {
  const std::vector<JobSpec> jobs{
      job(0, 8, 600, FinalState::Completed), job(1, 8, 700, FinalState::Cancelled),
      job(2, 0, 30, FinalState::Failed),     job(3, 16, 3600, FinalState::Failed),
      job(4, 8, 900, FinalState::Timeout),   job(5, 64, 5000, FinalState::NodeFail),
      job(6, 1, 5, FinalState::Failed),      job(7, 2, 0, FinalState::Failed),
  };
  const auto m = model();
  m->prepare(jobs);
  for (const JobSpec& j : jobs) {
    INFO(j.trace_id);
    const JobOutcome o = m->decide(j);
    CHECK(o.state == j.recorded_state);
    CHECK(o.work == j.runtime);
    const bool failed_gpu_job = j.recorded_state == FinalState::Failed && !j.demand.cpu_only();
    CHECK((o.reason != FailureReason::None) == failed_gpu_job);
    if (failed_gpu_job) CHECK(category(o.reason) != FailureCategory::Unknown);
  }
  CHECK(m->note().find("3 recorded FAILED GPU jobs") != std::string::npos);
}

TEST_CASE("Eight failed GPU jobs whose GPU times are four times apart get the hand-computed reasons") {
  // GPU times 4^7 ... 4^0 GPU-minutes (75 %, 18.75 %, 4.69 %, ... of the total). Apportioned by
  // Table 3's counts, 8 jobs are 1 infrastructure (ConnectionError, 147 of its 281), 1 framework
  // (AssertionError, 105 of 404) and 6 script (FileNotFoundError 2, TypeError 2, OSError 1,
  // KeyError 1). None fits in any GPU-time target, so each goes to the reason with the most GPU
  // time still to reach: ConnectionError (3.44 %), FileNotFoundError (2.83 %), AssertionError
  // (1.24 %), OSError (0.28 %), TypeError (0.06 %), KeyError (0.01 %), then TypeError, then
  // FileNotFoundError, as their targets fall below zero. Blocks are single jobs: no exchange.
  std::vector<JobSpec> jobs;
  for (std::uint32_t i = 0; i < 8; ++i) {
    jobs.push_back(job(i, 1, 60 * (std::int64_t{1} << (2 * (7 - i))), FinalState::Failed));
  }
  using R = FailureReason;
  const std::vector<R> expected{R::ConnectionError, R::FileNotFoundError, R::AssertionError, R::OSError,
                                R::TypeError,       R::KeyError,          R::TypeError,      R::FileNotFoundError};
  for (const std::uint64_t seed : {1U, 2U, 3U}) {
    INFO(seed);
    const auto m = model("trace-reasons", seed);
    CHECK(reasons(*m, jobs) == expected);
  }
}

TEST_CASE("The same seed gives the same reasons, another seed other reasons, and the counts stay") {
  const std::vector<JobSpec> jobs = population(3000, 1);
  const auto a = reasons(*model("trace-reasons", 5), jobs);
  const auto b = reasons(*model("trace-reasons", 5), jobs);
  const auto c = reasons(*model("trace-reasons", 6), jobs);
  CHECK(a == b);
  CHECK(a != c);
  std::map<FailureReason, int> na, nc;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    ++na[a[i]];
    ++nc[c[i]];
  }
  CHECK(na == nc);  // the seed moves reasons between jobs, never how many jobs a reason has
}

TEST_CASE("On a synthetic population of failed jobs Table 3's shares of failures and of failed GPU time come out") {
  const std::vector<JobSpec> jobs = population(20'000, 2);
  const auto m = model();
  const auto got = reasons(*m, jobs);
  FailureBreakdown b;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    b.add(got[i], std::int64_t{jobs[i].demand.gpus} * jobs[i].runtime.count(), jobs[i].demand.gpus);
    if (jobs[i].type == JobType::Eval) CHECK_FALSE(gpu_error(got[i]));
  }
  const auto count_pct = [&](FailureCategory c) { return 100.0 * static_cast<double>(b.category_count(c)) / 20'000; };
  const auto gpu_pct = [&](FailureCategory c) {
    return 100.0 * static_cast<double>(b.category_gpu_ms(c)) / static_cast<double>(b.total_gpu_ms());
  };
  const auto reason_gpu_pct = [&](FailureReason r) {
    return 100.0 * static_cast<double>(b.gpu_ms[static_cast<std::size_t>(r)]) / static_cast<double>(b.total_gpu_ms());
  };
  // Counts are apportioned: 281 / 404 / 1,890 of 2,575.
  CHECK(b.category_count(FailureCategory::Infrastructure) == 2182);
  CHECK(b.category_count(FailureCategory::Framework) == 3138);
  CHECK(b.category_count(FailureCategory::Script) == 14680);
  CHECK(b.count[static_cast<std::size_t>(FailureReason::NVLinkError)] == 419);
  CHECK(count_pct(FailureCategory::Infrastructure) == Approx(10.91).margin(0.01));
  CHECK(gpu_pct(FailureCategory::Infrastructure) == Approx(82.06).margin(0.5));
  CHECK(gpu_pct(FailureCategory::Framework) == Approx(14.71).margin(0.5));
  CHECK(gpu_pct(FailureCategory::Script) == Approx(3.22).margin(0.5));
  CHECK(reason_gpu_pct(FailureReason::NVLinkError) == Approx(30.25).margin(0.5));
  CHECK(reason_gpu_pct(FailureReason::DataloaderKilled) == Approx(4.38).margin(0.5));
  CHECK(reason_gpu_pct(FailureReason::ConnectionError) == Approx(3.44).margin(0.5));
  // What the likelihood adds: exchanging reasons between jobs of about the same GPU time makes
  // infrastructure failures later, and script errors earlier, than the GPU-time ranking alone.
  const auto mean_minutes = [&](const std::vector<FailureReason>& given, FailureCategory c) {
    double minutes = 0;
    int n = 0;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      if (category(given[i]) != c) continue;
      minutes += to_seconds(jobs[i].runtime) / 60.0;
      ++n;
    }
    return minutes / n;
  };
  const auto ranked_only = reasons(*model("{name: trace-reasons, exchange_ratio: 1}"), jobs);
  CHECK(mean_minutes(got, FailureCategory::Infrastructure) >
        1.2 * mean_minutes(ranked_only, FailureCategory::Infrastructure));
  CHECK(mean_minutes(got, FailureCategory::Script) < 0.8 * mean_minutes(ranked_only, FailureCategory::Script));
  CHECK(m->note().find("got a GPU error") == std::string::npos);
}

TEST_CASE("Jobs of gpu_error_free_types get a GPU error only when no other job is left for it") {
  // Four failed jobs, all evaluation: 4 / 2,575 of NVLinkError's 54 rounds to none, so nothing is
  // forced; with the list emptied, nothing changes either.
  std::vector<JobSpec> jobs;
  for (std::uint32_t i = 0; i < 4; ++i) jobs.push_back(job(i, 8, 600 + i, FinalState::Failed, JobType::Eval));
  const auto m = model();
  for (const FailureReason r : reasons(*m, jobs)) CHECK_FALSE(gpu_error(r));
  // 2,575 evaluation jobs: Table 3's 87 GPU errors must go to evaluation jobs, and the note says so.
  std::vector<JobSpec> evals;
  for (std::uint32_t i = 0; i < 2575; ++i) evals.push_back(job(i, 8, 60 + i, FinalState::Failed, JobType::Eval));
  const auto forced = model();
  std::size_t n = 0;
  for (const FailureReason r : reasons(*forced, evals)) n += gpu_error(r) ? 1U : 0U;
  CHECK(n == 87);
  CHECK(forced->note().find("87 jobs of gpu_error_free_types got a GPU error") != std::string::npos);
  // With one Pretrain job among them, it takes a GPU error.
  evals[100].type = JobType::Pretrain;
  const auto one = model();
  const auto r = reasons(*one, evals);
  CHECK(gpu_error(r[100]));
}

TEST_CASE("trace-reasons rejects out-of-range, ill-typed and unknown parameters at their place") {
  CHECK(outcome_error("{name: trace-reasons, exchange_ratio: 0.5}") ==
        "<test>:1:39: outcomes.exchange_ratio: expected a number >= 1, found '0.5'");
  CHECK(outcome_error("{name: trace-reasons, ttf_sigma: 0}") ==
        "<test>:1:34: outcomes.ttf_sigma: expected a number > 0, found '0'");
  CHECK(outcome_error("{name: trace-reasons, demand_sigma: -1}") ==
        "<test>:1:37: outcomes.demand_sigma: expected a number > 0, found '-1'");
  CHECK(outcome_error("{name: trace-reasons, exchange_block: 2.5}").find("expected a whole number") !=
        std::string::npos);
  CHECK(outcome_error("{name: trace-reasons, gpu_error_free_types: [Evaluations]}")
            .find("outcomes.gpu_error_free_types[0]: expected a job type") != std::string::npos);
  CHECK(outcome_error("{name: trace-reasons, calibrate: true}").find("found 'calibrate'") != std::string::npos);
  CHECK(outcome_error("{name: trace-reasons, gpu_error_free_types: [], exchange_ratio: 1}") == "no error");
}

TEST_CASE("On the bundled Seren week trace-reasons runs the trace's workload and gives Table 3's category shares") {
  const Scenario scenario = load_scenario(kSource + "/configs/failures/taxonomy.yaml", {"outcomes=trace-reasons"});
  const Trace trace = read_acme_trace(scenario.trace_path);
  const Catalog catalog = builtin_catalog();
  Simulation with{scenario.cluster, trace.jobs, make_policies(scenario, catalog)};
  const RunResult r = with.run();
  Scenario plain = scenario;
  plain.outcomes = PolicyArgs::named("outcomes", "trace");
  Simulation without{plain.cluster, trace.jobs, make_policies(plain, catalog)};
  const RunResult t = without.run();
  CHECK(r.fingerprint == t.fingerprint);
  CHECK(r.allocated_gpu_ms == t.allocated_gpu_ms);
  for (std::size_t i = 0; i < trace.jobs.size(); ++i) {
    CHECK(r.jobs[i].state == t.jobs[i].state);
    CHECK(r.jobs[i].held_gpu_ms == t.jobs[i].held_gpu_ms);
  }
  const FailureBreakdown b = failure_breakdown(r.jobs, trace.jobs);
  const double n = static_cast<double>(b.total_count() - b.category_count(FailureCategory::Unknown));
  const double g = static_cast<double>(b.total_gpu_ms() - b.category_gpu_ms(FailureCategory::Unknown));
  CHECK(100.0 * static_cast<double>(b.category_count(FailureCategory::Infrastructure)) / n ==
        Approx(10.91).margin(0.05));
  CHECK(100.0 * static_cast<double>(b.category_gpu_ms(FailureCategory::Infrastructure)) / g ==
        Approx(82.06).margin(1.0));
  CHECK(100.0 * static_cast<double>(b.category_gpu_ms(FailureCategory::Framework)) / g == Approx(14.71).margin(1.0));
  CHECK(100.0 * static_cast<double>(b.category_gpu_ms(FailureCategory::Script)) / g == Approx(3.22).margin(1.0));
}
