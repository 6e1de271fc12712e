#pragma once
/// The paper's characterization of a trace [Acme Table 2 + AcmeTrace figures], computed
/// from any trace the reader accepts: both AcmeTrace schemas and acmesim's own jobs.csv.
///
/// The result is an ordered list of named metrics. The first block carries exactly the columns
/// of AcmeTrace's `cluster_summary.csv`, computed the way it computes them
/// [Acme Table 2 + AcmeTrace notebook]: GPU jobs are those with gpu_num > 0, CPU jobs those with gpu_num == 0,
/// TIMEOUT and NODE_FAIL count as failed, `duration` is the recorded run time and `queue`
/// start - submit. Then, for all GPU jobs and per job type (GPU jobs only, as the paper's
/// figures): shares of jobs and GPU time, duration and queue quantiles, CDFs at 2^i s, GPU-demand
/// quartiles and final-state shares. Jobs without a start (acmesim's `unschedulable` and
/// `unstarted` rows) are left out of every figure and counted in `jobs_without_start`.
///
/// Cost: O(n log n) in the number of jobs (one sort per group); memory O(n).
#include <optional>
#include <string>
#include <vector>

#include "io/acme_trace.hpp"
#include "io/reference.hpp"

namespace acmesim {

/// How a metric is judged against a reference (docs/validation.md, issue 3 targets).
enum class Tolerance : std::uint8_t {
  None,        // reported, no target
  Relative10,  // counts, means, medians: |value - ref| / ref <= 10%
  Points2,     // shares of jobs and final-state rates: within 2 percentage points
  Points5,     // CDF points and GPU-time shares: within 5 percentage points
};

struct Metric {
  std::string key;        // e.g. "avg_run_time_gpu", "Eval.duration_cdf.128"
  double value = 0;       // seconds, GPUs, counts; fractions (0-1) for cluster_summary rates, percent otherwise
  bool fraction = false;  // a 0-1 rate (cluster_summary.csv style): points are value x 100
  Tolerance tolerance = Tolerance::None;
  bool defined = true;  // false when the group is empty (no jobs of that type)
};

struct TraceStats {
  std::vector<Metric> metrics;  // in a fixed, documented order
  const Metric* find(const std::string& key) const;
};

TraceStats compute_trace_stats(const Trace& trace);

/// The key of every metric compute_trace_stats gives (what a reference may name).
std::vector<std::string> trace_stat_keys();

enum class StatsFormat { Table, Csv, Json };

/// Renders the stats, with the reference beside them when given: value, reference, difference
/// (in points for shares), relative error and whether the metric's target is met.
std::string format_trace_stats(const TraceStats& stats, const ReferenceRow* reference, StatsFormat format,
                               const std::string& trace_name);

}  // namespace acmesim
