#include "io/acme_trace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
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
  const auto at = [&reader] { return fmt::format("{}:{}: ", reader.name(), reader.line()); };
  switch (reader.problem()) {
    case csv::CsvReader::LineProblem::UnclosedQuote:
      return at() + "a quoted cell is never closed (a '\"' opens it and none ends it on this line)";
    case csv::CsvReader::LineProblem::NulByte:
      return at() + "a NUL byte (0x00) in the row; a trace is text";
    case csv::CsvReader::LineProblem::None:
      break;
  }
  if (reader.cells().size() < header.cells) return at() + "fewer cells than the header has columns";
  if (reader.cells().size() > header.cells) return at() + "more cells than the header has columns";
  return std::nullopt;
}

/// The header of a trace: where each column is, and the schema it makes.
struct TraceHeader {
  csv::HeaderMap map;
  TraceSchema schema = TraceSchema::Seren;
  bool has(AcmeColumn c) const { return map.has(c); }
};

TraceHeader read_header(csv::CsvReader& reader) {
  const std::string& file = reader.name();
  if (!reader.next_line()) {
    throw InputError(fmt::format("{}: the file is empty; expected an AcmeTrace header line", file));
  }
  if (reader.problem() == csv::CsvReader::LineProblem::UnclosedQuote) {
    throw InputError(fmt::format("{}:1: cannot read the header: a quoted cell is never closed", file));
  }
  std::array<std::string_view, kAcmeColumnCount> names;
  for (std::size_t c = 0; c < kAcmeColumnCount; ++c) names[c] = kAcmeColumns[c].name;
  TraceHeader header{csv::map_header(reader.cells(), names)};
  if (!header.map.duplicated.empty()) {
    throw InputError(
        fmt::format("{}:1: cannot read the header: column '{}' appears twice", file, header.map.duplicated));
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
  header.schema = header.has(kMemPerPod) ? TraceSchema::Kalos : TraceSchema::Seren;
  return header;
}

/// The rows of a run of lines as parsed, before they are ordered and given ids: users are
/// numbered in order of first appearance in these lines, times are still Unix seconds.
struct ParsedRows {
  std::vector<JobSpec> jobs;
  std::vector<std::string> users;  // UserId -> name
  std::unordered_map<std::string, UserId, StringHash, std::equal_to<>> user_ids;
  std::vector<std::int64_t> submit_unix;
  std::vector<std::int64_t> start_unix;  // INT64_MIN: no start
  std::optional<int> offset;             // of the first row
  std::uint64_t rows_read = 0;
  std::uint64_t rows_skipped = 0;
  std::vector<std::string> skipped_messages;

  void reserve(std::size_t rows) {
    jobs.reserve(rows);
    submit_unix.reserve(rows);
    start_unix.reserve(rows);
  }
};

/// The rows a run of `bytes` bytes probably holds, to reserve room for them at once: AcmeTrace's
/// rows are 110-130 bytes; a file of shorter rows makes the vectors grow as usual.
std::size_t rows_expected(std::uint64_t bytes) {
  return static_cast<std::size_t>(std::min<std::uint64_t>(bytes / 100, std::uint64_t{1} << 28));
}

/// Rows between progress reports (TraceReadOptions::on_rows).
constexpr std::uint64_t kProgressRows = 65536;

/// Parses the reader's lines (after the header) into `into`. `on_rows` is called with the rows
/// read into `into` every kProgressRows rows; a bad row is skipped (`skip_bad_rows`) or an
/// InputError.
template <class OnRow>
void parse_rows(csv::CsvReader& reader, const TraceHeader& header, bool skip_bad_rows, ParsedRows& into,
                OnRow&& on_rows) {
  const std::string& file = reader.name();
  const auto present = [&header](AcmeColumn c) { return header.has(c); };
  TimestampParser times;
  Cells cells{};
  while (reader.next_line()) {
    const unsigned line = reader.line();
    if (++into.rows_read % kProgressRows == 0) on_rows(into.rows_read);
    try {
      if (auto problem = row_shape_problem(reader, header.map)) throw BadField{std::move(*problem)};
      const auto row_cells = reader.cells();
      for (std::size_t c = 0; c < kAcmeColumnCount; ++c) {
        cells[c] =
            header.map.index[c] >= 0 ? row_cells[static_cast<std::size_t>(header.map.index[c])] : std::string_view{};
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

      auto it = into.user_ids.find(user);
      if (it == into.user_ids.end()) {
        it = into.user_ids.emplace(std::string(user), UserId{static_cast<std::uint32_t>(into.users.size())}).first;
        into.users.emplace_back(user);
      }
      spec.user = it->second;
      if (!into.offset) into.offset = submit.utc_offset_minutes;
      into.submit_unix.push_back(submit.unix_seconds);
      into.start_unix.push_back(start ? start->unix_seconds : std::numeric_limits<std::int64_t>::min());
      into.jobs.push_back(std::move(spec));
    } catch (const BadField& bad) {
      if (!skip_bad_rows) throw InputError(bad.message + " (--skip-bad-rows skips such rows)");
      ++into.rows_skipped;
      if (into.skipped_messages.size() < Trace::kMaxKeptMessages) into.skipped_messages.push_back(bad.message);
    }
  }
}

/// Appends `later`, the rows of the lines after those of `into` (whose first line is line
/// `line_base` + 1 of the file), as if one parse had read both.
void append_rows(ParsedRows& into, ParsedRows&& later, unsigned line_base) {
  std::vector<UserId> user_of(later.users.size(), UserId{0});
  for (std::size_t u = 0; u < later.users.size(); ++u) {
    auto it = into.user_ids.find(later.users[u]);
    if (it == into.user_ids.end()) {
      it = into.user_ids.emplace(later.users[u], UserId{static_cast<std::uint32_t>(into.users.size())}).first;
      into.users.push_back(std::move(later.users[u]));
    }
    user_of[u] = it->second;
  }
  into.reserve(into.jobs.size() + later.jobs.size());
  for (JobSpec& spec : later.jobs) {
    spec.user = user_of[spec.user.value()];
    spec.source_line += line_base;
    into.jobs.push_back(std::move(spec));
  }
  into.submit_unix.insert(into.submit_unix.end(), later.submit_unix.begin(), later.submit_unix.end());
  into.start_unix.insert(into.start_unix.end(), later.start_unix.begin(), later.start_unix.end());
  if (!into.offset) into.offset = later.offset;
  into.rows_read += later.rows_read;
  into.rows_skipped += later.rows_skipped;
  for (std::string& message : later.skipped_messages) {
    if (into.skipped_messages.size() < Trace::kMaxKeptMessages) into.skipped_messages.push_back(std::move(message));
  }
}

/// The trace of parsed rows: in submission order, with ids and times from the first submission.
Trace make_trace(const std::string& file, TraceSchema schema, ParsedRows&& rows) {
  Trace trace;
  trace.path = file;
  trace.schema = schema;
  trace.jobs = std::move(rows.jobs);
  trace.users = std::move(rows.users);
  trace.rows_read = rows.rows_read;
  trace.rows_skipped = rows.rows_skipped;
  trace.skipped_messages = std::move(rows.skipped_messages);
  std::vector<std::int64_t>& submit_unix = rows.submit_unix;
  std::vector<std::int64_t>& start_unix = rows.start_unix;
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
  trace.utc_offset_minutes = rows.offset.value_or(0);
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

Trace parse(csv::CsvReader& reader, const TraceReadOptions& options) {
  const TraceHeader header = read_header(reader);
  ParsedRows rows;
  rows.reserve(rows_expected(reader.file_bytes()));
  parse_rows(reader, header, options.skip_bad_rows, rows, [&options](std::uint64_t n) {
    if (options.on_rows) options.on_rows(n);
  });
  return make_trace(reader.name(), header.schema, std::move(rows));
}

/// A plain file this large is parsed in two parts at once, each on a core.
constexpr std::uint64_t kPartsFromBytes = std::uint64_t{8} << 20;

/// Parses a large plain file in two parts at once: the first half on this thread, the second on
/// another, then appends the second's rows to the first's. The result is the same Trace a
/// single parse makes. nullopt, for the caller to parse the file in one pass, if the file has
/// no line start in its second half, or if the second half holds a row it cannot take as it is
/// (a bad row, skipped or not, or a line too long): then every message and skipped row is what
/// the single parse gives (a slow path for a broken file only).
std::optional<Trace> parse_in_two_parts(const std::string& path, std::uint64_t bytes, const TraceReadOptions& options) {
  const std::uint64_t middle = csv::next_line_start(path, bytes / 2);
  if (middle >= bytes) return std::nullopt;
  csv::CsvReader first{path, "trace file", csv::CsvReader::Part{0, middle}};
  const TraceHeader header = read_header(first);
  std::atomic<std::uint64_t> second_rows{0};
  std::future<ParsedRows> second = std::async(std::launch::async, [&] {
    csv::CsvReader reader{path, "trace file", csv::CsvReader::Part{middle, bytes}};
    ParsedRows rows;
    rows.reserve(rows_expected(bytes - middle));
    parse_rows(reader, header, false, rows,
               [&second_rows](std::uint64_t n) { second_rows.store(n, std::memory_order_relaxed); });
    return rows;
  });
  ParsedRows rows;
  rows.reserve(rows_expected(bytes));
  try {
    parse_rows(first, header, options.skip_bad_rows, rows, [&](std::uint64_t n) {
      if (options.on_rows) options.on_rows(n + second_rows.load(std::memory_order_relaxed));
    });
  } catch (...) {
    second.wait();  // its references must outlive it; its result does not matter now
    throw;
  }
  ParsedRows later;
  try {
    later = second.get();
  } catch (const InputError&) {
    return std::nullopt;  // the caller parses the file in one pass
  }
  append_rows(rows, std::move(later), first.line());
  return make_trace(path, header.schema, std::move(rows));
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
    std::optional<Trace> trace;
    if (!reader.compressed() && reader.file_bytes() >= kPartsFromBytes) {
      trace = parse_in_two_parts(path, reader.file_bytes(), options);
    }
    if (!trace) trace = parse(reader, options);
    if (reader.rereadable()) trace->sha256 = hash.valid() ? hash.get() : sha256_file_hex(path);
    return std::move(*trace);
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
