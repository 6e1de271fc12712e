#pragma once
/// Run-level statistics, per job type and overall, computed once from a RunResult. All sums are
/// integer milliseconds; floating point appears only in the quantiles and ratios reported.
#include <array>
#include <cstdint>
#include <vector>

#include "sim/model/job.hpp"
#include "sim/simulation.hpp"

namespace acmesim {

struct Quantiles {
  double mean = 0, median = 0, p95 = 0, p99 = 0;  // seconds
};

/// Linear interpolation between order statistics (numpy's and pandas' default), so numbers
/// match what a user computes from jobs.csv.
double quantile(const std::vector<std::int64_t>& sorted_ms, double q);
Quantiles quantiles(std::vector<std::int64_t> ms);

struct GroupStats {
  std::uint64_t jobs = 0;  // jobs that ran
  std::uint64_t gpu_jobs = 0;
  Quantiles queue;  // start - submit
  Quantiles jct;    // end - submit
  std::array<std::int64_t, kFinalStateCount> gpu_ms_by_state{};  // GPU time held, by final state
  std::uint64_t preemptions = 0;
  std::uint64_t failures = 0;
  std::int64_t lost_gpu_ms = 0;      // work done, not kept, redone
  std::int64_t overhead_gpu_ms = 0;  // restart overheads
  std::int64_t gpu_ms() const;
};

struct RunSummary {
  GroupStats overall;
  std::array<GroupStats, kJobTypeCount> by_type;
  double makespan_s = 0;            // last end - first submission
  double gpu_allocation_ratio = 0;  // time-weighted allocated GPUs / total GPUs over the makespan
};

RunSummary summarize(const std::vector<JobSpec>& jobs, const RunResult& result, int total_gpus);

}  // namespace acmesim
