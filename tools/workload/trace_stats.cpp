#include "tools/workload/trace_stats.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <numeric>

#include "io/stats_json.hpp"
#include "sim/core/error.hpp"
#include "sim/metrics/summary.hpp"

namespace acmesim {

namespace {

// The paper evaluates duration CDFs at 2^0..2^21 s (T1, T4, T6) and queue CDFs at 2^0..2^15 s
// (T5, T7): [AcmeTrace T1-T7].
constexpr int kDurationGridMax = 21;
constexpr int kQueueGridMax = 15;
// The GPU-count grid of T2/T3 [AcmeTrace T2, T3].
constexpr std::array<int, 19> kGpuGrid{1, 2, 4, 7, 8, 15, 16, 31, 32, 63, 64, 127, 128, 255, 256, 511, 512, 1023, 1024};
constexpr std::array<double, 6> kQuantiles{0.25, 0.50, 0.75, 0.90, 0.95, 0.99};
constexpr std::array<const char*, 6> kQuantileNames{"p25", "p50", "p75", "p90", "p95", "p99"};

enum StateClass : std::size_t { kCompleted, kCancelled, kFailed };  // TIMEOUT, NODE_FAIL count as failed [AcmeTrace]

StateClass state_class(FinalState s) {
  if (s == FinalState::Completed) return kCompleted;
  if (s == FinalState::Cancelled) return kCancelled;
  return kFailed;
}

/// One group of jobs (all GPU jobs, all CPU jobs, or one type's GPU jobs).
struct Group {
  std::vector<std::int64_t> duration_ms, queue_ms;
  std::vector<std::int64_t> gpus;  // as ms-like integers so quantile() applies: value x 1000
  std::vector<std::pair<int, std::int64_t>> gpu_time_by_size;  // (gpus, gpu-ms)
  std::array<std::uint64_t, 3> count_by_state{};
  std::array<std::int64_t, 3> gpu_ms_by_state{};  // integer GPU-ms ([Design time]: integer sums)
  std::size_t size() const { return duration_ms.size(); }
  std::int64_t gpu_ms() const {
    return std::accumulate(gpu_ms_by_state.begin(), gpu_ms_by_state.end(), std::int64_t{0});
  }
  void sort() {
    std::sort(duration_ms.begin(), duration_ms.end());
    std::sort(queue_ms.begin(), queue_ms.end());
    std::sort(gpus.begin(), gpus.end());
  }
};

double mean_s(const std::vector<std::int64_t>& ms) {
  if (ms.empty()) return 0;
  const long double total = std::accumulate(ms.begin(), ms.end(), 0.0L);
  return static_cast<double>(total / static_cast<long double>(ms.size())) / 1000.0;
}

/// Percent of sorted values <= limit.
double cdf_percent(const std::vector<std::int64_t>& sorted, std::int64_t limit) {
  if (sorted.empty()) return 0;
  const auto n = std::upper_bound(sorted.begin(), sorted.end(), limit) - sorted.begin();
  return 100.0 * static_cast<double>(n) / static_cast<double>(sorted.size());
}

double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

class Builder {
 public:
  void add(std::string key, double value, Tolerance tol = Tolerance::None, bool fraction = false, bool defined = true) {
    metrics_.push_back(Metric{std::move(key), value, fraction, tol, defined});
  }
  std::vector<Metric> take() { return std::move(metrics_); }

  /// Duration/queue quantiles and CDFs, demand quartiles and state shares of one GPU-job group.
  void group(const std::string& prefix, const Group& g, Tolerance cdf_tol) {
    const bool any = g.size() > 0;
    for (std::size_t i = 0; i < kQuantiles.size(); ++i) {
      add(fmt::format("{}.duration_{}", prefix, kQuantileNames[i]), quantile(g.duration_ms, kQuantiles[i]),
          Tolerance::None, false, any);
    }
    for (int i = 0; i <= kDurationGridMax; ++i) {
      add(fmt::format("{}.duration_cdf.{}", prefix, 1 << i), cdf_percent(g.duration_ms, std::int64_t{1000} << i),
          cdf_tol, false, any);
    }
    for (std::size_t i = 0; i < kQuantiles.size(); ++i) {
      add(fmt::format("{}.queue_{}", prefix, kQuantileNames[i]), quantile(g.queue_ms, kQuantiles[i]), Tolerance::None,
          false, any);
    }
    for (int i = 0; i <= kQueueGridMax; ++i) {
      add(fmt::format("{}.queue_cdf.{}", prefix, 1 << i), cdf_percent(g.queue_ms, std::int64_t{1000} << i),
          Tolerance::None, false, any);
    }
    add(prefix + ".gpu_q1", quantile(g.gpus, 0.25), Tolerance::None, false, any);
    add(prefix + ".gpu_median", quantile(g.gpus, 0.50), Tolerance::None, false, any);
    add(prefix + ".gpu_q3", quantile(g.gpus, 0.75), Tolerance::None, false, any);
    const double n = static_cast<double>(g.size());
    const double gpu_ms = static_cast<double>(g.gpu_ms());
    static constexpr std::array<const char*, 3> kStates{"completed", "cancelled", "failed"};
    for (std::size_t s = 0; s < 3; ++s) {
      add(fmt::format("{}.{}", prefix, kStates[s]), 100.0 * ratio(static_cast<double>(g.count_by_state[s]), n),
          Tolerance::Points2, false, any);
    }
    for (std::size_t s = 0; s < 3; ++s) {
      add(fmt::format("{}.gpu_time_{}", prefix, kStates[s]),
          100.0 * ratio(static_cast<double>(g.gpu_ms_by_state[s]), gpu_ms), Tolerance::Points5, false, any);
    }
  }

