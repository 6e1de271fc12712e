#include "io/failures_csv.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <string_view>
#include <vector>

#include "io/csv_reader.hpp"
#include "sim/core/error.hpp"

namespace acmesim {

namespace {

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

void read_failures(csv::CsvReader& reader, FailureBreakdown& into) {
  const std::string& path = reader.name();
  if (!reader.next_line()) throw input_error(place(path, 1), "header", "a CSV header line", "");
  constexpr std::array<std::string_view, 4> kWanted{"failure_log", "state", "gpu_time", "gpu_num"};
  const csv::HeaderMap header = csv::map_header(reader.cells(), kWanted);
  if (!header.duplicated.empty()) {
    throw input_error(place(path, 1), "header", "each column once", fmt::format("'{}' twice", header.duplicated));
  }
  const bool has_log = header.has(0);
  if (!has_log && !(header.has(1) && header.has(2))) {
    throw input_error(place(path, 1), "header",
                      "a 'failure_log' column (acmesim jobs.csv) or 'state' and 'gpu_time' (an AcmeTrace file)",
                      header.has(1)   ? "only state"
                      : header.has(2) ? "only gpu_time"
                                      : "none of them");
  }
  const bool has_gpus = header.has(3);  // without it, failures count without demand
  while (reader.next_line()) {
    const auto cells = reader.cells();
    if (const std::string_view problem = csv::shape_problem(reader, header); !problem.empty()) {
      throw input_error(place(path, static_cast<long>(reader.line())), "row", "as many cells as the header has columns",
                        problem);
    }
    const auto cell = [&](std::size_t wanted) {
      return header.has(wanted) ? cells[static_cast<std::size_t>(header.index[wanted])] : std::string_view{};
    };
    const std::string_view log = cell(0);
    const std::string_view state = cell(1);
    const std::string_view gpu_time = cell(2);
    const std::string_view gpu_num = cell(3);
    ++into.jobs_read;
    const std::string at = place(path, static_cast<long>(reader.line()));
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
  // Blank lines are skipped, as a hand-edited file may end with some.
  csv::CsvReader reader{path, "file", csv::CsvReader::BlankLines::Skip};
  try {
    read_failures(reader, into);
  } catch (const InputError&) {
    reader.check_rest_intact();
    throw;
  }
}

}  // namespace acmesim
