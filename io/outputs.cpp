#include "io/outputs.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "io/acme_schema.hpp"
#include "io/output_file.hpp"
#include "io/text_buffer.hpp"
#include "io/timestamp.hpp"
#include "sim/core/error.hpp"

#ifndef ACMESIM_VERSION
#define ACMESIM_VERSION "0.0.0"
#endif

namespace acmesim {

namespace {

using Json = nlohmann::ordered_json;

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
    "failure_log,checkpoint_gpu_time,recovery_wait,manual_interventions,ettr,switch_groups,wait,slowdown";

/// One row of jobs.csv, no newline. A job that never ran keeps its recorded state and has no
/// start, end, duration, queue or GPU time.
void append_job_row(TextBuffer& out, const Trace& trace, const JobSpec& spec, const JobStatus& s, bool extras,
                    TimestampWriter& stamps) {
  const bool ran = s.phase == JobPhase::Ended;
  append_acme_row(out, TraceSchema::Seren, [&](AcmeColumn column, TextBuffer& cell) {
    if (append_request_cell(cell, column, spec, trace.user_name(spec.user))) return;
    switch (column) {
      case kState:
        cell.append(name(ran ? s.state : spec.recorded_state));
        break;
      case kSubmit:
        stamps.append(cell, spec.submitted.time_since_epoch().count());
        break;
      case kStart:
        if (ran) stamps.append(cell, s.started->time_since_epoch().count());
        break;
      case kEnd:
        if (ran) stamps.append(cell, s.ended->time_since_epoch().count());
        break;
      case kDuration:
        if (ran) cell.append_seconds((*s.ended - *s.started).count());
        break;
      case kQueue:
        if (ran) cell.append_seconds((*s.started - spec.submitted).count());
        break;
      case kGpuTime:
        if (ran) cell.append_seconds(s.held_gpu_ms);
        break;
      default:
        break;  // Kalos-only columns: not in jobs.csv
    }
  });
  if (!extras) return;
  if (!ran) {
    out.append(s.phase == JobPhase::Unschedulable ? ",,unschedulable,0,0,0,0,0,,,0,0,0,,0,,"
                                                  : ",,unstarted,0,0,0,0,0,,,0,0,0,,0,,");
    return;
  }
  const auto next = [&out] { out.push_back(','); };
  next();
  out.append_seconds((*s.ended - spec.submitted).count());
  out.append(",ran,");
  out.append_integer(s.attempt);
  next();
  out.append_integer(s.preemptions);
  next();
  out.append_integer(s.failures);
  next();
  out.append_seconds(s.lost_gpu_ms);
  next();
  out.append_seconds(s.overhead_gpu_ms);
  next();
  if (s.end_reason != FailureReason::None) out.append(name(s.end_reason));
  next();
  out.append(failure_log_cell(s));
  next();
  out.append_seconds(s.checkpoint_gpu_ms);
  next();
  out.append_seconds(s.recovery_wait.count());
  next();
  out.append_integer(s.manual_interventions);
  next();
  const std::int64_t wall = (*s.ended - *s.started).count();
  out.append_fixed(wall > 0 ? static_cast<double>(s.useful_work().count()) / static_cast<double>(wall) : 1.0, 4);
  next();
  out.append_integer(s.switch_groups);
  next();
  out.append_seconds(s.wait(spec.submitted).count());
  next();
  out.append_fixed(s.slowdown(spec.submitted, spec.runtime), 4);
}

}  // namespace

void write_jobs_csv(const std::string& path, const Trace& trace, const RunResult& result, JobsCsvColumns columns,
                    const std::function<void(std::size_t rows)>& on_rows) {
  const bool extras = columns == JobsCsvColumns::WithExtras;
  File file{path};
  TextBuffer out;
  out.append(acme_header(TraceSchema::Seren));
  if (extras) out.append(kExtrasHeader);
  out.push_back('\n');
  TimestampWriter stamps{trace.epoch_unix_seconds, trace.utc_offset_minutes};
  for (std::size_t i = 0; i < trace.jobs.size(); ++i) {
    append_job_row(out, trace, trace.jobs[i], result.jobs[i], extras, stamps);
    out.push_back('\n');
    if (out.size() > (1U << 20)) {
      file.write(out);
      out.clear();
      if (on_rows) on_rows(i + 1);
    }
  }
  file.write(out);
  file.close();
}

namespace {

void write_timeline(const std::filesystem::path& path, const Trace& trace, const RunResult& result, int total_gpus) {
  File file{path};
  TextBuffer out;
  out.append("time,elapsed_s,allocated_gpus,gpu_allocation,allocated_cpus,running_jobs,queued_jobs\n");
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
    out.push_back('\n');
    if (out.size() > (1U << 20)) {
      file.write(out);
      out.clear();
    }
  }
  file.write(out);
  file.close();
}

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

Json summary_json(const Scenario& scenario, const Trace& trace, const RunResult& result, const RunSummary& summary) {
  Json j;
  j["acmesim_version"] = acmesim_version();
  j["complete"] = true;
  j["scenario"] = {{"name", scenario.name},
                   {"source", scenario.source},
                   {"seed", scenario.seed},
                   {"scheduler", scenario.scheduler.name()},
                   {"placement", scenario.placement.name()},
                   {"outcomes", scenario.outcomes.name()},
                   {"failures", scenario.failures.name()},
                   {"recovery", scenario.recovery.name()},
                   {"cluster",
                    {{"nodes", scenario.cluster.gpu_nodes},
                     {"gpus_per_node", scenario.cluster.gpus_per_node},
                     {"cpus_per_node", scenario.cluster.cpus_per_node},
                     {"memory_gib_per_node", scenario.cluster.memory_gib_per_node},
                     {"cpu_nodes", scenario.cluster.cpu_nodes},
                     {"nodes_per_switch", scenario.cluster.nodes_per_switch}}}};
  j["trace"] = {{"path", trace.path},
                {"schema", name(trace.schema)},
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
    unschedulable.push_back(
        {{"job_id", spec.trace_id}, {"line", spec.source_line}, {"reason", result.unschedulable[i].reason}});
  }
  j["unschedulable_examples"] = unschedulable;
  Json conflicts = Json::array();
  for (const Conflict& c : result.first_conflicts) {
    const JobSpec& spec = trace.jobs[c.job.value()];
    const JobStatus& s = result.jobs[c.job.value()];
    conflicts.push_back(
        {{"job_id", spec.trace_id},
         {"line", spec.source_line},
         {"wanted_start", format_timestamp(trace.epoch_unix_seconds + c.wanted.time_since_epoch().count() / 1000,
                                           trace.utc_offset_minutes)},
         {"delay_s", s.started ? to_seconds(*s.started - c.wanted) : -1.0}});
  }
  j["conflicts"] = {{"count", result.conflicts}, {"examples", conflicts}};
  return j;
}

}  // namespace

