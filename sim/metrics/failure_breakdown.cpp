#include "sim/metrics/failure_breakdown.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "sim/core/error.hpp"

namespace acmesim {

void FailureBreakdown::add(FailureReason reason, std::int64_t gpu_ms_of_attempt, int job_gpus) {
  const auto r = static_cast<std::size_t>(reason);
  ++count[r];
  gpu_ms[r] += gpu_ms_of_attempt;
  if (job_gpus > 0) {
    ++with_demand[r];
    gpus[r] += job_gpus;
    attempt_ms[r] += gpu_ms_of_attempt / job_gpus;  // the attempt held its GPUs throughout
  }
}

std::uint64_t FailureBreakdown::total_count() const {
  return std::accumulate(count.begin(), count.end(), std::uint64_t{0});
}
std::int64_t FailureBreakdown::total_gpu_ms() const {
  return std::accumulate(gpu_ms.begin(), gpu_ms.end(), std::int64_t{0});
}

std::uint64_t FailureBreakdown::category_count(FailureCategory c) const {
  std::uint64_t n = 0;
  for (std::size_t r = 0; r < kFailureReasonCount; ++r)
    n += category(static_cast<FailureReason>(r)) == c ? count[r] : 0;
  return n;
}

std::int64_t FailureBreakdown::category_gpu_ms(FailureCategory c) const {
  std::int64_t n = 0;
  for (std::size_t r = 0; r < kFailureReasonCount; ++r)
    n += category(static_cast<FailureReason>(r)) == c ? gpu_ms[r] : 0;
  return n;
}

FailureBreakdown failure_breakdown(const std::vector<JobStatus>& jobs, const std::vector<JobSpec>& trace_jobs,
                                   const std::vector<JobSpec>& spawned) {
  FailureBreakdown b;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    ++b.jobs_read;
    const int gpus = i < trace_jobs.size()                    ? trace_jobs[i].demand.gpus
                     : i - trace_jobs.size() < spawned.size() ? spawned[i - trace_jobs.size()].demand.gpus
                                                              : 0;
    for (const FailureRecord& f : jobs[i].failure_log) b.add(f.reason, f.attempt_gpu_ms, gpus);
  }
  return b;
}

std::string failure_log_cell(const JobStatus& status) {
  std::string out;
  for (const FailureRecord& f : status.failure_log) {
    if (!out.empty()) out += ';';
    if (f.attempt_gpu_ms % 1000 == 0) {
      out += fmt::format("{}:{}", name(f.reason), f.attempt_gpu_ms / 1000);
    } else {
      out += fmt::format("{}:{:.3f}", name(f.reason), static_cast<double>(f.attempt_gpu_ms) / 1000.0);
    }
  }
  return out;
}

std::string format_failure_breakdown(const FailureBreakdown& b) {
  const double total_n = static_cast<double>(b.total_count());
  const double total_g = static_cast<double>(b.total_gpu_ms());
  const auto pct = [](double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; };
  // Means over the failures with a known demand, of the reasons `in` selects: GPUs, then minutes.
  const auto means = [&](auto&& in) {
    std::uint64_t n = 0;
    std::int64_t gpus = 0, ms = 0;
    for (std::size_t r = 0; r < kFailureReasonCount; ++r) {
      if (!in(r)) continue;
      n += b.with_demand[r];
      gpus += b.gpus[r];
      ms += b.attempt_ms[r];
    }
    if (n == 0) return fmt::format("{:>9} {:>10}", "-", "-");
    return fmt::format("{:>9.1f} {:>10.1f}", static_cast<double>(gpus) / static_cast<double>(n),
                       static_cast<double>(ms) / 60000.0 / static_cast<double>(n));
  };
  std::string out = fmt::format("{:<16} {:<20} {:>8} {:>8} {:>13} {:>10} {:>9} {:>10}\n", "category", "reason",
                                "failures", "% count", "failed GPU-h", "% GPU time", "mean GPUs", "TTF (min)");
  for (std::size_t ci = 0; ci < kFailureCategoryCount; ++ci) {
    const auto c = static_cast<FailureCategory>(ci);
    const std::uint64_t n = b.category_count(c);
    if (n == 0) continue;
    const std::int64_t g = b.category_gpu_ms(c);
    out += fmt::format("{:<16} {:<20} {:>8} {:>7.2f}% {:>13.1f} {:>9.2f}% {}\n", name(c), "(all)", n,
                       pct(static_cast<double>(n), total_n), static_cast<double>(g) / 3.6e6,
                       pct(static_cast<double>(g), total_g),
                       means([&](std::size_t r) { return category(static_cast<FailureReason>(r)) == c; }));
    std::vector<std::size_t> reasons;
    for (std::size_t r = 0; r < kFailureReasonCount; ++r) {
      if (b.count[r] > 0 && category(static_cast<FailureReason>(r)) == c) reasons.push_back(r);
    }
    std::stable_sort(reasons.begin(), reasons.end(),
                     [&](std::size_t x, std::size_t y) { return b.gpu_ms[x] > b.gpu_ms[y]; });
    for (const std::size_t r : reasons) {
      out += fmt::format("{:<16} {:<20} {:>8} {:>7.2f}% {:>13.1f} {:>9.2f}% {}\n", "",
                         name(static_cast<FailureReason>(r)), b.count[r], pct(static_cast<double>(b.count[r]), total_n),
                         static_cast<double>(b.gpu_ms[r]) / 3.6e6, pct(static_cast<double>(b.gpu_ms[r]), total_g),
                         means([&](std::size_t x) { return x == r; }));
    }
  }
  out += fmt::format("{:<16} {:<20} {:>8} {:>7.2f}% {:>13.1f} {:>9.2f}% {}   ({} jobs read)\n", "total", "",
                     b.total_count(), total_n > 0 ? 100.0 : 0.0, total_g / 3.6e6, total_g > 0 ? 100.0 : 0.0,
                     means([](std::size_t) { return true; }), b.jobs_read);
  // Table 3 counts failures whose reason the logs told: its shares leave Unknown out.
  const std::uint64_t unknown_n = b.category_count(FailureCategory::Unknown);
  const double known_n = total_n - static_cast<double>(unknown_n);
  const double known_g = total_g - static_cast<double>(b.category_gpu_ms(FailureCategory::Unknown));
  if (unknown_n > 0 && known_n > 0) {
    out += fmt::format("without Unknown (Table 3's scope): {} failures", b.total_count() - unknown_n);
    for (const FailureCategory c :
         {FailureCategory::Infrastructure, FailureCategory::Framework, FailureCategory::Script}) {
      out += fmt::format("; {} {:.2f}% of them, {:.2f}% of their GPU time", name(c),
                         pct(static_cast<double>(b.category_count(c)), known_n),
                         pct(static_cast<double>(b.category_gpu_ms(c)), known_g));
    }
    out += "\n";
  }
  return out;
}

}  // namespace acmesim
