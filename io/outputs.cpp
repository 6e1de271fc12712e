#include "io/outputs.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "io/acme_schema.hpp"
#include "io/output_file.hpp"
#include "io/sha256.hpp"
#include "io/text_buffer.hpp"
#include "io/timestamp.hpp"
#include "sim/core/error.hpp"
#include "sim/metrics/job_record.hpp"

#ifndef ACMESIM_VERSION
#define ACMESIM_VERSION "0.0.0"
#endif

namespace acmesim {

namespace {

using Json = nlohmann::ordered_json;

/// The trace's hash, or null when it was read from a pipe (which cannot be read twice).
Json sha256_or_null(const Trace& trace) { return trace.sha256.empty() ? Json(nullptr) : Json(trace.sha256); }

/// A CSV output: formatted into a buffer, written through OutputFile (checked, removed if incomplete).
class File {
 public:
  explicit File(const std::filesystem::path& path) : file_{path.string()} {}
  void write(const TextBuffer& buffer) { file_.write(buffer.data(), buffer.size()); }
  void close() { file_.close(); }

 private:
  OutputFile file_;
};

constexpr std::string_view kExtrasHeader =
    ",jct,outcome,attempts,preemptions,failures,lost_gpu_time,overhead_gpu_time,failure_reason,"
    "failure_log,checkpoint_gpu_time,recovery_wait,manual_interventions,ettr,switch_groups,wait,slowdown,"
    "submit_s,start_s,end_s";

/// One row of jobs.csv, no newline: the trace's own schema first (Kalos's four columns survive a
/// Kalos run), then the extras. A job that never ran keeps its recorded state and has no start,
/// end, duration, queue or GPU time.
void append_job_row(TextBuffer& out, const Trace& trace, const JobSpec& spec, const JobStatus& s, bool extras,
                    TimestampWriter& stamps) {
  const JobRecord r = job_record(spec, s);
  append_acme_row(out, trace.schema, [&](AcmeColumn column, TextBuffer& cell) {
    if (append_request_cell(cell, column, spec, trace.user_name(spec.user))) return;
    switch (column) {
      case kSharedMem:
        if (!std::isnan(spec.demand.shared_mem_gb)) cell.append_shortest(spec.demand.shared_mem_gb);
        break;
      case kState:
        cell.append(name(r.state));
        break;
      case kSubmit:
        stamps.append(cell, r.submit_ms);
        break;
      case kStart:
        if (r.ran()) stamps.append(cell, r.start_ms);
        break;
      case kEnd:
        if (r.ran()) stamps.append(cell, r.end_ms);
        break;
      case kFailTime:
        if (r.ran() && has_fail_time(r.state)) stamps.append(cell, r.end_ms);
        break;
      case kStopTime:
        if (r.ran() && has_stop_time(r.state)) stamps.append(cell, r.end_ms);
        break;
      case kDuration:
        if (r.ran()) cell.append_seconds(r.duration_ms);
        break;
      case kQueue:
        if (r.ran()) cell.append_seconds(r.queue_ms);
        break;
      case kGpuTime:
        if (r.ran()) cell.append_seconds_float(r.gpu_time_ms);
        break;
      default:
        break;
    }
  });
  if (!extras) return;
  const auto next = [&out] { out.push_back(','); };
  if (!r.ran()) {
    out.append(r.outcome == RunOutcome::Unschedulable ? ",,unschedulable,0,0,0,0,0,,,0,0,0,,0,,,"
                                                      : ",,unstarted,0,0,0,0,0,,,0,0,0,,0,,,");
    out.append_seconds_float(r.submit_ms);
    out.append(",,");
    return;
  }
  next();
  out.append_seconds(r.jct_ms);
  out.append(",ran,");
  out.append_integer(r.attempts);
  next();
  out.append_integer(r.preemptions);
  next();
  out.append_integer(r.failures);
  next();
  out.append_seconds(r.lost_gpu_time_ms);
  next();
  out.append_seconds(r.overhead_gpu_time_ms);
  next();
  if (r.failure_reason != FailureReason::None) out.append(name(r.failure_reason));
  next();
  out.append(failure_log_cell(s));
  next();
  out.append_seconds(r.checkpoint_gpu_time_ms);
  next();
  out.append_seconds(r.recovery_wait_ms);
  next();
  out.append_integer(r.manual_interventions);
  next();
  out.append_fixed(r.ettr, 4);
  next();
  out.append_integer(r.switch_groups);
  next();
  out.append_seconds(r.wait_ms);
  next();
  out.append_fixed(r.slowdown, 4);
  next();
  out.append_seconds_float(r.submit_ms);
  next();
  out.append_seconds_float(r.start_ms);
  next();
  out.append_seconds_float(r.end_ms);
}

}  // namespace

JobsCsvWriter::JobsCsvWriter(std::string path, const Trace& trace, JobsCsvColumns columns)
    : path_{std::move(path)},
      trace_{trace},
      extras_{columns == JobsCsvColumns::WithExtras},
      blocks_{(trace.jobs.size() + kRowsPerBlock - 1) / kRowsPerBlock},
      formatted_(blocks_),
      done_(blocks_),
      copied_(blocks_) {}

JobsCsvWriter::JobsCsvWriter(std::string path, const Trace& trace, const RunResult& result, JobsCsvColumns columns)
    : JobsCsvWriter{std::move(path), trace, columns} {
  copying_ = false;
  result_ = &result;
}

JobsCsvWriter::~JobsCsvWriter() = default;

std::size_t JobsCsvWriter::rows_in(std::size_t block) const {
  return std::min(kRowsPerBlock, trace_.jobs.size() - block * kRowsPerBlock);
}

void JobsCsvWriter::settled(std::size_t first, std::span<const JobStatus> statuses) {
  if (!copying_) return;
  if (first != filling_block_ * kRowsPerBlock + filling_.size()) {
    copying_ = false;  // not the contract: leave every row not yet handed over to finish()
    return;
  }
  while (!statuses.empty() && filling_block_ < blocks_) {
    const std::size_t rows = rows_in(filling_block_);
    if (filling_.empty()) filling_.reserve(rows);
    const std::span<const JobStatus> part = statuses.first(std::min(rows - filling_.size(), statuses.size()));
    filling_.insert(filling_.end(), part.begin(), part.end());
    statuses = statuses.subspan(part.size());
    if (filling_.size() < rows) return;
    auto block = std::make_unique<std::vector<JobStatus>>(std::move(filling_));
    filling_ = {};
    {
      const std::lock_guard lock{mutex_};
      // The writer is behind (a slow disk): stop copying rather than hold every status twice.
      if (copied_blocks_ >= kMaxCopiedBlocks || abandoned_) {
        copying_ = false;
        return;
      }
      copied_[filling_block_] = std::move(block);
      ++copied_blocks_;
    }
    changed_.notify_all();
    ++filling_block_;
  }
}

void JobsCsvWriter::finish(const RunResult& result) {
  {
    const std::lock_guard lock{mutex_};
    result_ = &result;
    rows_before_finish_ = rows_written_;
  }
  changed_.notify_all();
}

std::size_t JobsCsvWriter::rows_written() const {
  const std::lock_guard lock{mutex_};
  return rows_written_;
}

void JobsCsvWriter::abandon() noexcept {
  {
    const std::lock_guard lock{mutex_};
    abandoned_ = true;
  }
  changed_.notify_all();
}

bool JobsCsvWriter::wait_until_formattable(std::size_t block) {
  std::unique_lock lock{mutex_};
  changed_.wait(lock, [&] { return abandoned_ || result_ != nullptr || (block < blocks_ && copied_[block]); });
  return !abandoned_;
}

bool JobsCsvWriter::format_next_block() {
  const std::size_t block = next_block_.fetch_add(1, std::memory_order_relaxed);
  if (block >= blocks_) return false;
  // Done is set even when formatting throws (out of memory): the writer must never wait for a
  // block that will not come. It finds no text there and fails too.
  const auto publish = [this, block] {
    done_[block].store(true, std::memory_order_release);
    done_[block].notify_one();
  };
  try {
    std::unique_ptr<std::vector<JobStatus>> copied;
    const RunResult* result = nullptr;
    {
      const std::lock_guard lock{mutex_};
      copied = std::move(copied_[block]);
      if (copied) --copied_blocks_;
      result = result_;
    }
    const std::size_t first = block * kRowsPerBlock;
    const std::size_t rows = rows_in(block);
    // A block is taken only once formattable: its statuses copied during the run, or the run over
    // (help() before finish() breaks that).
    if (!copied && result == nullptr) throw std::logic_error("jobs.csv: a block was taken before its rows were known");
    const JobStatus* statuses = copied ? copied->data() : result->jobs.data() + first;
    auto out = std::make_unique<TextBuffer>(rows * 256);
    TimestampWriter stamps{trace_.epoch_unix_seconds, trace_.utc_offset_minutes};
    for (std::size_t i = 0; i < rows; ++i) {
      append_job_row(*out, trace_, trace_.jobs[first + i], statuses[i], extras_, stamps);
      out->push_back('\n');
    }
    formatted_[block] = std::move(out);
  } catch (...) {
    publish();
    throw;
  }
  publish();
  return true;
}

void JobsCsvWriter::help() {
  while (format_next_block()) {
  }
}

void JobsCsvWriter::write(const std::function<void(std::size_t rows)>& on_rows) {
  const auto stop_if_abandoned = [this](std::size_t block) {
    if (!wait_until_formattable(block))
      throw std::runtime_error("jobs.csv: the run failed before its rows were complete");
  };
  File file{path_};
  TextBuffer header;
  header.append(acme_header(trace_.schema));
  if (extras_) header.append(kExtrasHeader);
  header.push_back('\n');
  file.write(header);
  std::size_t written = 0;  // blocks
  bool more = true;
  bool finished = false;  // finish() was called (seen under mutex_)
  while (written < blocks_) {
    // Write what is formatted, in order; then take the next block once it can be formatted, or
    // wait for the one a helper is formatting when none is left to take.
    if (done_[written].load(std::memory_order_acquire)) {
      if (!formatted_[written]) throw std::runtime_error("jobs.csv: a block of rows could not be formatted");
      file.write(*formatted_[written]);
      formatted_[written].reset();
      ++written;
      const std::size_t rows = std::min(written * kRowsPerBlock, trace_.jobs.size());
      {
        const std::lock_guard lock{mutex_};
        rows_written_ = rows;
        finished = result_ != nullptr;
      }
      if (finished && on_rows) on_rows(rows);
    } else if (more) {
      stop_if_abandoned(next_block_.load(std::memory_order_relaxed));
      more = format_next_block();
    } else {
      done_[written].wait(false, std::memory_order_acquire);
    }
  }
  // Into place only once the run is over: the caller moves the previous outputs aside then.
  stop_if_abandoned(blocks_);
  file.close();
}

void write_jobs_csv(const std::string& path, const Trace& trace, const RunResult& result, JobsCsvColumns columns,
                    const std::function<void(std::size_t rows)>& on_rows) {
  JobsCsvWriter{path, trace, result, columns}.write(on_rows);
}

void write_timeline_csv(const std::string& path, const Trace& trace, const RunResult& result, int total_gpus) {
  File file{path};
  TextBuffer out;
  out.append(
      "time,elapsed_s,allocated_gpus,gpu_allocation,allocated_cpus,running_jobs,queued_jobs,queued_gpus,down_nodes");
  for (JobType type : kJobTypes) out.append(fmt::format(",queued_jobs_{}", name(type)));
  for (JobType type : kJobTypes) out.append(fmt::format(",queued_gpus_{}", name(type)));
  out.push_back('\n');
  TimestampWriter stamps{trace.epoch_unix_seconds, trace.utc_offset_minutes};
  for (const TimelineSample& s : result.timeline) {
    // Whole seconds of the sample's instant, as the trace's own times are written.
    const std::int64_t at_ms = s.at.time_since_epoch().count();
    stamps.append(out, at_ms - at_ms % 1000);
    out.push_back(',');
    out.append_seconds((s.at - result.first_submit).count());
    out.push_back(',');
    out.append_integer(s.allocated_gpus);
    out.push_back(',');
    out.append_fixed(total_gpus > 0 ? static_cast<double>(s.allocated_gpus) / total_gpus : 0.0, 4);
    out.push_back(',');
    out.append_integer(s.allocated_cpus);
    out.push_back(',');
    out.append_integer(s.running);
    out.push_back(',');
    out.append_integer(s.queued);
    out.push_back(',');
    out.append_integer(s.queued_gpus());
    out.push_back(',');
    out.append_integer(s.down_nodes);
    for (const QueuedOfType& q : s.queued_by_type) {
      out.push_back(',');
      out.append_integer(q.jobs);
    }
    for (const QueuedOfType& q : s.queued_by_type) {
      out.push_back(',');
      out.append_integer(q.gpus);
    }
    out.push_back('\n');
    if (out.size() > (1U << 20)) {
      file.write(out);
      out.clear();
    }
  }
  file.write(out);
  file.close();
}

namespace {

double round_to(double value, double unit) { return std::round(value / unit) * unit; }

Json group_json(const GroupStats& g) {
  Json j;
  j["jobs"] = g.jobs;
  j["gpu_jobs"] = g.gpu_jobs;
  const auto q = [](const Quantiles& x) {
    return Json{{"mean", round_to(x.mean, 1e-3)},
                {"median", round_to(x.median, 1e-3)},
                {"p95", round_to(x.p95, 1e-3)},
                {"p99", round_to(x.p99, 1e-3)}};
  };
  j["queue_s"] = q(g.queue);
  j["jct_s"] = q(g.jct);
  j["wait_s"] = q(g.wait);
  j["slowdown"] = q(g.slowdown);
  Json hours;
  hours["total"] = round_to(static_cast<double>(g.gpu_ms()) / 3.6e6, 1e-3);
  for (FinalState state : kFinalStates) {
    hours[std::string(name(state))] =
        round_to(static_cast<double>(g.gpu_ms_by_state[static_cast<std::size_t>(state)]) / 3.6e6, 1e-3);
  }
  j["gpu_hours"] = hours;
  j["interruptions"] = {{"preemptions", g.preemptions},
                        {"failures", g.failures},
                        {"lost_gpu_hours", round_to(static_cast<double>(g.lost_gpu_ms) / 3.6e6, 1e-3)},
                        {"overhead_gpu_hours", round_to(static_cast<double>(g.overhead_gpu_ms) / 3.6e6, 1e-3)},
                        {"checkpoint_gpu_hours", round_to(static_cast<double>(g.checkpoint_gpu_ms) / 3.6e6, 1e-3)},
                        {"manual_interventions", g.manual_interventions},
                        {"jobs_with_failures", g.jobs_with_failures},
                        {"jobs_killed", g.killed},
                        {"killed_gpu_hours", round_to(static_cast<double>(g.killed_gpu_ms) / 3.6e6, 1e-3)}};
  j["ettr"] = round_to(g.ettr(), 1e-6);
  return j;
}

double hours(std::int64_t ms) { return round_to(static_cast<double>(ms) / 3.6e6, 1e-3); }

Json breakdown_json(const FailureBreakdown& b) {
  const double n = static_cast<double>(b.total_count());
  const double g = static_cast<double>(b.total_gpu_ms());
  const auto share = [](double part, double whole) { return whole > 0 ? round_to(part / whole, 1e-6) : 0.0; };
  Json categories = Json::object();
  for (std::size_t ci = 0; ci < kFailureCategoryCount; ++ci) {
    const auto c = static_cast<FailureCategory>(ci);
    if (b.category_count(c) == 0) continue;
    categories[std::string(name(c))] = {{"failures", b.category_count(c)},
                                        {"share_of_failures", share(static_cast<double>(b.category_count(c)), n)},
                                        {"failed_gpu_hours", hours(b.category_gpu_ms(c))},
                                        {"share_of_gpu_time", share(static_cast<double>(b.category_gpu_ms(c)), g)}};
  }
  Json reasons = Json::object();
  for (std::size_t r = 0; r < kFailureReasonCount; ++r) {
    if (b.count[r] == 0) continue;
    reasons[std::string(name(static_cast<FailureReason>(r)))] = {
        {"category", name(category(static_cast<FailureReason>(r)))},
        {"failures", b.count[r]},
        {"share_of_failures", share(static_cast<double>(b.count[r]), n)},
        {"failed_gpu_hours", hours(b.gpu_ms[r])},
        {"share_of_gpu_time", share(static_cast<double>(b.gpu_ms[r]), g)}};
  }
  // failed_gpu_hours: GPU time of the attempts a failure ended (Table 3's basis), not gpu_hours_lost.
  return {{"failures", b.total_count()},
          {"failed_gpu_hours", hours(b.total_gpu_ms())},
          {"categories", categories},
          {"reasons", reasons}};
}

Json failures_json(const Scenario& scenario, const RunResult& result, const RunSummary& summary) {
  Json j;
  j["outcomes"] = scenario.outcomes.name();
  j["failures"] = scenario.failures.name();
  j["recovery"] = scenario.recovery.name();
  if (!result.outcome_note.empty()) j["outcomes_note"] = result.outcome_note;
  Json by_reason = Json::object();
  for (std::size_t r = 0; r < kFailureReasonCount; ++r) {
    if (result.node_failures_by_reason[r] > 0) {
      by_reason[std::string(name(static_cast<FailureReason>(r)))] = result.node_failures_by_reason[r];
    }
  }
  j["node_failures"] = {{"total", result.node_failures},
                        {"while_down", result.node_failures_while_down},
                        {"repairs", result.node_repairs},
                        {"by_reason", by_reason}};
  j["node_availability"] = round_to(summary.failures.node_availability, 1e-6);
  j["down_node_hours"] = hours(result.down_node_ms);
  j["jobs_killed"] = result.jobs_killed;
  j["killed_gpu_hours"] = hours(summary.overall.killed_gpu_ms);
  const FailureSummary& f = summary.failures;
  j["rates_per_1000_node_days"] = {
      {"configured",
       {{"hardware", round_to(1000.0 * result.configured_rates.hardware_per_node_day, 1e-6)},
        {"transient", round_to(1000.0 * result.configured_rates.transient_per_node_day, 1e-6)}}},
      {"observed",
       {{"hardware", round_to(f.hardware_per_1000_node_days, 1e-6)},
        {"transient", round_to(f.transient_per_1000_node_days, 1e-6)}}},
      {"node_days", round_to(f.node_days, 1e-3)}};
  Json buckets = Json::array();
  for (const SizeBucketFailures& b : f.by_size) {
    if (b.jobs == 0) continue;
    buckets.push_back(
        {{"gpus", b.max_gpus > 0 ? fmt::format("{}-{}", b.min_gpus, b.max_gpus) : fmt::format("{}+", b.min_gpus)},
         {"jobs", b.jobs},
         {"failures", b.failures},
         {"running_hours", round_to(static_cast<double>(b.running_ms) / 3.6e6, 1e-3)},
         {"mtbi_hours", round_to(b.mtbi_hours(), 1e-3)}});
  }
  j["mtbi_by_gpus"] = buckets;
  j["manual_interventions"] = summary.overall.manual_interventions;
  const GroupStats& pre = summary.by_type[static_cast<std::size_t>(JobType::Pretrain)];
  j["pretrain"] = {{"jobs", pre.jobs},
                   {"ettr", round_to(pre.ettr(), 1e-6)},
                   {"failures", pre.failures},
                   {"jobs_killed", pre.killed},
                   {"killed_gpu_hours", hours(pre.killed_gpu_ms)},
                   {"manual_interventions", pre.manual_interventions},
                   {"lost_gpu_hours", hours(pre.lost_gpu_ms + pre.overhead_gpu_ms)},
                   {"recovery_wait_gpu_hours", hours(pre.recovery_wait_gpu_ms)},
                   {"checkpoint_gpu_hours", hours(pre.checkpoint_gpu_ms)}};
  Json lost = Json::object();
  std::int64_t lost_total = 0;
  for (std::size_t r = 0; r < kFailureReasonCount; ++r) {
    lost_total += result.lost_gpu_ms_by_reason[r];
    if (result.lost_gpu_ms_by_reason[r] > 0) {
      lost[std::string(name(static_cast<FailureReason>(r)))] = hours(result.lost_gpu_ms_by_reason[r]);
    }
  }
  j["gpu_hours_lost"] = {{"total", hours(lost_total)}, {"by_cause", lost}};
  j["checkpoint_gpu_hours"] = hours(summary.overall.checkpoint_gpu_ms);
  j["breakdown"] = breakdown_json(summary.failures.breakdown);
  return j;
}

/// A YAML tree as JSON: whole numbers and numbers as numbers, true/false as booleans, ~ as null.
Json json_from_yaml(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Sequence: {
      Json out = Json::array();
      for (const YAML::Node& item : node) out.push_back(json_from_yaml(item));
      return out;
    }
    case YAML::NodeType::Map: {
      Json out = Json::object();
      for (const auto& entry : node) out[entry.first.Scalar()] = json_from_yaml(entry.second);
      return out;
    }
    case YAML::NodeType::Scalar: {
      const std::string& text = node.Scalar();
      if (node.Tag() == "!") return text;  // quoted in the YAML: a string whatever it looks like
      if (text == "true" || text == "false") return text == "true";
      std::int64_t whole = 0;
      const char* end = text.data() + text.size();
      if (auto [p, ec] = std::from_chars(text.data(), end, whole); ec == std::errc{} && p == end) return whole;
      double number = 0;
      if (auto [p, ec] = std::from_chars(text.data(), end, number);
          ec == std::errc{} && p == end && std::isfinite(number)) {
        return number;
      }
      return text;
    }
    default:
      return nullptr;
  }
}

Json summary_tree(const Provenance& provenance, const Scenario& scenario, const Trace& trace, const RunResult& result,
                  const RunSummary& summary) {
  Json j;
  j["acmesim_version"] = acmesim_version();
  j["complete"] = true;
  j["provenance"] = {{"acmesim_version", acmesim_version()},    {"git_revision", acmesim_git_revision_text()},
                     {"command_line", provenance.command_line}, {"overrides", provenance.overrides},
                     {"scenario_id", provenance.scenario_id()}, {"scenario_source", scenario.source}};
  j["scenario"] = json_from_yaml(YAML::Load(provenance.scenario_yaml));
  j["trace"] = {{"path", trace.path},
                {"schema", name(trace.schema)},
                {"sha256", sha256_or_null(trace)},
                {"rows_read", trace.rows_read},
                {"rows_skipped", trace.rows_skipped},
                {"skipped_examples", trace.skipped_messages}};
  j["fingerprint"] = result.fingerprint;
  j["events"] = result.events;
  std::uint64_t ran = 0;
  for (const JobStatus& s : result.jobs) ran += s.phase == JobPhase::Ended ? 1 : 0;
  j["jobs"] = {{"total", trace.jobs.size()},
               {"ran", ran},
               {"unschedulable", result.unschedulable.size()},
               {"unstarted", result.unstarted}};
  j["makespan_s"] = summary.makespan_s;
  j["timeline"] = {{"interval_s", to_seconds(scenario.timeline_interval)},
                   {"samples", result.timeline.size()},
                   {"truncated", result.timeline_truncated}};
  j["gpu_allocation_ratio"] = round_to(summary.gpu_allocation_ratio, 1e-6);
  if (scenario.cluster.nodes_per_switch > 0) {
    const TopologyStats& t = summary.topology;
    j["topology"] = {
        {"multi_node_jobs", t.multi_node_jobs},
        {"within_one_switch_group",
         t.multi_node_jobs
             ? round_to(static_cast<double>(t.within_one_group) / static_cast<double>(t.multi_node_jobs), 1e-6)
             : 0.0},
        {"mean_switch_groups",
         t.multi_node_jobs
             ? round_to(static_cast<double>(t.groups_spanned) / static_cast<double>(t.multi_node_jobs), 1e-6)
             : 0.0}};
  }
  j["overall"] = group_json(summary.overall);
  Json by_type;
  for (JobType type : kJobTypes) {
    const GroupStats& g = summary.by_type[static_cast<std::size_t>(type)];
    if (g.jobs > 0) by_type[std::string(name(type))] = group_json(g);
  }
  j["by_type"] = by_type;
  j["failures"] = failures_json(scenario, result, summary);
  Json unschedulable = Json::array();
  for (std::size_t i = 0; i < result.unschedulable.size() && i < 20; ++i) {
    const JobSpec& spec = trace.jobs[result.unschedulable[i].job.value()];
    unschedulable.push_back({{"job_id", std::string_view(spec.trace_id)},
                             {"line", spec.source_line},
                             {"reason", result.unschedulable[i].reason}});
  }
  j["unschedulable_examples"] = unschedulable;
  Json conflicts = Json::array();
  for (const Conflict& c : result.first_conflicts) {
    const JobSpec& spec = trace.jobs[c.job.value()];
    const JobStatus& s = result.jobs[c.job.value()];
    conflicts.push_back(
        {{"job_id", std::string_view(spec.trace_id)},
         {"line", spec.source_line},
         {"wanted_start", format_timestamp(trace.epoch_unix_seconds + c.wanted.time_since_epoch().count() / 1000,
                                           trace.utc_offset_minutes)},
         {"delay_s", s.started ? to_seconds(*s.started - c.wanted) : -1.0}});
  }
  j["conflicts"] = {{"count", result.conflicts}, {"examples", conflicts}};
  return j;
}

}  // namespace

