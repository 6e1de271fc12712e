#pragma once
/// The one table of AcmeTrace columns [AcmeTrace README]. The trace reader maps a
/// file's header onto it, and every writer (generated traces, jobs.csv) takes its header and
/// column order from it, so the schemas cannot drift apart:
///   Seren (trace_seren.csv, 13 columns): job_id,user,node_num,gpu_num,cpu_num,type,state,
///     submit_time,start_time,end_time,duration,queue,gpu_time
///   Kalos (trace_kalos.csv, 17 columns): Seren's, with mem_per_pod_GB and shared_mem_per_pod
///     after cpu_num and fail_time and stop_time after end_time.

#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>

#include "sim/model/job.hpp"

namespace acmesim {

enum class TraceSchema : std::uint8_t { Seren, Kalos };

/// Every column of either schema, in file order (Kalos's order; Seren's skips its four).
enum AcmeColumn : std::size_t {
  kJobId,
  kUser,
  kNodeNum,
  kGpuNum,
  kCpuNum,
  kMemPerPod,
  kSharedMem,
  kType,
  kState,
  kSubmit,
  kStart,
  kEnd,
  kFailTime,
  kStopTime,
  kDuration,
  kQueue,
  kGpuTime,
  kAcmeColumnCount
};

struct AcmeColumnInfo {
  AcmeColumn column;
  const char* name;
  bool kalos_only;  // mem_per_pod_GB, shared_mem_per_pod, fail_time, stop_time
  bool required;    // the reader rejects a header without it

  bool in(TraceSchema schema) const { return schema == TraceSchema::Kalos || !kalos_only; }
};

inline constexpr std::array<AcmeColumnInfo, kAcmeColumnCount> kAcmeColumns{{
    {kJobId, "job_id", false, true},
    {kUser, "user", false, true},
    {kNodeNum, "node_num", false, true},
    {kGpuNum, "gpu_num", false, true},
    {kCpuNum, "cpu_num", false, true},
    {kMemPerPod, "mem_per_pod_GB", true, false},
    {kSharedMem, "shared_mem_per_pod", true, false},
    {kType, "type", false, true},
    {kState, "state", false, true},
    {kSubmit, "submit_time", false, true},
    {kStart, "start_time", false, true},
    {kEnd, "end_time", false, true},
    {kFailTime, "fail_time", true, false},
    {kStopTime, "stop_time", true, false},
    {kDuration, "duration", false, true},
    {kQueue, "queue", false, false},
    {kGpuTime, "gpu_time", false, false},
}};

static_assert(
    [] {
      for (std::size_t i = 0; i < kAcmeColumns.size(); ++i) {
        if (kAcmeColumns[i].column != i) return false;
      }
      return true;
    }(),
    "kAcmeColumns lists every column at its AcmeColumn index");

/// The Kalos schema sets `fail_time` on jobs that ended failed (FAILED, TIMEOUT, NODE_FAIL) and
/// `stop_time` on cancelled ones, both at the end [AcmeTrace README]; every writer follows it.
inline bool has_fail_time(FinalState state) { return state != FinalState::Completed && state != FinalState::Cancelled; }
inline bool has_stop_time(FinalState state) { return state == FinalState::Cancelled; }

/// `sep`-joined columns of `schema` for which `keep` holds, in file order.
template <class Keep>
std::string acme_column_list(TraceSchema schema, char sep, Keep keep) {
  std::string out;
  for (const AcmeColumnInfo& info : kAcmeColumns) {
    if (!info.in(schema) || !keep(info)) continue;
    if (!out.empty()) out.push_back(sep);
    out += info.name;
  }
  return out;
}

/// The header line of `schema`, without the newline: "job_id,user,...,gpu_time".
inline std::string acme_header(TraceSchema schema) {
  return acme_column_list(schema, ',', [](const AcmeColumnInfo&) { return true; });
}

/// Appends one row of `schema` to `out` (a std::string or a TextBuffer), no newline:
/// `cell(column, out)` writes each column's text, in the schema's order, comma-separated.
template <class Out, class Cell>
void append_acme_row(Out& out, TraceSchema schema, Cell&& cell) {
  bool first = true;
  for (const AcmeColumnInfo& info : kAcmeColumns) {
    if (!info.in(schema)) continue;
    if (!first) out.push_back(',');
    first = false;
    cell(info.column, out);
  }
}

/// A text cell as CSV (RFC 4180): quoted, with quotes doubled, when it holds a comma, a quote or a
/// line break, or begins or ends with blanks the reader would trim; as is otherwise.
template <class Out>
void append_text_cell(Out& cell, std::string_view text) {
  const bool quote =
      text.find_first_of(",\"\r\n") != std::string_view::npos ||
      (!text.empty() && (text.front() == ' ' || text.front() == '\t' || text.back() == ' ' || text.back() == '\t'));
  if (!quote) {
    cell.append(text.data(), text.data() + text.size());
    return;
  }
  cell.push_back('"');
  for (const char c : text) {
    if (c == '"') cell.push_back('"');
    cell.push_back(c);
  }
  cell.push_back('"');
}

/// The cells that say what a job asked for (job_id, user, node_num, gpu_num, cpu_num,
/// mem_per_pod_GB, type): written the same way by every file that has them. Returns false, and
/// writes nothing, for any other column.
template <class Out>
bool append_request_cell(Out& cell, AcmeColumn column, const JobSpec& job, const std::string& user) {
  const auto put = [&](int value) {
    char text[16];
    cell.append(text, std::to_chars(text, text + sizeof text, value).ptr);
  };
  switch (column) {
    case kJobId:
      append_text_cell(cell, job.trace_id);
      return true;
    case kUser:
      append_text_cell(cell, user);
      return true;
    case kNodeNum:
      put(job.demand.nodes);
      return true;
    case kGpuNum:
      put(job.demand.gpus);
      return true;
    case kCpuNum:
      put(job.demand.cpus);
      return true;
    case kMemPerPod:
      put(job.demand.mem_gib_per_node);
      return true;
    case kType: {
      const std::string_view type = name(job.type);
      cell.append(type.data(), type.data() + type.size());
      return true;
    }
    default:
      return false;
  }
}

}  // namespace acmesim
