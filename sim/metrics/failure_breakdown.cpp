#include "sim/metrics/failure_breakdown.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "sim/core/error.hpp"

namespace acmesim {

void FailureBreakdown::add(FailureReason reason, std::int64_t gpu_ms_of_attempt) {
  ++count[static_cast<std::size_t>(reason)];
  gpu_ms[static_cast<std::size_t>(reason)] += gpu_ms_of_attempt;
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

FailureBreakdown failure_breakdown(const std::vector<JobStatus>& jobs) {
  FailureBreakdown b;
  for (const JobStatus& s : jobs) {
    ++b.jobs_read;
    for (const FailureRecord& f : s.failure_log) b.add(f.reason, f.attempt_gpu_ms);
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
  std::string out = fmt::format("{:<16} {:<20} {:>8} {:>8} {:>13} {:>10}\n", "category", "reason", "failures",
                                "% count", "GPU-hours", "% GPU time");
  for (std::size_t ci = 0; ci < kFailureCategoryCount; ++ci) {
    const auto c = static_cast<FailureCategory>(ci);
    const std::uint64_t n = b.category_count(c);
    if (n == 0) continue;
    const std::int64_t g = b.category_gpu_ms(c);
    out += fmt::format("{:<16} {:<20} {:>8} {:>7.2f}% {:>13.1f} {:>9.2f}%\n", name(c), "(all)", n,
                       pct(static_cast<double>(n), total_n), static_cast<double>(g) / 3.6e6,
                       pct(static_cast<double>(g), total_g));
    std::vector<std::size_t> reasons;
    for (std::size_t r = 0; r < kFailureReasonCount; ++r) {
      if (b.count[r] > 0 && category(static_cast<FailureReason>(r)) == c) reasons.push_back(r);
    }
    std::stable_sort(reasons.begin(), reasons.end(),
                     [&](std::size_t x, std::size_t y) { return b.gpu_ms[x] > b.gpu_ms[y]; });
    for (const std::size_t r : reasons) {
      out += fmt::format("{:<16} {:<20} {:>8} {:>7.2f}% {:>13.1f} {:>9.2f}%\n", "", name(static_cast<FailureReason>(r)),
                         b.count[r], pct(static_cast<double>(b.count[r]), total_n),
                         static_cast<double>(b.gpu_ms[r]) / 3.6e6, pct(static_cast<double>(b.gpu_ms[r]), total_g));
    }
  }
  out +=
      fmt::format("{:<16} {:<20} {:>8} {:>7.2f}% {:>13.1f} {:>9.2f}%   ({} jobs read)\n", "total", "", b.total_count(),
                  total_n > 0 ? 100.0 : 0.0, total_g / 3.6e6, total_g > 0 ? 100.0 : 0.0, b.jobs_read);
  return out;
}

}  // namespace acmesim