const char* acmesim_git_revision();  // generated at build time (cmake/git_revision.cmake)

std::string acmesim_version() { return ACMESIM_VERSION; }
std::string acmesim_git_revision_text() { return acmesim_git_revision(); }

// Of the scenario's values only: comments, and whether a default was written out, do not count.
std::string Provenance::scenario_id() const {
  return sha256_hex(json_from_yaml(YAML::Load(scenario_yaml)).dump(-1, ' ', false, Json::error_handler_t::replace))
      .substr(0, 12);
}

std::string shell_command_line(int argc, const char* const* argv) {
  std::string out;
  for (int i = 0; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (i > 0) out += ' ';
    const bool plain = !arg.empty() && arg.find_first_not_of(
                                           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                           "0123456789-_./=:,+@%") == std::string_view::npos;
    if (plain) {
      out += arg;
      continue;
    }
    out += '\'';
    for (const char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    out += '\'';
  }
  return out;
}

std::string provenance_json(const std::string& command_line, const std::vector<std::string>& overrides,
                            const std::vector<const Trace*>& traces) {
  Json list = Json::array();
  for (const Trace* t : traces) {
    list.push_back(
        {{"path", t->path}, {"schema", name(t->schema)}, {"rows_read", t->rows_read}, {"sha256", sha256_or_null(*t)}});
  }
  const Json j{{"acmesim_version", acmesim_version()},
               {"git_revision", acmesim_git_revision_text()},
               {"command_line", command_line},
               {"overrides", overrides},
               {"traces", list}};
  return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string summary_json(const Provenance& provenance, const Scenario& scenario, const Trace& trace,
                         const RunResult& result, const RunSummary& summary) {
  // Invalid UTF-8 (a trace path, a job id or a skipped row in another encoding) becomes U+FFFD
  // in summary.json, never an abort halfway through the outputs.
  return summary_tree(provenance, scenario, trace, result, summary)
             .dump(2, ' ', false, Json::error_handler_t::replace) +
         "\n";
}

std::string recorded_scenario_id(const std::string& dir) {
  const std::filesystem::path path = std::filesystem::path(dir) / "summary.json";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return "";
  std::ifstream in{path};
  const Json j = Json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.contains("provenance") || !j["provenance"].contains("scenario_id") ||
      !j["provenance"]["scenario_id"].is_string()) {
    return "?";
  }
  return j["provenance"]["scenario_id"].get<std::string>();
}

void create_output_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError(fmt::format("{}: cannot create the output directory ({})", dir, ec.message()));
}