 private:
  std::vector<Metric> metrics_;
};

}  // namespace

const Metric* TraceStats::find(const std::string& key) const {
  for (const Metric& m : metrics) {
    if (m.key == key) return &m;
  }
  return nullptr;
}

TraceStats compute_trace_stats(const Trace& trace) {
  Group gpu, cpu;
  std::array<Group, kJobTypeCount> by_type;
  std::uint64_t without_start = 0;
  std::int64_t max_run_ms = 0;
  int max_gpus = 0;
  for (const JobSpec& job : trace.jobs) {
    if (!job.recorded_start) {
      ++without_start;
      continue;
    }
    const std::int64_t duration = job.runtime.count();
    const std::int64_t queue = (*job.recorded_start - job.submitted).count();
    const StateClass state = state_class(job.recorded_state);
    const std::int64_t gpu_ms = duration * job.demand.gpus;
    const auto fill = [&](Group& g) {
      g.duration_ms.push_back(duration);
      g.queue_ms.push_back(queue);
      g.gpus.push_back(std::int64_t{job.demand.gpus} * 1000);
      ++g.count_by_state[state];
      g.gpu_ms_by_state[state] += gpu_ms;
    };
    if (job.demand.gpus > 0) {
      fill(gpu);
      fill(by_type[static_cast<std::size_t>(job.type)]);
      gpu.gpu_time_by_size.emplace_back(job.demand.gpus, gpu_ms);
      max_run_ms = std::max(max_run_ms, duration);
      max_gpus = std::max(max_gpus, job.demand.gpus);
    } else {
      fill(cpu);
    }
  }
  gpu.sort();
  cpu.sort();
  for (Group& g : by_type) g.sort();

  const double gpu_n = static_cast<double>(gpu.size());
  const double cpu_n = static_cast<double>(cpu.size());
  const double gpu_total_ms = static_cast<double>(gpu.gpu_ms());
  Builder b;
  // cluster_summary.csv, column by column [Acme Table 2].
  b.add("job_num", gpu_n + cpu_n, Tolerance::Relative10);
  b.add("cpu_job_num", cpu_n, Tolerance::Relative10);
  b.add("gpu_job_num", gpu_n, Tolerance::Relative10);
  b.add("avg_run_time_gpu", mean_s(gpu.duration_ms), Tolerance::Relative10);
  b.add("avg_que_time_gpu", mean_s(gpu.queue_ms));
  b.add("avg_gpu_num", mean_s(gpu.gpus), Tolerance::Relative10);
  b.add("med_run_time_gpu", quantile(gpu.duration_ms, 0.5), Tolerance::Relative10);
  b.add("med_que_time_gpu", quantile(gpu.queue_ms, 0.5));
  b.add("med_gpu_num", quantile(gpu.gpus, 0.5), Tolerance::Relative10);
  b.add("max_run_time_gpu", static_cast<double>(max_run_ms) / 1000.0);
  b.add("max_gpu", max_gpus);
  b.add("complete_rate_gpu", ratio(static_cast<double>(gpu.count_by_state[kCompleted]), gpu_n), Tolerance::Points2,
        true);
  b.add("cancel_rate_gpu", ratio(static_cast<double>(gpu.count_by_state[kCancelled]), gpu_n), Tolerance::Points2, true);
  b.add("fail_rate_gpu", ratio(static_cast<double>(gpu.count_by_state[kFailed]), gpu_n), Tolerance::Points2, true);
  b.add("complete_gpu_time", static_cast<double>(gpu.gpu_ms_by_state[kCompleted]) / 1000.0);
  b.add("cancel_gpu_time", static_cast<double>(gpu.gpu_ms_by_state[kCancelled]) / 1000.0);
  b.add("fail_gpu_time", static_cast<double>(gpu.gpu_ms_by_state[kFailed]) / 1000.0);
  b.add("complete_rate_gpu_time", ratio(static_cast<double>(gpu.gpu_ms_by_state[kCompleted]), gpu_total_ms),
        Tolerance::Points5, true);
  b.add("cancel_rate_gpu_time", ratio(static_cast<double>(gpu.gpu_ms_by_state[kCancelled]), gpu_total_ms),
        Tolerance::Points5, true);
  b.add("fail_rate_gpu_time", ratio(static_cast<double>(gpu.gpu_ms_by_state[kFailed]), gpu_total_ms),
        Tolerance::Points5, true);
  b.add("avg_run_time_cpu", mean_s(cpu.duration_ms), Tolerance::Relative10);
  b.add("avg_que_time_cpu", mean_s(cpu.queue_ms));
  b.add("med_run_time_cpu", quantile(cpu.duration_ms, 0.5), Tolerance::Relative10);
  b.add("med_que_time_cpu", quantile(cpu.queue_ms, 0.5));
  b.add("complete_rate_cpu", ratio(static_cast<double>(cpu.count_by_state[kCompleted]), cpu_n), Tolerance::Points2,
        true);
  b.add("cancel_rate_cpu", ratio(static_cast<double>(cpu.count_by_state[kCancelled]), cpu_n), Tolerance::Points2, true);
  b.add("fail_rate_cpu", ratio(static_cast<double>(cpu.count_by_state[kFailed]), cpu_n), Tolerance::Points2, true);

  // Beyond the csv.
  b.add("jobs_without_start", static_cast<double>(without_start));
  b.add("gpu_hours", gpu_total_ms / 3.6e6);
  b.group("all", gpu, Tolerance::Points5);  // T1 is the all-GPU-jobs duration CDF
  // T2 / T3: share of GPU jobs and of GPU time with gpu_num <= x.
  std::sort(gpu.gpu_time_by_size.begin(), gpu.gpu_time_by_size.end());
  std::size_t pos = 0;
  std::int64_t gpu_ms_so_far = 0;
  for (int x : kGpuGrid) {
    while (pos < gpu.gpu_time_by_size.size() && gpu.gpu_time_by_size[pos].first <= x) {
      gpu_ms_so_far += gpu.gpu_time_by_size[pos].second;
      ++pos;
    }
    b.add(fmt::format("gpu_cdf.{}", x), 100.0 * ratio(static_cast<double>(pos), gpu_n));
    b.add(fmt::format("gpu_time_cdf.{}", x), 100.0 * ratio(static_cast<double>(gpu_ms_so_far), gpu_total_ms));
  }
  for (int i = 0; i <= kDurationGridMax; ++i) {
    b.add(fmt::format("cpu.duration_cdf.{}", 1 << i), cdf_percent(cpu.duration_ms, std::int64_t{1000} << i),
          Tolerance::None, false, cpu.size() > 0);
  }
  for (JobType type : kJobTypes) {
    const Group& g = by_type[static_cast<std::size_t>(type)];
    const std::string prefix{name(type)};
    b.add(prefix + ".jobs", static_cast<double>(g.size()));
    b.add(prefix + ".job_share", 100.0 * ratio(static_cast<double>(g.size()), gpu_n), Tolerance::Points2);
    b.add(prefix + ".gpu_time_share", 100.0 * ratio(static_cast<double>(g.gpu_ms()), gpu_total_ms), Tolerance::Points5);
    b.group(prefix, g, Tolerance::Points5);
  }
  return TraceStats{b.take()};
}

std::vector<std::string> trace_stat_keys() {
  std::vector<std::string> keys;
  for (const Metric& m : compute_trace_stats(Trace{}).metrics) keys.push_back(m.key);
  return keys;
}

namespace {

std::string show(double v, bool fraction) {
  if (!std::isfinite(v)) return "nan";
  if (fraction) return fmt::format("{:.3f}", v);
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{:.0f}", v);
  if (std::fabs(v) >= 1000) return fmt::format("{:.1f}", v);
  return fmt::format("{:.2f}", v);
}

struct Comparison {
  double diff;  // points for shares, raw units otherwise
  double rel;   // (value - ref) / ref; NaN when ref == 0
  std::optional<bool> met;
};

Comparison compare(const Metric& m, double ref) {
  Comparison c{};
  c.diff = (m.value - ref) * (m.fraction ? 100.0 : 1.0);
  c.rel = ref != 0 ? (m.value - ref) / ref : std::nan("");
  switch (m.tolerance) {
    case Tolerance::None:
      break;
    case Tolerance::Relative10:
      c.met = ref != 0 ? std::fabs(c.rel) <= 0.10 : m.value == 0;
      break;
    case Tolerance::Points2:
      c.met = std::fabs(c.diff) <= 2.0 + 1e-9;
      break;
    case Tolerance::Points5:
      c.met = std::fabs(c.diff) <= 5.0 + 1e-9;
      break;
  }
  return c;
}

/// Shares and CDF points: their difference is in percentage points.
bool in_points(const Metric& m) {
  return m.fraction || m.tolerance == Tolerance::Points2 || m.tolerance == Tolerance::Points5 ||
         m.key.find("cdf") != std::string::npos;
}

const char* target_text(Tolerance t) {
  switch (t) {
    case Tolerance::Relative10:
      return "10%";
    case Tolerance::Points2:
      return "2 pts";
    case Tolerance::Points5:
      return "5 pts";
    case Tolerance::None:
      break;
  }
  return "";
}

}  // namespace

std::string format_trace_stats(const TraceStats& stats, const ReferenceRow* reference, StatsFormat format,
                               const std::string& trace_name) {
  std::string out;
  if (format == StatsFormat::Json) {
    StatsJson json;
    json.trace = trace_name;
    if (reference) {
      json.reference_name = reference->name;
      json.reference_source = reference->source;
    }
    for (const Metric& m : stats.metrics) {
      StatsJsonMetric entry;
      entry.key = m.key;
      if (m.defined) entry.value = m.value;
      if (const auto ref = reference ? reference->find(m.key) : std::nullopt) {
        const Comparison c = compare(m, *ref);
        entry.reference = *ref;
        entry.diff = c.diff;
        entry.rel_error = c.rel;
        if (c.met && m.defined) entry.target_met = *c.met;
      }
      json.metrics.push_back(std::move(entry));
    }
    return format_stats_json(json);
  }
  if (format == StatsFormat::Csv) {
    out = reference ? "metric,value,reference,diff,rel_error,target,met\n" : "metric,value\n";
    for (const Metric& m : stats.metrics) {
      const std::string value = m.defined ? fmt::format("{}", m.value) : std::string{};
      if (!reference) {
        out += fmt::format("{},{}\n", m.key, value);
        continue;
      }
      const auto ref = reference->find(m.key);
      if (!ref) {
        out += fmt::format("{},{},,,,{},\n", m.key, value, target_text(m.tolerance));
        continue;
      }
      const Comparison c = compare(m, *ref);
      out += fmt::format("{},{},{},{:.6g},{},{},{}\n", m.key, value, *ref, c.diff,
                         std::isfinite(c.rel) ? fmt::format("{:.6g}", c.rel) : std::string{}, target_text(m.tolerance),
                         c.met && m.defined ? (*c.met ? "yes" : "no") : "");
    }
    return out;
  }
  // Table: without a reference every metric; with one, the metrics it gives, side by side.
  out += fmt::format("trace {}{}\n", trace_name, reference ? fmt::format(" | reference {}", reference->name) : "");
  if (reference) {
    out += fmt::format("{:<32} {:>14} {:>14} {:>10} {:>8} {:>6} {}\n", "metric", "value", "reference", "diff",
                       "rel.err", "target", "met");
  }
  for (const Metric& m : stats.metrics) {
    const std::string value = m.defined ? show(m.value, m.fraction) : "-";
    if (!reference) {
      out += fmt::format("{:<32} {:>14}\n", m.key, value);
      continue;
    }
    const auto ref = reference->find(m.key);
    if (!ref) continue;
    const Comparison c = compare(m, *ref);
    out += fmt::format("{:<32} {:>14} {:>14} {:>10} {:>8} {:>6} {}\n", m.key, value, show(*ref, m.fraction),
                       in_points(m) ? fmt::format("{:+.2f}pt", c.diff)
                                    : fmt::format("{}{}", c.diff >= 0 ? "+" : "", show(c.diff, false)),
                       std::isfinite(c.rel) ? fmt::format("{:+.1f}%", 100.0 * c.rel) : "-", target_text(m.tolerance),
                       !c.met || !m.defined ? ""
                       : *c.met             ? "ok"
                                            : "MISS");
  }
  return out;
}

}  // namespace acmesim
