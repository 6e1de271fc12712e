#pragma once
/// The failure breakdown of a run the way the Acme paper's Table 3 gives it [Acme Table 3]:
/// per category and reason, the number of failures and their share, and the GPU time of the
/// attempts they ended and its share. One failure = one attempt a failure ended (a job that
/// recovered from three node failures counts three; a job that ended FAILED counts one).
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
  std::uint64_t jobs_read = 0;

  void add(FailureReason reason, std::int64_t gpu_ms_of_attempt);
  std::uint64_t total_count() const;
  std::int64_t total_gpu_ms() const;
  std::uint64_t category_count(FailureCategory c) const;
  std::int64_t category_gpu_ms(FailureCategory c) const;
};

FailureBreakdown failure_breakdown(const std::vector<JobStatus>& jobs);

/// A Table-3-style text table: categories, then their reasons with failures, share of failures,
/// GPU-hours and share of failed GPU time, largest GPU time first.
std::string format_failure_breakdown(const FailureBreakdown& breakdown);

/// `reason:gpu_seconds` pairs joined by ';' (the jobs.csv `failure_log` cell).
std::string failure_log_cell(const JobStatus& status);

}  // namespace acmesim
