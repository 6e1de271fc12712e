#include "sim/metrics/failure_breakdown.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <numeric>

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace acmesim {

void FailureBreakdown::add(FailureReason reason, std::int64_t gpu_ms_of_attempt) {
  ++count[static_cast<std::size_t>(reason)];
  gpu_ms[static_cast<std::size_t>(reason)] += gpu_ms_of_attempt;
}

std::uint64_t FailureBreakdown::total_count() const { return std::accumulate(count.begin(), count.end(), std::uint64_t{0}); }
std::int64_t FailureBreakdown::total_gpu_ms() const { return std::accumulate(gpu_ms.begin(), gpu_ms.end(), std::int64_t{0}); }

std::uint64_t FailureBreakdown::category_count(FailureCategory c) const {
  std::uint64_t n = 0;
  for (std::size_t r = 0; r < kFailureReasonCount; ++r) n += category(static_cast<FailureReason>(r)) == c ? count[r] : 0;
  return n;
}

std::int64_t FailureBreakdown::category_gpu_ms(FailureCategory c) const {
  std::int64_t n = 0;
  for (std::size_t r = 0; r < kFailureReasonCount; ++r) n += category(static_cast<FailureReason>(r)) == c ? gpu_ms[r] : 0;
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

namespace {

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> cells;
  std::size_t begin = 0;
  while (true) {
    const std::size_t at = line.find(sep, begin);
    cells.push_back(line.substr(begin, at == std::string::npos ? std::string::npos : at - begin));
    if (at == std::string::npos) return cells;
    begin = at + 1;
  }
}

bool parse_seconds_ms(const std::string& text, std::int64_t& ms) {
  double v = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || p != text.data() + text.size() || !std::isfinite(v) || v < 0) return false;
  ms = std::llround(v * 1000.0);
  return true;
}

}  // namespace

void add_failures_from_csv(const std::string& path, FailureBreakdown& into) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot open the file", path));
  std::string line;
  if (!std::getline(in, line)) throw InputError(fmt::format("{}:1: expected a CSV header, found an empty file", path));
  if (!line.empty() && line.back() == '\r') line.pop_back();
  const std::vector<std::string> header = split(line, ',');
  const auto column = [&](const std::string& name) -> std::ptrdiff_t {
    const auto it = std::find(header.begin(), header.end(), name);
    return it == header.end() ? -1 : it - header.begin();
  };
  const std::ptrdiff_t log = column("failure_log");
  const std::ptrdiff_t state = column("state");
  const std::ptrdiff_t gpu_time = column("gpu_time");
  if (log < 0 && (state < 0 || gpu_time < 0)) {
    throw InputError(fmt::format("{}:1: header: expected a 'failure_log' column (acmesim jobs.csv) or 'state' and "
                                 "'gpu_time' (an AcmeTrace file), found '{}'",
                                 path, line));
  }
  std::size_t line_no = 1;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const std::vector<std::string> cells = split(line, ',');
    if (cells.size() != header.size()) {
      throw InputError(fmt::format("{}:{}: expected {} columns as in the header, found {}", path, line_no,
                                   header.size(), cells.size()));
    }
    ++into.jobs_read;
    if (log >= 0) {
      const std::string& cell = cells[static_cast<std::size_t>(log)];
      if (cell.empty()) continue;
      for (const std::string& item : split(cell, ';')) {
        const auto colon = item.rfind(':');
        const auto reason = colon == std::string::npos ? std::nullopt : parse_failure_reason(item.substr(0, colon));
        std::int64_t ms = 0;
        if (!reason || !parse_seconds_ms(item.substr(colon + 1), ms)) {
          throw InputError(fmt::format("{}:{}: column 'failure_log': expected Reason:gpu_seconds items joined by ';', "
                                       "found '{}'",
                                       path, line_no, item));
        }
        into.add(*reason, ms);
      }
    } else {
      const std::string& s = cells[static_cast<std::size_t>(state)];
      if (s != "FAILED" && s != "TIMEOUT" && s != "NODE_FAIL") continue;
      std::int64_t ms = 0;
      if (!parse_seconds_ms(cells[static_cast<std::size_t>(gpu_time)], ms)) {
        throw InputError(fmt::format("{}:{}: column 'gpu_time': expected GPU-seconds, found '{}'", path, line_no,
                                     cells[static_cast<std::size_t>(gpu_time)]));
      }
      into.add(FailureReason::Unknown, ms);
    }
  }
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
    std::stable_sort(reasons.begin(), reasons.end(), [&](std::size_t x, std::size_t y) { return b.gpu_ms[x] > b.gpu_ms[y]; });
    for (const std::size_t r : reasons) {
      out += fmt::format("{:<16} {:<20} {:>8} {:>7.2f}% {:>13.1f} {:>9.2f}%\n", "", name(static_cast<FailureReason>(r)),
                         b.count[r], pct(static_cast<double>(b.count[r]), total_n),
                         static_cast<double>(b.gpu_ms[r]) / 3.6e6, pct(static_cast<double>(b.gpu_ms[r]), total_g));
    }
  }
  out += fmt::format("{:<16} {:<20} {:>8} {:>7.2f}% {:>13.1f} {:>9.2f}%   ({} jobs read)\n", "total", "", b.total_count(),
                     total_n > 0 ? 100.0 : 0.0, total_g / 3.6e6, total_g > 0 ? 100.0 : 0.0, b.jobs_read);
  return out;
}

}  // namespace acmesim
