#include "io/acme_trace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "io/csv_file.hpp"
#include "io/timestamp.hpp"
#include "sim/core/error.hpp"

namespace acmesim {

std::string_view name(TraceSchema schema) { return schema == TraceSchema::Kalos ? "kalos" : "seren"; }

namespace {

using Reader = io::CSVReader<kAcmeColumnCount, io::trim_chars<' ', '\t', '\r'>, io::double_quote_escape<',', '"'>>;

/// One bad field: the message names the column, the expected form and what was found.
struct BadField {
  std::string message;
};

class RowParser {
 public:
  RowParser(const std::string& file, unsigned line, const std::array<const char*, kAcmeColumnCount>& cells)
      : file_{file}, line_{line}, cells_{cells} {}

  std::string_view text(AcmeColumn c) const { return cells_[c] ? std::string_view{cells_[c]} : std::string_view{}; }
  bool present(AcmeColumn c) const { return cells_[c] != nullptr; }

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
    auto ts = parse_timestamp(t);
    if (!ts) fail(c, "a time like '2023-03-01 00:18:22+08:00'");
    return ts;
  }

  void optional_number(AcmeColumn c) const {
    const std::string_view t = text(c);
    if (!t.empty() && !number(t)) fail(c, "a number or nothing");
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
  const std::array<const char*, kAcmeColumnCount>& cells_;
};

struct RawJob {
  JobSpec spec;
  std::int64_t submit_unix;
  std::optional<std::int64_t> start_unix;
};

Trace parse(Reader& reader, const std::string& file, const TraceReadOptions& options) {
  try {
    reader.read_header(io::ignore_extra_column | io::ignore_missing_column, kAcmeColumns[0].name, kAcmeColumns[1].name,
                       kAcmeColumns[2].name, kAcmeColumns[3].name, kAcmeColumns[4].name, kAcmeColumns[5].name,
                       kAcmeColumns[6].name, kAcmeColumns[7].name, kAcmeColumns[8].name, kAcmeColumns[9].name,
                       kAcmeColumns[10].name, kAcmeColumns[11].name, kAcmeColumns[12].name, kAcmeColumns[13].name,
                       kAcmeColumns[14].name, kAcmeColumns[15].name, kAcmeColumns[16].name);
  } catch (const io::error::header_missing&) {
    throw InputError(fmt::format("{}: the file is empty; expected an AcmeTrace header line", file));
  } catch (const io::error::base& e) {
    throw InputError(fmt::format("{}:1: cannot read the header: {}", file, e.what()));
  }
  std::vector<std::string> missing;
  for (const AcmeColumnInfo& info : kAcmeColumns) {
    if (info.required && !reader.has_column(info.name)) missing.emplace_back(info.name);
  }
  if (!missing.empty()) {
    const std::string want =
        acme_column_list(TraceSchema::Kalos, ',', [](const AcmeColumnInfo& info) { return info.required; });
    throw InputError(fmt::format("{}:1: header lacks column(s) {}; an AcmeTrace header has {}", file,
                                 fmt::join(missing, ", "), want));
  }

  Trace trace;
  trace.path = file;
  trace.schema = reader.has_column(kAcmeColumns[kMemPerPod].name) ? TraceSchema::Kalos : TraceSchema::Seren;
  std::unordered_map<std::string, UserId> user_ids;  // interning only; ids follow first appearance
  std::vector<RawJob> raw;
  std::optional<int> offset;

  std::array<const char*, kAcmeColumnCount> cells{};
  for (;;) {
    cells.fill(nullptr);
    unsigned line = 0;
    try {
      const bool more =
          reader.read_row(cells[0], cells[1], cells[2], cells[3], cells[4], cells[5], cells[6], cells[7], cells[8],
                          cells[9], cells[10], cells[11], cells[12], cells[13], cells[14], cells[15], cells[16]);
      if (!more) break;
      line = reader.get_file_line();
      ++trace.rows_read;
      if (options.on_rows && trace.rows_read % 65536 == 0) options.on_rows(trace.rows_read);
      const RowParser row{file, line, cells};

      RawJob job;
      JobSpec& spec = job.spec;
      spec.source_line = line;
      spec.trace_id = std::string(row.nonempty(kJobId));
      const std::string user(row.nonempty(kUser));
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
      if (row.present(kMemPerPod) && !row.text(kMemPerPod).empty())
        spec.demand.mem_gib_per_node = row.count(kMemPerPod);
      if (row.present(kSharedMem)) row.optional_number(kSharedMem);
      const auto type = parse_job_type(row.text(kType));
      if (!type) row.fail(kType, "one of Pretrain, Eval (or Evaluation), SFT, MLLM, Debug, Other");
      spec.type = *type;
      const auto state = parse_final_state(row.text(kState));
      if (!state) row.fail(kState, "one of COMPLETED, CANCELLED, FAILED, TIMEOUT, NODE_FAIL");
      spec.recorded_state = *state;
      const Timestamp submit = *row.time(kSubmit, false);
      const auto start = row.time(kStart, true);
      const auto end = row.time(kEnd, true);
      if (row.present(kFailTime)) row.time(kFailTime, true);
      if (row.present(kStopTime)) row.time(kStopTime, true);
      const auto duration = row.seconds_field(kDuration, !start.has_value());
      if (row.present(kQueue)) row.optional_number(kQueue);
      if (row.present(kGpuTime)) row.optional_number(kGpuTime);
      if (start && start->unix_seconds < submit.unix_seconds) row.fail(kStart, "a time not before submit_time");
      if (start && end && end->unix_seconds < start->unix_seconds) row.fail(kEnd, "a time not before start_time");
      // A job with no start never ran: whatever duration its row gives, it has no work to replay.
      spec.runtime = start ? duration.value_or(Duration{0}) : Duration{0};
      job.submit_unix = submit.unix_seconds;
      if (start) job.start_unix = start->unix_seconds;

      auto [it, added] = user_ids.try_emplace(user, UserId{static_cast<std::uint32_t>(trace.users.size())});
      if (added) trace.users.push_back(user);
      spec.user = it->second;
      if (!offset) offset = submit.utc_offset_minutes;
      raw.push_back(std::move(job));
    } catch (const BadField& bad) {
      if (!options.skip_bad_rows) throw InputError(bad.message + " (--skip-bad-rows skips such rows)");
      ++trace.rows_skipped;
      if (trace.skipped_messages.size() < Trace::kMaxKeptMessages) trace.skipped_messages.push_back(bad.message);
    } catch (const io::error::base& e) {
      // Rows with too few or too many cells, unterminated quotes.
      const std::string message = fmt::format(
          "{}:{}: {}", file, reader.get_file_line(),
          dynamic_cast<const io::error::too_few_columns*>(&e) ? std::string("fewer cells than the header has columns")
          : dynamic_cast<const io::error::too_many_columns*>(&e) ? std::string("more cells than the header has columns")
          : dynamic_cast<const io::error::escaped_string_not_closed*>(&e)
              ? std::string("a quoted cell is never closed (a '\"' opens it and none ends it on this line)")
              : std::string(e.what()));
      if (!options.skip_bad_rows) throw InputError(message + " (--skip-bad-rows skips such rows)");
      ++trace.rows_read;
      ++trace.rows_skipped;
      if (trace.skipped_messages.size() < Trace::kMaxKeptMessages) trace.skipped_messages.push_back(message);
    }
  }

  // Submission order, file order for equal times: the documented order of same-instant arrivals.
  std::stable_sort(raw.begin(), raw.end(),
                   [](const RawJob& a, const RawJob& b) { return a.submit_unix < b.submit_unix; });
  trace.epoch_unix_seconds = raw.empty() ? 0 : raw.front().submit_unix;
  if (!raw.empty() && seconds(raw.back().submit_unix - raw.front().submit_unix) > kMaxSpan) {
    throw InputError(
        fmt::format("{}:{}: submit_time is {:.1f} years after the first submission (line {}); acmesim "
                    "simulates at most ten years",
                    file, raw.back().spec.source_line,
                    static_cast<double>(raw.back().submit_unix - raw.front().submit_unix) / (365.0 * 86400),
                    raw.front().spec.source_line));
  }
  trace.utc_offset_minutes = offset.value_or(0);
  trace.jobs.reserve(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    JobSpec& spec = raw[i].spec;
    spec.id = JobId{static_cast<std::uint32_t>(i)};
    spec.submitted = SimTime{seconds(raw[i].submit_unix - trace.epoch_unix_seconds)};
    if (raw[i].start_unix) spec.recorded_start = SimTime{seconds(*raw[i].start_unix - trace.epoch_unix_seconds)};
    trace.jobs.push_back(std::move(spec));
  }
  return trace;
}

}  // namespace

Trace read_acme_trace(const std::string& path, const TraceReadOptions& options) {
  return csv::read_csv_file<Reader>(path, "trace file", [&](Reader& reader) { return parse(reader, path, options); });
}

Trace parse_acme_trace(const std::string& name, std::string_view text, const TraceReadOptions& options) {
  Reader reader(name, text.data(), text.data() + text.size());
  return parse(reader, name, options);
}

}  // namespace acmesim
