#pragma once
/// Run-level statistics, per job type and overall, computed once from a RunResult. All sums are
/// integer milliseconds; floating point appears only in the quantiles and ratios reported.
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "sim/metrics/failure_breakdown.hpp"
#include "sim/model/job.hpp"
#include "sim/run/simulation.hpp"

namespace acmesim {

struct Quantiles {
  double mean = 0, median = 0, p95 = 0, p99 = 0;  // seconds
};

/// Linear interpolation between order statistics (numpy's and pandas' default), so numbers
/// match what a user computes from jobs.csv.
double quantile(const std::vector<std::int64_t>& sorted_ms, double q);
/// The mean and quantiles of `ms` (milliseconds, reported as seconds), which it reorders:
/// expected O(n), by selection.
Quantiles quantiles(std::span<std::int64_t> ms);

struct GroupStats {
  std::uint64_t jobs = 0;  // jobs that ran
  std::uint64_t gpu_jobs = 0;
  Quantiles queue;     // start - submit
  Quantiles jct;       // end - submit
  Quantiles wait;      // end - submit - time holding resources (suspended time counts)
  Quantiles slowdown;  // bounded slowdown, a ratio (JobStatus::slowdown)
  std::array<std::int64_t, kFinalStateCount> gpu_ms_by_state{};  // GPU time held, by final state
  std::uint64_t preemptions = 0;
  std::uint64_t failures = 0;
  std::int64_t lost_gpu_ms = 0;        // work done, not kept, redone
  std::int64_t overhead_gpu_ms = 0;    // restart overheads
  std::int64_t checkpoint_gpu_ms = 0;  // checkpoint stalls
  std::uint64_t manual_interventions = 0;
  std::uint64_t jobs_with_failures = 0;
  std::int64_t recovery_wait_gpu_ms = 0;  // GPUs x time out of the queue recovering (idle if its nodes stay reserved)
  std::uint64_t killed = 0;               // jobs a node failure ended (NODE_FAIL)
  std::int64_t killed_gpu_ms = 0;         // GPU time of their last attempts, lost with them
  // Effective training time ratio: useful work / wall time from first start to end (per job,
  // summed over jobs, killed jobs included with only the work checkpointed before their last
  // attempt; docs/failures.md).
  std::int64_t work_ms = 0;
  std::int64_t wall_ms = 0;
  double ettr() const { return wall_ms > 0 ? static_cast<double>(work_ms) / static_cast<double>(wall_ms) : 1.0; }
  std::int64_t gpu_ms() const;
};

/// Interruptions seen by the GPU jobs of one size bucket: what a measured "MTTF of N-GPU jobs" is.
struct SizeBucketFailures {
  int min_gpus = 0, max_gpus = 0;  // inclusive; max 0: no upper bound
  std::uint64_t jobs = 0;
  std::uint64_t failures = 0;   // failures that interrupted or ended one of their attempts
  std::int64_t running_ms = 0;  // time they held resources, summed over jobs
  double mtbi_hours() const;    // running time per failure (0 without failures)
};
inline constexpr std::size_t kSizeBucketCount = 6;  // 1-8, 9-64, 65-256, 257-1024, 1025-4096, 4097+ GPUs

/// Run-level failure figures (docs/failures.md "Metrics").
struct FailureSummary {
  double node_availability = 1.0;           // 1 - down GPU node time / (GPU nodes x makespan)
  double node_days = 0;                     // GPU nodes x makespan
  double hardware_per_1000_node_days = 0;   // node failures that took a node down, as the run saw them
  double transient_per_1000_node_days = 0;  // interruptions that left the node up
  std::array<SizeBucketFailures, kSizeBucketCount> by_size{};
  FailureBreakdown breakdown;  // Table-3-style, over every failure of the run
};

/// How multi-node GPU jobs sat on the leaf switches (when cluster.nodes_per_switch > 0).
struct TopologyStats {
  std::uint64_t multi_node_jobs = 0;   // ran on more than one node
  std::uint64_t within_one_group = 0;  // of which every attempt stayed under one leaf switch
  std::uint64_t groups_spanned = 0;    // sum over them of the most groups an attempt spanned
};

struct RunSummary {
  GroupStats overall;
  std::array<GroupStats, kJobTypeCount> by_type;
  double makespan_s = 0;            // last end - first submission
  double gpu_allocation_ratio = 0;  // time-weighted allocated GPUs / total GPUs over the makespan
  FailureSummary failures;
  TopologyStats topology;
};

RunSummary summarize(const std::vector<JobSpec>& jobs, const RunResult& result, int total_gpus);

/// The GPU time the jobs ask for (GPUs x recorded runtime) over the GPU time of `total_gpus`
/// across the span of submissions: above 1, no scheduler can keep the queue from growing until
/// submissions stop. 0 for fewer than two distinct submission times. O(jobs).
double offered_gpu_load(const std::vector<JobSpec>& jobs, int total_gpus);

}  // namespace acmesim