void prepare_outputs(const std::string& dir) {
  namespace fs = std::filesystem;
  create_output_dir(dir);
  std::error_code ec;
  // summary.json is the marker of a complete run: the previous run's is removed before anything
  // else is replaced and the new one is written last, so a run killed in between leaves a folder
  // without a summary.json, never one whose summary describes other files.
  fs::remove(fs::path{dir} / "summary.json", ec);
  if (ec) throw InputError(fmt::format("{}: cannot remove the previous summary.json ({})", dir, ec.message()));
}

PreviousOutputs::PreviousOutputs(const std::string& dir) {
  namespace fs = std::filesystem;
  const std::array<const char*, 2> names{"jobs.csv", "timeline.csv"};
  for (std::size_t i = 0; i < names.size(); ++i) {
    const fs::path from = fs::path{dir} / names[i];
    const fs::path to = hidden_beside(from.string(), ".previous");
    std::error_code ec;
    const bool previous = fs::is_regular_file(from, ec);
    if (!previous && !fs::is_regular_file(to, ec)) continue;  // nothing to move, no copy a killed run left
    // Listed before the rename, so that an interrupt between the two still deletes the copy.
    moved_[i] = to.string();
    listed_[i] = list_for_removal(moved_[i].c_str());
    if (previous) fs::rename(from, to, ec);  // on failure it is replaced by the rename at the end, as before
  }
}

