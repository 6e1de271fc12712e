#pragma once
/// Reads job traces in the AcmeTrace format [AcmeTrace README]: `trace_seren.csv`
/// (13 columns), `trace_kalos.csv` (17 columns, adds mem_per_pod_GB, shared_mem_per_pod,
/// fail_time, stop_time), acmesim's own `jobs.csv` (Seren columns first, extras ignored), and
/// gzip-compressed copies of any of them (detected by content, not by name).
///
/// The schema is detected from the header; columns may come in any order. Every malformed row
/// is an InputError naming file, line, column, expected form and found text, unless
/// `skip_bad_rows` is set, in which case it is counted and its message kept.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "io/acme_schema.hpp"
#include "sim/model/job.hpp"

namespace acmesim {

std::string_view name(TraceSchema schema);

struct TraceReadOptions {
  bool skip_bad_rows = false;
  /// Called with the rows read so far, every 65,536 rows (for progress on long reads).
  std::function<void(std::uint64_t rows)> on_rows{};
};

struct Trace {
  std::string path;
  TraceSchema schema = TraceSchema::Seren;
  std::int64_t epoch_unix_seconds = 0;  // SimTime 0: the earliest submission
  int utc_offset_minutes = 0;           // of the first row; outputs are written in it
  std::vector<JobSpec> jobs;            // sorted by (submit time, file order); id == index
  std::vector<std::string> users;       // UserId -> name
  std::uint64_t rows_read = 0;
  std::uint64_t rows_skipped = 0;
  std::vector<std::string> skipped_messages;  // the first kMaxKeptMessages
  std::string sha256;  // of the file's bytes as stored (gzip: compressed); text: of the text; a pipe: empty

  static constexpr std::size_t kMaxKeptMessages = 20;
  const std::string& user_name(UserId id) const { return users[id.value()]; }
};

/// Reads a trace file (plain or gzip).
Trace read_acme_trace(const std::string& path, const TraceReadOptions& options = {});

/// Parses trace text held in memory; `name` is used in messages (tests use inline CSV).
Trace parse_acme_trace(const std::string& name, std::string_view text, const TraceReadOptions& options = {});

}  // namespace acmesim
