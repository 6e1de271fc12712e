#include "sim/metrics/summary.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <span>
#include <tuple>
#include <utility>

namespace acmesim {

namespace {

/// The two ranks a quantile interpolates between (linear, as numpy's default).
struct Ranks {
  std::size_t lo, hi;
  double frac;
};

Ranks ranks(std::size_t n, double q) {
  const double pos = q * static_cast<double>(n - 1);
  const auto lo = static_cast<std::size_t>(pos);
  return {lo, std::min(lo + 1, n - 1), pos - static_cast<double>(lo)};
}

double interpolate(std::span<const std::int64_t> ms, const Ranks& r) {
  const double a = static_cast<double>(ms[r.lo]);
  const double b = static_cast<double>(ms[r.hi]);
  return (a + (b - a) * r.frac) / 1000.0;
}

}  // namespace

double quantile(const std::vector<std::int64_t>& sorted_ms, double q) {
  return sorted_ms.empty() ? 0.0 : interpolate(sorted_ms, ranks(sorted_ms.size(), q));
}

Quantiles quantiles(std::span<std::int64_t> ms) {
  Quantiles q;
  if (ms.empty()) return q;
  // An exact integer sum (it vectorizes, where a long double one is one x87 addition after
  // another), then the same long double division as before: below 2^64 a long double holds the
  // sum exactly, so the mean is bit for bit what summing in long double gave.
  __extension__ using Sum = __int128;  // GCC's and clang's; __extension__ says so to -Wpedantic
  const Sum total = std::accumulate(ms.begin(), ms.end(), Sum{0});
  q.mean = static_cast<double>(static_cast<long double>(total) / static_cast<long double>(ms.size())) / 1000.0;
  // Selection, not a sort: the six ranks the quantiles need, smallest first, each found by
  // nth_element in what is right of the last one (expected O(n) in all).
  const std::array<double, 3> levels{0.5, 0.95, 0.99};
  std::array<Ranks, 3> at{};
  std::vector<std::size_t> wanted;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    at[i] = ranks(ms.size(), levels[i]);
    wanted.push_back(at[i].lo);
    wanted.push_back(at[i].hi);
  }
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  auto from = ms.begin();
  for (const std::size_t rank : wanted) {
    const auto nth = ms.begin() + static_cast<std::ptrdiff_t>(rank);
    std::nth_element(from, nth, ms.end());
    from = nth + 1;
  }
  q.median = interpolate(ms, at[0]);
  q.p95 = interpolate(ms, at[1]);
  q.p99 = interpolate(ms, at[2]);
  return q;
}

double SizeBucketFailures::mtbi_hours() const {
  return failures > 0 ? static_cast<double>(running_ms) / 3.6e6 / static_cast<double>(failures) : 0.0;
}

std::int64_t GroupStats::gpu_ms() const {
  return std::accumulate(gpu_ms_by_state.begin(), gpu_ms_by_state.end(), std::int64_t{0});
}

double offered_gpu_load(const std::vector<JobSpec>& jobs, int total_gpus) {
  if (jobs.empty() || total_gpus <= 0) return 0.0;
  SimTime first = jobs.front().submitted;
  SimTime last = first;
  double asked_gpu_ms = 0.0;
  for (const JobSpec& job : jobs) {
    first = std::min(first, job.submitted);
    last = std::max(last, job.submitted);
    asked_gpu_ms += static_cast<double>(job.demand.gpus) * static_cast<double>(job.runtime.count());
  }
  const auto span_ms = static_cast<double>((last - first).count());
  return span_ms > 0 ? asked_gpu_ms / (span_ms * total_gpus) : 0.0;
}