void PreviousOutputs::discard() noexcept {
  for (std::size_t i = 0; i < moved_.size(); ++i) {
    if (moved_[i].empty()) continue;
    std::error_code ec;
    std::filesystem::remove(moved_[i], ec);
    unlist_for_removal(listed_[i]);
    listed_[i] = -1;
    moved_[i].clear();
  }
}

void write_run_files(const std::string& dir, const Scenario& scenario, const Trace& trace, const RunResult& result,
                     const std::function<void(std::size_t rows)>& on_jobs_written, RunOutputs which) {
  const std::filesystem::path base{dir};
  if (which.jobs) {
    write_jobs_csv((base / "jobs.csv").string(), trace, result, JobsCsvColumns::WithExtras, on_jobs_written);
  }
  if (which.timeline) {
    write_timeline_csv((base / "timeline.csv").string(), trace, result,
                       scenario.cluster.gpu_nodes * scenario.cluster.gpus_per_node);
  }
}

void write_summary_file(const std::string& dir, const Provenance& provenance, const Scenario& scenario,
                        const Trace& trace, const RunResult& result, const RunSummary& summary) {
  OutputFile json{(std::filesystem::path{dir} / "summary.json").string()};
  json.write(summary_json(provenance, scenario, trace, result, summary));
  json.close();
}

