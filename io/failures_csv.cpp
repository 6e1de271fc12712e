#include "io/failures_csv.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <string_view>
#include <vector>

#include "io/csv_file.hpp"
#include "sim/core/error.hpp"

namespace acmesim {

namespace {

// Blank lines are skipped, as a hand-edited file may end with some.
using Reader = io::CSVReader<4, io::trim_chars<' ', '\t', '\r'>, io::double_quote_escape<',', '"'>,
                             io::throw_on_overflow, io::empty_line_comment>;

/// The most GPU-seconds one failure or one job holds: 10^13 (~317,000 GPU-years, 130 times a
/// 16,384-GPU job over 54 days). In milliseconds, thousands of such rows still sum inside an int64.
constexpr double kMaxGpuSeconds = 1e13;

bool parse_seconds_ms(std::string_view text, std::int64_t& ms) {
  double v = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || p != text.data() + text.size() || !std::isfinite(v) || v < 0 || v > kMaxGpuSeconds) {
    return false;
  }
  ms = std::llround(v * 1000.0);
  return true;
}

/// "Reason:gpu_seconds;Reason:gpu_seconds" (failure_log_cell) into `into`, of a job of `gpus` GPUs.
void add_failure_log(std::string_view cell, const std::string& place, int gpus, FailureBreakdown& into) {
  while (!cell.empty()) {
    const auto end = cell.find(';');
    const std::string_view item = cell.substr(0, end);
    const auto colon = item.rfind(':');
    const auto reason =
        colon == std::string_view::npos ? std::nullopt : parse_failure_reason(std::string(item.substr(0, colon)));
    std::int64_t ms = 0;
    if (!reason || !parse_seconds_ms(item.substr(colon + 1), ms)) {
      throw input_error(place, "column 'failure_log'",
                        "Reason:gpu_seconds items joined by ';' (GPU-seconds in [0, 1e13])", item);
    }
    into.add(*reason, ms, gpus);
    cell = end == std::string_view::npos ? std::string_view{} : cell.substr(end + 1);
  }
}

void read_failures(Reader& reader, const std::string& path, FailureBreakdown& into) {
  try {
    reader.read_header(io::ignore_extra_column | io::ignore_missing_column, "failure_log", "state", "gpu_time",
                       "gpu_num");
  } catch (const io::error::header_missing&) {
    throw input_error(place(path, 1), "header", "a CSV header line", "");
  }
  const bool has_log = reader.has_column("failure_log");
  if (!has_log && !(reader.has_column("state") && reader.has_column("gpu_time"))) {
    throw input_error(place(path, 1), "header",
                      "a 'failure_log' column (acmesim jobs.csv) or 'state' and 'gpu_time' (an AcmeTrace file)",
                      reader.has_column("state")      ? "only state"
                      : reader.has_column("gpu_time") ? "only gpu_time"
                                                      : "none of them");
  }
  const bool has_gpus = reader.has_column("gpu_num");  // without it, failures count without demand
  const char* log = nullptr;
  const char* state = nullptr;
  const char* gpu_time = nullptr;
  const char* gpu_num = nullptr;
  for (;;) {
    try {
      if (!reader.read_row(log, state, gpu_time, gpu_num)) return;
    } catch (const io::error::base& e) {
      const bool fewer = dynamic_cast<const io::error::too_few_columns*>(&e) != nullptr;
      const bool more = dynamic_cast<const io::error::too_many_columns*>(&e) != nullptr;
      throw input_error(place(path, static_cast<long>(reader.get_file_line())), "row",
                        "as many cells as the header has columns",
                        fewer  ? "fewer"
                        : more ? "more"
                               : std::string_view{e.what()});
    }
    ++into.jobs_read;
    const std::string at = place(path, static_cast<long>(reader.get_file_line()));
    int gpus = 0;
    if (has_gpus) {
      const std::string_view g = gpu_num;
      const auto [p, ec] = std::from_chars(g.data(), g.data() + g.size(), gpus);
      if (ec != std::errc{} || p != g.data() + g.size() || gpus < 0) {
        throw input_error(at, "column 'gpu_num'", "a whole number of GPUs", g);
      }
    }
    if (has_log) {
      add_failure_log(log, at, gpus, into);
      continue;
    }
    const std::string_view s = state;
    if (s != "FAILED" && s != "TIMEOUT" && s != "NODE_FAIL") continue;
    std::int64_t ms = 0;
    if (!parse_seconds_ms(gpu_time, ms))
      throw input_error(at, "column 'gpu_time'", "GPU-seconds in [0, 1e13]", gpu_time);
    into.add(FailureReason::Unknown, ms, gpus);
  }
}

}  // namespace

void add_failures_from_csv(const std::string& path, FailureBreakdown& into) {
  csv::read_csv_file<Reader>(path, "file", [&](Reader& reader) { read_failures(reader, path, into); });
}

}  // namespace acmesim