RunSummary summarize(const std::vector<JobSpec>& jobs, const RunResult& result, int total_gpus) {
  RunSummary summary;
  constexpr std::array<int, kSizeBucketCount> kBucketMax{8, 64, 256, 1024, 4096, 0};
  for (std::size_t b = 0; b < kSizeBucketCount; ++b) {
    summary.failures.by_size[b].min_gpus = b == 0 ? 1 : kBucketMax[b - 1] + 1;
    summary.failures.by_size[b].max_gpus = kBucketMax[b];
  }
  std::array<std::size_t, kJobTypeCount> ended_of_type{};
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const JobStatus& s = result.jobs[i];
    if (s.phase != JobPhase::Ended) continue;
    const JobSpec& spec = jobs[i];
    const auto t = static_cast<std::size_t>(spec.type);
    ++ended_of_type[t];
    // A job a node failure killed lost its last attempt: only what it checkpointed before counts.
    const bool killed = s.state == FinalState::NodeFail;
    const std::int64_t useful_ms = s.useful_work().count();
    const std::int64_t killed_gpu_ms = killed && !s.failure_log.empty() ? s.failure_log.back().attempt_gpu_ms : 0;
    for (GroupStats* g : {&summary.overall, &summary.by_type[t]}) {
      ++g->jobs;
      if (!spec.demand.cpu_only()) ++g->gpu_jobs;
      g->gpu_ms_by_state[static_cast<std::size_t>(s.state)] += s.held_gpu_ms;
      g->preemptions += s.preemptions;
      g->failures += s.failures;
      g->lost_gpu_ms += s.lost_gpu_ms;
      g->overhead_gpu_ms += s.overhead_gpu_ms;
      g->checkpoint_gpu_ms += s.checkpoint_gpu_ms;
      g->manual_interventions += s.manual_interventions;
      g->jobs_with_failures += s.failure_log.empty() ? 0U : 1U;
      g->recovery_wait_gpu_ms += std::int64_t{spec.demand.gpus} * s.recovery_wait.count();
      g->killed += killed ? 1U : 0U;
      g->killed_gpu_ms += killed_gpu_ms;
      g->work_ms += useful_ms;
      g->wall_ms += (*s.ended - *s.started).count();
    }
    if (!spec.demand.cpu_only()) {
      std::size_t b = 0;
      while (b + 1 < kSizeBucketCount && spec.demand.gpus > kBucketMax[b]) ++b;
      SizeBucketFailures& bucket = summary.failures.by_size[b];
      ++bucket.jobs;
      bucket.failures += s.failure_log.size();
      bucket.running_ms += s.held_gpu_ms / spec.demand.gpus;
    }
    if (spec.demand.nodes > 1 && !spec.demand.cpu_only() && s.switch_groups > 0) {
      ++summary.topology.multi_node_jobs;
      summary.topology.within_one_group += s.switch_groups == 1 ? 1 : 0;
      summary.topology.groups_spanned += s.switch_groups;
    }
  }
  // The quantiles, two measures at a time in two buffers of the ended jobs grouped by type (8
  // bytes per job each): a pass over the jobs gathers both, then each type's part is selected,
  // then the whole, which selection may reorder once the parts are done. Two passes for the four
  // measures, where one per measure read every job's status and spec four times; two buffers,
  // not four, because fresh memory costs about as much as the passes it would save.
  std::array<std::size_t, kJobTypeCount + 1> first_of_type{};
  for (std::size_t t = 0; t < kJobTypeCount; ++t) first_of_type[t + 1] = first_of_type[t] + ended_of_type[t];
  std::array<std::vector<std::int64_t>, 2> values{std::vector<std::int64_t>(first_of_type.back()),
                                                  std::vector<std::int64_t>(first_of_type.back())};
  const auto measure_two = [&](Quantiles GroupStats::*first_field, Quantiles GroupStats::*second_field,
                               auto&& values_of) {
    std::array<std::size_t, kJobTypeCount> next{};
    std::copy_n(first_of_type.begin(), kJobTypeCount, next.begin());
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      const JobStatus& s = result.jobs[i];
      if (s.phase != JobPhase::Ended) continue;
      const std::size_t at = next[static_cast<std::size_t>(jobs[i].type)]++;
      std::tie(values[0][at], values[1][at]) = values_of(jobs[i], s);
    }
    for (std::size_t m = 0; m < 2; ++m) {
      Quantiles GroupStats::*field = m == 0 ? first_field : second_field;
      const std::span<std::int64_t> all{values[m]};
      for (std::size_t t = 0; t < kJobTypeCount; ++t) {
        summary.by_type[t].*field = quantiles(all.subspan(first_of_type[t], ended_of_type[t]));
      }
      summary.overall.*field = quantiles(all);
    }
  };
  measure_two(&GroupStats::queue, &GroupStats::jct, [](const JobSpec& spec, const JobStatus& s) {
    return std::pair{(*s.started - spec.submitted).count(), (*s.ended - spec.submitted).count()};
  });
  // The slowdown in thousandths, so that quantiles() (which reports milliseconds as seconds)
  // gives the ratio.
  measure_two(&GroupStats::wait, &GroupStats::slowdown, [](const JobSpec& spec, const JobStatus& s) {
    return std::pair{s.wait(spec.submitted).count(),
                     static_cast<std::int64_t>(std::llround(1000.0 * s.slowdown(spec.submitted, spec.runtime)))};
  });
  const Duration makespan = result.last_end > result.first_submit ? result.last_end - result.first_submit : Duration{0};
  summary.makespan_s = to_seconds(makespan);
  if (makespan.count() > 0 && total_gpus > 0) {
    summary.gpu_allocation_ratio = static_cast<double>(result.allocated_gpu_ms) /
                                   (static_cast<double>(total_gpus) * static_cast<double>(makespan.count()));
  }
  summary.failures.breakdown = failure_breakdown(result.jobs, jobs, result.spawned);
  if (makespan.count() > 0 && result.gpu_nodes > 0) {
    summary.failures.node_availability =
        1.0 - static_cast<double>(result.down_node_ms) /
                  (static_cast<double>(result.gpu_nodes) * static_cast<double>(makespan.count()));
    const double node_days = static_cast<double>(result.gpu_nodes) * static_cast<double>(makespan.count()) / 8.64e7;
    summary.failures.node_days = node_days;
    summary.failures.hardware_per_1000_node_days =
        1000.0 * static_cast<double>(result.node_failures - result.transient_failures) / node_days;
    summary.failures.transient_per_1000_node_days = 1000.0 * static_cast<double>(result.transient_failures) / node_days;
  }
  return summary;
}

}  // namespace acmesim