void write_outputs(const std::string& dir, const Provenance& provenance, const Scenario& scenario, const Trace& trace,
                   const RunResult& result, const RunSummary& summary,
                   const std::function<void(std::size_t rows)>& on_jobs_written, RunOutputs which) {
  prepare_outputs(dir);
  write_run_files(dir, scenario, trace, result, on_jobs_written, which);
  if (which.summary) write_summary_file(dir, provenance, scenario, trace, result, summary);
}

std::string summary_table(const Scenario& scenario, const Trace& trace, const RunResult& result,
                          const RunSummary& summary) {
  std::string out = fmt::format("acmesim {} | {} | {} jobs | scheduler {} | placement {} | {} nodes x {} GPUs\n",
                                acmesim_version(), scenario.name, trace.jobs.size(), scenario.scheduler.name(),
                                scenario.placement.name(), scenario.cluster.gpu_nodes, scenario.cluster.gpus_per_node);
  out += fmt::format("{:<9} {:>9} {:>11} {:>11} {:>11} {:>11} {:>11} {:>12}\n", "type", "jobs", "queue mean",
                     "queue p50", "queue p99", "wait mean", "JCT mean", "GPU-hours");
  const auto row = [&](std::string_view label, const GroupStats& g) {
    out += fmt::format("{:<9} {:>9} {:>10.0f}s {:>10.0f}s {:>10.0f}s {:>10.0f}s {:>10.0f}s {:>12.0f}\n", label, g.jobs,
                       g.queue.mean, g.queue.median, g.queue.p99, g.wait.mean, g.jct.mean,
                       static_cast<double>(g.gpu_ms()) / 3.6e6);
  };
  for (JobType type : kJobTypes) {
    const GroupStats& g = summary.by_type[static_cast<std::size_t>(type)];
    if (g.jobs > 0) row(name(type), g);
  }
  row("all", summary.overall);
  out += fmt::format("makespan {:.1f} days | GPU allocation {:.1f}% | unschedulable {} | unstarted {}",
                     summary.makespan_s / 86400.0, 100.0 * summary.gpu_allocation_ratio, result.unschedulable.size(),
                     result.unstarted);
  if (result.conflicts > 0) out += fmt::format(" | replay conflicts {}", result.conflicts);
  if (trace.rows_skipped > 0) out += fmt::format(" | bad rows skipped {}", trace.rows_skipped);
  const bool fault_models =
      scenario.outcomes.name() != "trace" || scenario.failures.name() != "none" || scenario.recovery.name() != "none";
  if (fault_models) {
    std::int64_t lost = 0;
    for (const std::int64_t ms : result.lost_gpu_ms_by_reason) lost += ms;
    const GroupStats& pre = summary.by_type[static_cast<std::size_t>(JobType::Pretrain)];
    const FailureBreakdown& b = summary.failures.breakdown;
    const double n = static_cast<double>(b.total_count());
    const double g = static_cast<double>(b.total_gpu_ms());
    out += fmt::format(
        "\nfailures {} (infrastructure {:.1f}% of them, {:.1f}% of their GPU time) | node failures {} | node "
        "availability {:.2f}% | jobs killed {} ({:.0f} GPU-hours lost with them) | manual interventions {}\nGPU-hours "
        "lost {:.0f} | checkpoint GPU-hours {:.0f} | pretrain ETTR {:.3f} (killed jobs included)",
        b.total_count(),
        n > 0 ? 100.0 * static_cast<double>(b.category_count(FailureCategory::Infrastructure)) / n : 0.0,
        g > 0 ? 100.0 * static_cast<double>(b.category_gpu_ms(FailureCategory::Infrastructure)) / g : 0.0,
        result.node_failures, 100.0 * summary.failures.node_availability, result.jobs_killed,
        static_cast<double>(summary.overall.killed_gpu_ms) / 3.6e6, summary.overall.manual_interventions,
        static_cast<double>(lost) / 3.6e6, static_cast<double>(summary.overall.checkpoint_gpu_ms) / 3.6e6, pre.ettr());
  }
  out += fmt::format("\n{} events in {:.2f}s ({:.2f}M events/s) | fingerprint {}\n", result.events, result.wall_seconds,
                     result.wall_seconds > 0 ? static_cast<double>(result.events) / result.wall_seconds / 1e6 : 0.0,
                     result.fingerprint);
  return out;
}

}  // namespace acmesim
