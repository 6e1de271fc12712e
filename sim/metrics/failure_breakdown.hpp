#pragma once
/// The failure breakdown of a run the way the Acme paper's Table 3 gives it [Acme Table 3]:
/// per category and reason, the number of failures and their share, and the GPU time of the
/// attempts they ended and its share. One failure = one attempt a failure ended (a job that
/// recovered from three node failures counts three; a job that ended FAILED counts one).
///
/// Where a failure's GPU demand is known (a GPU job), it also sums the demand and the length of
/// the attempt (its time to failure), for Table 3's "Avg. GPU Demand" and "Avg. Time to Failure".
///
/// Built from a run's job statuses, or from one or more jobs.csv files (io/failures_csv.hpp).
/// `acmesim failures` prints it; summary.json holds it under failures.breakdown.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/model/failure.hpp"
#include "sim/model/job.hpp"

namespace acmesim {

struct FailureBreakdown {
  std::array<std::uint64_t, kFailureReasonCount> count{};
  std::array<std::int64_t, kFailureReasonCount> gpu_ms{};
  // Failures of jobs with a known GPU demand (> 0), their GPUs and attempt lengths, summed.
  std::array<std::uint64_t, kFailureReasonCount> with_demand{};
  std::array<std::int64_t, kFailureReasonCount> gpus{};
  std::array<std::int64_t, kFailureReasonCount> attempt_ms{};
  std::uint64_t jobs_read = 0;

  /// `job_gpus`: the job's GPU demand, 0 when not known (or a CPU-only job): then the failure
  /// counts, but not in the means.
  void add(FailureReason reason, std::int64_t gpu_ms_of_attempt, int job_gpus = 0);
  std::uint64_t total_count() const;
  std::int64_t total_gpu_ms() const;
  std::uint64_t category_count(FailureCategory c) const;
  std::int64_t category_gpu_ms(FailureCategory c) const;
};

/// `trace_jobs` (by JobId) and then `spawned` give the jobs' demands; a job beyond them counts
/// without its demand.
FailureBreakdown failure_breakdown(const std::vector<JobStatus>& jobs, const std::vector<JobSpec>& trace_jobs = {},
                                   const std::vector<JobSpec>& spawned = {});

/// A Table-3-style text table: categories, then their reasons with failures, share of failures,
/// GPU-hours, share of failed GPU time, mean GPU demand and mean time to failure (minutes; both
/// over the failures of GPU jobs), largest GPU time first. When Unknown failures sit beside
/// failures of Table 3's reasons, a last line gives the categories' shares without them (the
/// scope of Table 3).
std::string format_failure_breakdown(const FailureBreakdown& breakdown);

/// `reason:gpu_seconds` pairs joined by ';' (the jobs.csv `failure_log` cell).
std::string failure_log_cell(const JobStatus& status);

}  // namespace acmesim
