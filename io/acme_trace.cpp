#include "io/acme_trace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <future>
#include <limits>
#include <optional>
#include <unordered_map>

#include "io/csv_reader.hpp"
#include "io/sha256.hpp"
#include "io/timestamp.hpp"
#include "sim/core/error.hpp"

namespace acmesim {

std::string_view name(TraceSchema schema) { return schema == TraceSchema::Kalos ? "kalos" : "seren"; }

namespace {

/// One bad field or row: the message names the place, the column, the expected form and what was found.
struct BadField {
  std::string message;
};

using Cells = std::array<std::string_view, kAcmeColumnCount>;

/// Digits only, at most `max_digits` of them: the common form of counts and seconds, read
/// without a floating-point parse.
bool plain_digits(std::string_view t, std::size_t max_digits, std::int64_t& value) {
  if (t.empty() || t.size() > max_digits) return false;
  std::int64_t v = 0;
  for (const char c : t) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  value = v;
  return true;
}

class RowParser {
 public:
  RowParser(const std::string& file, unsigned line, const Cells& cells, TimestampParser& times)
      : file_{file}, line_{line}, cells_{cells}, times_{times} {}

  std::string_view text(AcmeColumn c) const { return cells_[c]; }

  [[noreturn]] void fail(AcmeColumn c, std::string_view expected) const {
    throw BadField{
        input_error(place(file_, line_), fmt::format("column '{}'", kAcmeColumns[c].name), expected, text(c)).what()};
  }

  std::string_view nonempty(AcmeColumn c) const {
    if (text(c).empty()) fail(c, "a non-empty value");
    return text(c);
  }

  int count(AcmeColumn c) const {
    const std::string_view t = text(c);
    std::int64_t whole = 0;
    if (plain_digits(t, 9, whole)) return static_cast<int>(whole);
    // Integral counts are sometimes written as floats ("8.0") by pandas; accept whole values.
    const auto value = number(t);
    if (!value || *value < 0 || *value != std::floor(*value) || *value > std::numeric_limits<int>::max()) {
      fail(c, "a whole number >= 0");
    }
    return static_cast<int>(*value);
  }

  /// A duration in seconds (integer or decimal) >= 0; empty gives nullopt when allowed.
  std::optional<Duration> seconds_field(AcmeColumn c, bool allow_empty) const {
    const std::string_view t = text(c);
    if (t.empty() && allow_empty) return std::nullopt;
    std::int64_t whole = 0;
    if (plain_digits(t, 12, whole) && seconds(whole) <= kMaxSpan) return Duration{whole * 1000};
    const auto value = number(t);
    if (!value || *value < 0 || !std::isfinite(*value) || *value > to_seconds(kMaxSpan)) {
      fail(c, fmt::format("a number of seconds in [0, {:.0f}] (ten years)", to_seconds(kMaxSpan)));
    }
    return Duration{static_cast<std::int64_t>(std::llround(*value * 1000.0))};
  }

  /// A timestamp; empty gives nullopt when allowed.
  std::optional<Timestamp> time(AcmeColumn c, bool allow_empty) const {
    const std::string_view t = text(c);
    if (t.empty() && allow_empty) return std::nullopt;
    auto ts = times_.parse(t);
    if (!ts) fail(c, "a time like '2023-03-01 00:18:22+08:00'");
    return ts;
  }

  /// The cell's number, or nullopt if it is blank; anything else is an error.
  std::optional<double> optional_number(AcmeColumn c) const {
    const std::string_view t = text(c);
    if (t.empty()) return std::nullopt;
    std::int64_t whole = 0;
    if (plain_digits(t, 18, whole)) return static_cast<double>(whole);
    const auto value = number(t);
    if (!value || !std::isfinite(*value)) fail(c, "a number or nothing");
    return value;
  }

 private:
  static std::optional<double> number(std::string_view t) {
    if (t.empty()) return std::nullopt;
    double value = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
    if (ec != std::errc{} || end != t.data() + t.size()) return std::nullopt;
    return value;
  }

