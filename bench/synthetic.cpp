#include "bench/synthetic.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <boost/random/discrete_distribution.hpp>
#include <boost/random/exponential_distribution.hpp>
#include <boost/random/lognormal_distribution.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <fmt/format.h>

#include "sim/core/rng.hpp"

namespace acmesim::bench {

namespace {

struct TypeShape {
  JobType type;
  double share;                    // of GPU jobs, acme-paper.md §2.4 (Seren, [R-fig])
  std::array<int, 4> gpu_choices;  // around the §2.5 box-plot quartiles (Seren)
  double median_s;                 // T4 p50 (Seren)
  double sigma;                    // our own choice: log-normal spread giving T4-like tails
};

constexpr std::array<TypeShape, kJobTypeCount> kShapes{{
    {JobType::Eval, 64.9, {1, 1, 2, 4}, 129, 1.8},
    {JobType::Pretrain, 0.9, {64, 128, 256, 512}, 297, 2.8},
    {JobType::Sft, 14.9, {2, 8, 8, 16}, 197, 1.7},
    {JobType::Mllm, 2.9, {1, 2, 8, 16}, 253, 2.2},
    {JobType::Debug, 1.9, {8, 8, 8, 8}, 114, 1.8},
    {JobType::Other, 14.6, {1, 1, 8, 16}, 77, 2.2},
}};

}  // namespace

Trace synthetic_trace(const SyntheticOptions& options) {
  Rng rng{options.seed, "bench/synthetic"};
  std::array<double, kJobTypeCount> weights{};
  for (std::size_t i = 0; i < kShapes.size(); ++i) weights[i] = kShapes[i].share;
  boost::random::discrete_distribution<int> pick_type(weights.begin(), weights.end());
  boost::random::uniform_int_distribution<int> pick_quartile(0, 3);
  boost::random::uniform_int_distribution<int> pick_user(0, 199);
  // 36% of Seren's jobs are CPU-only (acme-paper.md §2.1: 367,737 of 1,031,550).
  boost::random::discrete_distribution<int> cpu_only({0.643, 0.357});
  // Final-state rates of Seren (acme-paper.md §2.3, cluster_summary.csv [R-csv]):
  // GPU jobs 49.7% completed, 7.5% cancelled, 42.9% failed; CPU jobs 85.8 / 3.9 / 10.2.
  boost::random::discrete_distribution<int> gpu_state({0.497, 0.075, 0.429});
  boost::random::discrete_distribution<int> cpu_state({0.858, 0.039, 0.102});
  const double mean_gap_ms = options.days * 86400.0 * 1000.0 / static_cast<double>(std::max<std::size_t>(options.jobs, 1));
  boost::random::exponential_distribution<double> gap(1.0 / mean_gap_ms);

  Trace trace;
  trace.path = "<synthetic>";
  trace.epoch_unix_seconds = 1677600000;  // 2023-03-01 00:00:00+08:00
  trace.utc_offset_minutes = 480;
  for (int u = 0; u < 200; ++u) trace.users.push_back(fmt::format("u{}", u));
  trace.jobs.reserve(options.jobs);
  double now_ms = 0;
  for (std::size_t i = 0; i < options.jobs; ++i) {
    now_ms += gap(rng);
    JobSpec job;
    job.id = JobId{static_cast<std::uint32_t>(i)};
    job.trace_id = fmt::format("{}", 5000000 + i);
    job.user = UserId{static_cast<std::uint32_t>(pick_user(rng))};
    job.submitted = SimTime{seconds(static_cast<std::int64_t>(now_ms / 1000.0))};
    job.source_line = static_cast<std::uint32_t>(i + 2);
    if (cpu_only(rng) == 1) {
      job.type = JobType::Other;
      job.demand = Demand{1, 0, 4, 0};
      boost::random::lognormal_distribution<double> runtime(std::log(14.0), 1.5);  // CPU median 14 s (§2.3)
      job.runtime = seconds(static_cast<std::int64_t>(std::ceil(runtime(rng))));
    } else {
      const TypeShape& shape = kShapes[static_cast<std::size_t>(pick_type(rng))];
      const int gpus = shape.gpu_choices[static_cast<std::size_t>(pick_quartile(rng))];
      job.type = shape.type;
      job.demand = Demand{std::max(1, gpus / 8), gpus, gpus * 16, 0};  // 16 CPUs per GPU (§1)
      boost::random::lognormal_distribution<double> runtime(std::log(shape.median_s), shape.sigma);
      job.runtime = seconds(std::min<std::int64_t>(static_cast<std::int64_t>(std::ceil(runtime(rng))), 14 * 86400));
    }
    job.recorded_state = kFinalStates[static_cast<std::size_t>(job.demand.cpu_only() ? cpu_state(rng) : gpu_state(rng))];
    trace.jobs.push_back(std::move(job));
  }
  trace.rows_read = trace.jobs.size();
  return trace;
}

}  // namespace acmesim::bench