std::string acmesim_version() { return ACMESIM_VERSION; }

void write_outputs(const std::string& dir, const Scenario& scenario, const Trace& trace, const RunResult& result,
                   const RunSummary& summary, const std::function<void(std::size_t rows)>& on_jobs_written,
                   RunOutputs which) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw InputError(fmt::format("{}: cannot create the output directory ({})", dir, ec.message()));
  const fs::path base{dir};
  // summary.json is the marker of a complete run: the previous run's is removed before anything
  // else is replaced and the new one is written last, so a run killed in between leaves a folder
  // without a summary.json, never one whose summary describes other files.
  fs::remove(base / "summary.json", ec);
  if (ec) throw InputError(fmt::format("{}: cannot remove the previous summary.json ({})", dir, ec.message()));
  if (which.jobs) {
    write_jobs_csv((base / "jobs.csv").string(), trace, result, JobsCsvColumns::WithExtras, on_jobs_written);
  }
  if (which.timeline) {
    write_timeline(base / "timeline.csv", trace, result, scenario.cluster.gpu_nodes * scenario.cluster.gpus_per_node);
  }
  if (!which.summary) return;
  OutputFile json{(base / "summary.json").string()};
  // Invalid UTF-8 (a trace path, a job id or a skipped row in another encoding) becomes U+FFFD
  // in summary.json, never an abort halfway through the outputs.
  json.write(summary_json(scenario, trace, result, summary).dump(2, ' ', false, Json::error_handler_t::replace) + "\n");
  json.close();
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