  const std::string& file_;
  unsigned line_;
  const Cells& cells_;
  TimestampParser& times_;
};

/// User names to ids in order of first appearance, looked up without building a string.
struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

/// The message of a row the CSV layer could not split as the header says.
std::optional<std::string> row_shape_problem(const csv::CsvReader& reader, const csv::HeaderMap& header) {
  const std::string at = fmt::format("{}:{}: ", reader.name(), reader.line());
  switch (reader.problem()) {
    case csv::CsvReader::LineProblem::UnclosedQuote:
      return at + "a quoted cell is never closed (a '\"' opens it and none ends it on this line)";
    case csv::CsvReader::LineProblem::NulByte:
      return at + "a NUL byte (0x00) in the row; a trace is text";
    case csv::CsvReader::LineProblem::None:
      break;
  }
  if (reader.cells().size() < header.cells) return at + "fewer cells than the header has columns";
  if (reader.cells().size() > header.cells) return at + "more cells than the header has columns";
  return std::nullopt;
}

Trace parse(csv::CsvReader& reader, const TraceReadOptions& options) {
  const std::string& file = reader.name();
  if (!reader.next_line()) {
    throw InputError(fmt::format("{}: the file is empty; expected an AcmeTrace header line", file));
  }
  if (reader.problem() == csv::CsvReader::LineProblem::UnclosedQuote) {
    throw InputError(fmt::format("{}:1: cannot read the header: a quoted cell is never closed", file));
  }
  std::array<std::string_view, kAcmeColumnCount> names;
  for (std::size_t c = 0; c < kAcmeColumnCount; ++c) names[c] = kAcmeColumns[c].name;
  const csv::HeaderMap header = csv::map_header(reader.cells(), names);
  if (!header.duplicated.empty()) {
    throw InputError(fmt::format("{}:1: cannot read the header: column '{}' appears twice", file, header.duplicated));
  }
  std::vector<std::string> missing;
  for (const AcmeColumnInfo& info : kAcmeColumns) {
    if (info.required && !header.has(info.column)) missing.emplace_back(info.name);
  }
  if (!missing.empty()) {
    const std::string want =
        acme_column_list(TraceSchema::Kalos, ',', [](const AcmeColumnInfo& info) { return info.required; });
    throw InputError(fmt::format("{}:1: header lacks column(s) {}; an AcmeTrace header has {}", file,
                                 fmt::join(missing, ", "), want));
  }
  const auto present = [&header](AcmeColumn c) { return header.has(c); };

  Trace trace;
  trace.path = file;
  trace.schema = present(kMemPerPod) ? TraceSchema::Kalos : TraceSchema::Seren;
  std::unordered_map<std::string, UserId, StringHash, std::equal_to<>> user_ids;
  // Unix times beside the specs until the epoch is known (INT64_MIN: no start).
  std::vector<std::int64_t> submit_unix;
  std::vector<std::int64_t> start_unix;
  std::optional<int> offset;
  TimestampParser times;

  Cells cells{};
  while (reader.next_line()) {
    const unsigned line = reader.line();
    ++trace.rows_read;
    if (options.on_rows && trace.rows_read % 65536 == 0) options.on_rows(trace.rows_read);
    try {
      if (auto problem = row_shape_problem(reader, header)) throw BadField{std::move(*problem)};
      const auto row_cells = reader.cells();
      for (std::size_t c = 0; c < kAcmeColumnCount; ++c) {
        cells[c] = header.index[c] >= 0 ? row_cells[static_cast<std::size_t>(header.index[c])] : std::string_view{};
      }
      const RowParser row{file, line, cells, times};

      JobSpec spec;
      spec.source_line = line;
      spec.trace_id = row.nonempty(kJobId);
      const std::string_view user = row.nonempty(kUser);
      spec.demand.nodes = row.count(kNodeNum);
      spec.demand.gpus = row.count(kGpuNum);
      spec.demand.cpus = row.count(kCpuNum);
      if (spec.demand.nodes == 0) {
        // Some CPU jobs record 0 nodes; they run on one. A GPU job on no node is a broken row.
        if (spec.demand.gpus > 0) row.fail(kNodeNum, "a whole number >= 1 for a job with GPUs");
        spec.demand.nodes = 1;
      }
      // Every node of a job runs the same share of its GPUs (one pod or task per node).
      if (spec.demand.gpus % spec.demand.nodes != 0) {
        row.fail(kGpuNum, fmt::format("a multiple of node_num ({})", spec.demand.nodes));
      }
      if (present(kMemPerPod) && !row.text(kMemPerPod).empty()) spec.demand.mem_gib_per_node = row.count(kMemPerPod);
      if (present(kSharedMem)) {
        const auto shared = row.optional_number(kSharedMem);
        spec.demand.shared_mem_gb = shared ? static_cast<float>(*shared) : std::numeric_limits<float>::quiet_NaN();
      }
      const auto type = parse_job_type(row.text(kType));
      if (!type) row.fail(kType, "one of Pretrain, Eval (or Evaluation), SFT, MLLM, Debug, Other");
      spec.type = *type;
      const auto state = parse_final_state(row.text(kState));
      if (!state) row.fail(kState, "one of COMPLETED, CANCELLED, FAILED, TIMEOUT, NODE_FAIL");
      spec.recorded_state = *state;
      const Timestamp submit = *row.time(kSubmit, false);
      const auto start = row.time(kStart, true);
      const auto end = row.time(kEnd, true);
      if (present(kFailTime)) row.time(kFailTime, true);
      if (present(kStopTime)) row.time(kStopTime, true);
      const auto duration = row.seconds_field(kDuration, !start.has_value());
      if (present(kQueue)) row.optional_number(kQueue);
      if (present(kGpuTime)) row.optional_number(kGpuTime);
      if (start && start->unix_seconds < submit.unix_seconds) row.fail(kStart, "a time not before submit_time");
      if (start && end && end->unix_seconds < start->unix_seconds) row.fail(kEnd, "a time not before start_time");
      // A job with no start never ran: whatever duration its row gives, it has no work to replay.
      spec.runtime = start ? duration.value_or(Duration{0}) : Duration{0};

      auto it = user_ids.find(user);
      if (it == user_ids.end()) {
        it = user_ids.emplace(std::string(user), UserId{static_cast<std::uint32_t>(trace.users.size())}).first;
        trace.users.emplace_back(user);
      }
      spec.user = it->second;
      if (!offset) offset = submit.utc_offset_minutes;
      submit_unix.push_back(submit.unix_seconds);
      start_unix.push_back(start ? start->unix_seconds : std::numeric_limits<std::int64_t>::min());
      trace.jobs.push_back(std::move(spec));
    } catch (const BadField& bad) {
      if (!options.skip_bad_rows) throw InputError(bad.message + " (--skip-bad-rows skips such rows)");
      ++trace.rows_skipped;
      if (trace.skipped_messages.size() < Trace::kMaxKeptMessages) trace.skipped_messages.push_back(bad.message);
    }
  }

  // Submission order, file order for equal times: the documented order of same-instant
  // arrivals. Traces are usually written in that order already; then nothing moves.
  if (!std::is_sorted(submit_unix.begin(), submit_unix.end())) {
    std::vector<std::uint32_t> order(submit_unix.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::uint32_t>(i);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return submit_unix[a] < submit_unix[b]; });
    std::vector<JobSpec> jobs;
    jobs.reserve(order.size());
    std::vector<std::int64_t> submits(order.size());
    std::vector<std::int64_t> starts(order.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
      jobs.push_back(std::move(trace.jobs[order[i]]));
      submits[i] = submit_unix[order[i]];
      starts[i] = start_unix[order[i]];
    }
    trace.jobs = std::move(jobs);
    submit_unix = std::move(submits);
    start_unix = std::move(starts);
  }
  trace.epoch_unix_seconds = submit_unix.empty() ? 0 : submit_unix.front();
  if (!submit_unix.empty() && seconds(submit_unix.back() - submit_unix.front()) > kMaxSpan) {
    throw InputError(
        fmt::format("{}:{}: submit_time is {:.1f} years after the first submission (line {}); acmesim "
                    "simulates at most ten years",
                    file, trace.jobs.back().source_line,
                    static_cast<double>(submit_unix.back() - submit_unix.front()) / (365.0 * 86400),
                    trace.jobs.front().source_line));
  }
  trace.utc_offset_minutes = offset.value_or(0);
  for (std::size_t i = 0; i < trace.jobs.size(); ++i) {
    JobSpec& spec = trace.jobs[i];
    spec.id = JobId{static_cast<std::uint32_t>(i)};
    spec.submitted = SimTime{seconds(submit_unix[i] - trace.epoch_unix_seconds)};
    if (start_unix[i] != std::numeric_limits<std::int64_t>::min()) {
      spec.recorded_start = SimTime{seconds(start_unix[i] - trace.epoch_unix_seconds)};
    }
  }
  return trace;
}

}  // namespace

Trace read_acme_trace(const std::string& path, const TraceReadOptions& options) {
  csv::CsvReader reader{path, "trace file"};
  // The file's hash (provenance in summary.json) is read and computed on another thread while
  // this one parses: on a 128 MB trace it is about a fifth of the reading phase. A small file is
  // not worth a thread. A pipe can be read only once: it has no hash (summary.json says null).
  std::future<std::string> hash;
  if (reader.large_file()) hash = std::async(std::launch::async, sha256_file_hex, path);
  try {
    Trace trace = parse(reader, options);
    if (reader.rereadable()) trace.sha256 = hash.valid() ? hash.get() : sha256_file_hex(path);
    return trace;
  } catch (const InputError&) {
    reader.check_rest_intact();
    throw;
  }
}

Trace parse_acme_trace(const std::string& name, std::string_view text, const TraceReadOptions& options) {
  csv::CsvReader reader{csv::CsvReader::InMemory{}, name, text};
  Trace trace = parse(reader, options);
  trace.sha256 = sha256_hex(text);
  return trace;
}

}  // namespace acmesim
