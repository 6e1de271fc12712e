// `acmesim report`: the charts of a report, assembled from the output folders io/run_dir reads.
#include "tools/report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "io/outputs.hpp"
#include "sim/core/error.hpp"
#include "sim/model/job.hpp"
#include "tools/workload/trace_stats.hpp"

namespace acmesim {

namespace {

namespace fs = std::filesystem;

/// The most points a CDF line gets, and a timeline line: enough for the eye, and the page stays small.
constexpr std::size_t kCdfPoints = 200;
constexpr std::size_t kTimelinePoints = 800;

// Colours: one per job type, the same on every chart; runs and variants take the palette in order.
constexpr const char* kTotalColour = "#333333";
constexpr const char* kPalette[] = {"#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2",
                                    "#b279a2", "#eeca3b", "#ff9da6", "#9d755d", "#bab0ac"};

std::string palette(std::size_t i) { return kPalette[i % std::size(kPalette)]; }

std::string type_colour(const std::string& type) {
  for (std::size_t i = 0; i < kJobTypes.size(); ++i) {
    if (name(kJobTypes[i]) == type) return palette(i == 3 ? 5 : i == 5 ? 8 : i);
  }
  return palette(6);
}

std::string state_colour(const std::string& state) {
  static constexpr std::pair<const char*, const char*> kStates[] = {{"COMPLETED", "#54a24b"},
                                                                    {"FAILED", "#e45756"},
                                                                    {"CANCELLED", "#bab0ac"},
                                                                    {"TIMEOUT", "#f58518"},
                                                                    {"NODE_FAIL", "#b279a2"}};
  for (const auto& [s, colour] : kStates) {
    if (state == s) return colour;
  }
  return "#4c78a8";
}

/// `types` in the paper's order (Pretrain, Eval, SFT, MLLM, Debug, Other), unknown ones after.
std::vector<std::string> in_type_order(std::vector<std::string> types) {
  const auto rank = [](const std::string& type) {
    for (std::size_t i = 0; i < kJobTypes.size(); ++i) {
      if (name(kJobTypes[i]) == type) return i;
    }
    return kJobTypes.size();
  };
  std::stable_sort(types.begin(), types.end(),
                   [&](const std::string& a, const std::string& b) { return rank(a) < rank(b); });
  return types;
}

std::vector<ChartSeries> type_series(const std::vector<std::string>& types) {
  std::vector<ChartSeries> series;
  for (const std::string& type : types) series.push_back({type, type_colour(type)});
  return series;
}

std::vector<ChartSeries> label_series(const std::vector<std::string>& labels) {
  std::vector<ChartSeries> series;
  for (std::size_t i = 0; i < labels.size(); ++i) series.push_back({labels[i], palette(i)});
  return series;
}

/// `value` with thousands separators and `decimals` digits after the point.
std::string number_text(double value, int decimals = 0) {
  std::string text = fmt::format("{:.{}f}", std::fabs(value), decimals);
  const std::size_t point = text.find('.');
  for (std::size_t at = point == std::string::npos ? text.size() : point; at > 3; at -= 3) text.insert(at - 3, ",");
  return (value < 0 && text.find_first_not_of("0.,") != std::string::npos ? "-" : "") + text;
}

/// The points of a line from (x, y) samples, cut to about `max_points` by keeping each bucket's
/// lowest and highest sample (in order), so peaks and dips survive. Missing values are skipped.
std::vector<ChartRow> line_rows(const std::string& series, const std::vector<double>& xs, const std::vector<double>& ys,
                                std::size_t max_points) {
  std::vector<ChartRow> rows;
  const std::size_t n = std::min(xs.size(), ys.size());
  const std::size_t buckets = std::max<std::size_t>(1, max_points / 2);
  const std::size_t per_bucket = std::max<std::size_t>(1, (n + buckets - 1) / buckets);
  for (std::size_t begin = 0; begin < n; begin += per_bucket) {
    const std::size_t end = std::min(n, begin + per_bucket);
    std::optional<std::size_t> low, high;
    for (std::size_t i = begin; i < end; ++i) {
      if (!std::isfinite(xs[i]) || !std::isfinite(ys[i])) continue;
      if (!low || ys[i] < ys[*low]) low = i;
      if (!high || ys[i] > ys[*high]) high = i;
    }
    if (!low) continue;
    const std::size_t first = std::min(*low, *high);
    const std::size_t second = std::max(*low, *high);
    rows.push_back({series, xs[first], {}, ys[first], {}, {}});
    if (second != first) rows.push_back({series, xs[second], {}, ys[second], {}, {}});
  }
  return rows;
}

Chart new_chart(ChartKind kind, std::string title, std::string x_title, std::string y_title, std::string caption) {
  Chart chart;
  chart.kind = kind;
  chart.title = std::move(title);
  chart.x_title = std::move(x_title);
  chart.y_title = std::move(y_title);
  chart.caption = std::move(caption);
  return chart;
}

void add_cdf_rows(Chart& chart, const std::string& series, std::vector<double> values) {
  for (const auto& [x, y] : cdf_points(std::move(values), kCdfPoints)) chart.rows.push_back({series, x, {}, y, {}, {}});
}

// ---------------------------------------------------------------------------------------------
// Run folders

Section overview_section(const std::vector<RunDir>& runs, const std::vector<std::string>& labels) {
  Section section{"Overview", {}, {}, {}, {}};
  ReportTable table;
  table.header = {"run",      "scenario",        "trace",          "jobs",
                  "ran",      "makespan (days)", "GPU allocation", "mean queueing delay",
                  "mean JCT", "fingerprint"};
  table.label_columns = 3;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const RunSummaryFile& s = runs[i].summary;
    table.rows.push_back(
        {{labels[i], s.scenario_name, fs::path(s.trace_path).filename().string(),
          number_text(static_cast<double>(s.jobs_total)), number_text(static_cast<double>(s.jobs_ran)),
          number_text(s.makespan_s / 86400.0, 2), fmt::format("{:.1f} %", 100.0 * s.gpu_allocation_ratio),
          number_text(s.queue_mean_s, 0) + " s", number_text(s.jct_mean_s, 0) + " s", s.fingerprint},
         false});
  }
  section.tables.push_back(std::move(table));
  if (runs.size() > 1) {
    for (std::size_t i = 0; i < runs.size(); ++i)
      section.notes.push_back(fmt::format("{}: {}", labels[i], runs[i].path));
  }
  return section;
}

/// Days since the first submission, per timeline row.
std::vector<double> timeline_days(const Timeline& timeline) {
  std::vector<double> days;
  if (const std::vector<double>* elapsed = timeline.column("elapsed_s")) {
    for (const double s : *elapsed) days.push_back(s / 86400.0);
  }
  return days;
}

Chart timeline_chart(std::string title, std::string caption, std::string y_title) {
  return new_chart(ChartKind::Lines, std::move(title), "days since the first submission", std::move(y_title),
                   std::move(caption));
}

bool any_positive(const std::vector<double>& values) {
  return std::any_of(values.begin(), values.end(), [](double v) { return v > 0; });
}

/// A chart of `column` (and, for one run, its per-type columns COLUMN_TYPE), one line per run.
std::optional<Chart> timeline_column_chart(const std::vector<const RunDir*>& runs,
                                           const std::vector<std::string>& labels, const std::string& column,
                                           double scale, Chart chart) {
  const bool one_run = runs.size() == 1;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const Timeline& timeline = *runs[i]->timeline;
    const std::vector<double>* values = timeline.column(column);
    if (values == nullptr) continue;
    std::vector<double> scaled = *values;
    for (double& v : scaled) v *= scale;
    const std::string series = one_run ? "total" : labels[i];
    const std::vector<ChartRow> rows = line_rows(series, timeline_days(timeline), scaled, kTimelinePoints);
    chart.rows.insert(chart.rows.end(), rows.begin(), rows.end());
    chart.series.push_back({series, one_run ? kTotalColour : palette(i)});
    if (!one_run) continue;
    // Per-type columns, where the run wrote them (queued_jobs_Pretrain, ...): types with any.
    for (const JobType type : kJobTypes) {
      const std::string type_name{name(type)};
      const std::vector<double>* of_type = timeline.column(column + "_" + type_name);
      if (of_type == nullptr || !any_positive(*of_type)) continue;
      std::vector<double> type_scaled = *of_type;
      for (double& v : type_scaled) v *= scale;
      const std::vector<ChartRow> type_rows =
          line_rows(type_name, timeline_days(timeline), type_scaled, kTimelinePoints);
      chart.rows.insert(chart.rows.end(), type_rows.begin(), type_rows.end());
      chart.series.push_back({type_name, type_colour(type_name)});
    }
  }
  if (chart.rows.empty()) return std::nullopt;
  if (one_run && chart.series.size() > 1) chart.caption += " Black: all jobs; coloured: per job type.";
  return chart;
}

Section timeline_section(const std::vector<RunDir>& runs, const std::vector<std::string>& labels) {
  Section section{"The cluster over time", {}, {}, {}, {}};
  std::vector<const RunDir*> with;
  std::vector<std::string> with_labels;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (!runs[i].timeline) continue;
    with.push_back(&runs[i]);
    with_labels.push_back(labels[i]);
  }
  if (with.empty()) {
    section.notes.push_back("No timeline.csv: the run kept none (timeline_interval_s 0, or a sweep's `keep`).");
    return section;
  }
  section.notes.push_back(
      "From timeline.csv: the cluster sampled every timeline_interval_s of simulated time, after that "
      "instant's scheduling decisions.");
  Chart allocation =
      timeline_chart("GPU allocation", "Share of the cluster's GPUs allocated to jobs.", "allocated GPUs (% of all)");
  allocation.y_max = 100;
  const std::vector<std::pair<std::string, std::pair<Chart, double>>> wanted{
      {"gpu_allocation", {allocation, 100.0}},
      {"queued_jobs", {timeline_chart("Queue length", "Jobs submitted and waiting to start.", "queued jobs"), 1.0}},
      {"queued_gpus", {timeline_chart("Queued GPU demand", "GPUs the waiting jobs ask for.", "queued GPUs"), 1.0}},
      {"running_jobs", {timeline_chart("Running jobs", "Jobs holding resources.", "running jobs"), 1.0}},
      {"down_nodes",
       {timeline_chart("Nodes down", "Nodes out of service after a failure, until repaired.", "nodes down"), 1.0}},
  };
  for (const auto& [column, chart_and_scale] : wanted) {
    // Nodes down only when some were: a flat zero line says nothing.
    if (column == "down_nodes" && std::none_of(with.begin(), with.end(), [](const RunDir* r) {
          const std::vector<double>* v = r->timeline->column("down_nodes");
          return v != nullptr && any_positive(*v);
        })) {
      continue;
    }
    if (auto chart = timeline_column_chart(with, with_labels, column, chart_and_scale.second, chart_and_scale.first)) {
      section.charts.push_back(std::move(*chart));
    }
  }
  return section;
}

/// The GPU jobs of `jobs` (CPU jobs have a distribution of their own in the paper).
std::vector<const JobRecord*> gpu_jobs(const std::vector<JobRecord>& jobs) {
  std::vector<const JobRecord*> out;
  for (const JobRecord& job : jobs) {
    if (job.gpus > 0) out.push_back(&job);
  }
  return out;
}

/// A CDF's values: the log axis has no 0, so values under 1 s are drawn at 1 s (the paper's CDFs
/// start at 1 s too: their first point is the share of jobs at most 1 s).
double at_least_one_second(double seconds) { return std::max(seconds, 1.0); }

Chart cdf_chart(std::string title, const std::string& what) {
  Chart chart =
      new_chart(ChartKind::Lines, std::move(title), fmt::format("{} (s, log scale; under 1 s drawn at 1 s)", what),
                "% of GPU jobs at most x", "");
  chart.x_scale = AxisScale::Log;
  chart.y_max = 100;
  return chart;
}

void add_paper_markers(Chart& chart, const std::vector<PaperCdfs::TypeCdf>& paper,
                       const std::vector<std::string>& types, const std::string& cluster, const std::string& figure) {
  std::vector<std::string> curves, quantiles;
  for (const PaperCdfs::TypeCdf& cdf : paper) {
    if (std::find(types.begin(), types.end(), cdf.type) == types.end()) continue;
    for (const auto& [x, y] : cdf.points) chart.markers.push_back({cdf.type, at_least_one_second(x), {}, y, {}, {}});
    (cdf.quantiles_only ? quantiles : curves).push_back(cdf.type);
  }
  if (chart.markers.empty()) return;
  chart.markers_label = fmt::format("{} (paper)", cluster);
  if (!curves.empty()) {
    chart.caption +=
        fmt::format(" Circles: the paper's {} CDF points ({}) for {}.", cluster, figure, fmt::join(curves, ", "));
  }
  if (!quantiles.empty()) {
    chart.caption += fmt::format(" Circles for {}: only the paper's quantiles (p25 ... p99) are in the reference.",
                                 fmt::join(quantiles, ", "));
  }
}

Section distributions_section(const std::vector<RunDir>& runs, const std::vector<std::string>& labels,
                              const std::optional<PaperCdfs>& paper) {
  Section section{"Queueing delay and job completion time", {}, {}, {}, {}};
  Chart queue = cdf_chart("Queueing delay", "queueing delay");
  Chart jct = cdf_chart("Job completion time (JCT)", "JCT = queueing + run time");
  Chart duration = cdf_chart("Run time", "run time (first start to end)");
  std::size_t jobs_drawn = 0;
  if (runs.size() == 1) {
    if (!runs.front().jobs) {
      section.notes.push_back("No jobs.csv: the run kept none.");
      return section;
    }
    std::map<std::string, std::array<std::vector<double>, 3>> by_type;
    for (const JobRecord* job : gpu_jobs(*runs.front().jobs)) {
      auto& values = by_type[job->type];
      values[0].push_back(at_least_one_second(job->queue_s));
      values[1].push_back(at_least_one_second(job->jct_s));
      values[2].push_back(at_least_one_second(job->duration_s));
      ++jobs_drawn;
    }
    std::vector<std::string> types;
    for (const auto& [type, values] : by_type) types.push_back(type);
    types = in_type_order(types);
    for (const std::string& type : types) {
      add_cdf_rows(queue, type, std::move(by_type[type][0]));
      add_cdf_rows(jct, type, std::move(by_type[type][1]));
      add_cdf_rows(duration, type, std::move(by_type[type][2]));
    }
    for (Chart* chart : {&queue, &jct, &duration}) {
      chart->series = type_series(types);
      chart->caption =
          fmt::format("Per job type, over the {} GPU jobs that started.", number_text(static_cast<double>(jobs_drawn)));
    }
    if (paper) {
      add_paper_markers(queue, paper->queue, types, paper->cluster, paper->queue_figure);
      add_paper_markers(duration, paper->duration, types, paper->cluster, paper->duration_figure);
      jct.caption += " The paper gives no JCT distribution: its duration CDF is beside the run time.";
    }
  } else {
    std::vector<std::string> with;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      if (!runs[i].jobs) continue;
      std::array<std::vector<double>, 3> values;
      for (const JobRecord* job : gpu_jobs(*runs[i].jobs)) {
        values[0].push_back(at_least_one_second(job->queue_s));
        values[1].push_back(at_least_one_second(job->jct_s));
        values[2].push_back(at_least_one_second(job->duration_s));
      }
      add_cdf_rows(queue, labels[i], std::move(values[0]));
      add_cdf_rows(jct, labels[i], std::move(values[1]));
      add_cdf_rows(duration, labels[i], std::move(values[2]));
      with.push_back(labels[i]);
    }
    if (with.empty()) {
      section.notes.push_back("No jobs.csv in these runs: they kept none.");
      return section;
    }
    for (Chart* chart : {&queue, &jct, &duration}) {
      chart->series.clear();
      for (std::size_t i = 0; i < runs.size(); ++i) {
        if (runs[i].jobs) chart->series.push_back({labels[i], palette(i)});
      }
      chart->caption = "All GPU jobs that started, one line per run.";
    }
  }
  section.notes.push_back(
      "From jobs.csv: the share of GPU jobs (gpu_num > 0) whose figure is at most x, as the paper draws its "
      "CDFs. Each line is cut to at most 200 points.");
  for (Chart* chart : {&queue, &jct, &duration}) {
    if (!chart->rows.empty()) section.charts.push_back(std::move(*chart));
  }
  return section;
}

Section gpu_hours_section(const std::vector<RunDir>& runs, const std::vector<std::string>& labels) {
  Section section{"GPU-hours", {}, {}, {}, {}};
  section.notes.push_back("From summary.json by_type.*.gpu_hours: the GPU time jobs held, by their final state.");
  if (runs.size() == 1) {
    Chart chart = new_chart(ChartKind::StackedBars, "GPU-hours by job type and final state", "job type", "GPU-hours",
                            "Each bar is a job type's GPU time, split by how its jobs ended.");
    std::vector<std::string> types, states;
    for (const TypeGpuHours& t : runs.front().summary.gpu_hours) types.push_back(t.type);
    chart.categories = in_type_order(types);
    for (const TypeGpuHours& t : runs.front().summary.gpu_hours) {
      for (const auto& [state, hours] : t.by_state) {
        if (hours <= 0) continue;
        chart.rows.push_back({state, 0, t.type, hours, {}, {}});
        if (std::find(states.begin(), states.end(), state) == states.end()) states.push_back(state);
      }
    }
    for (const std::string& state : states) chart.series.push_back({state, state_colour(state)});
    if (!chart.rows.empty()) section.charts.push_back(std::move(chart));
    return section;
  }
  Chart by_type =
      new_chart(ChartKind::GroupedBars, "GPU-hours by job type", "job type", "GPU-hours", "One bar per run.");
  Chart by_state =
      new_chart(ChartKind::GroupedBars, "GPU-hours by final state", "final state", "GPU-hours", "One bar per run.");
  by_type.series = by_state.series = label_series(labels);
  std::vector<std::string> types, states;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    std::map<std::string, double> state_hours;
    for (const TypeGpuHours& t : runs[i].summary.gpu_hours) {
      double total = 0;
      for (const auto& [state, hours] : t.by_state) {
        total += hours;
        state_hours[state] += hours;
        if (hours > 0 && std::find(states.begin(), states.end(), state) == states.end()) states.push_back(state);
      }
      by_type.rows.push_back({labels[i], 0, t.type, total, {}, {}});
      if (std::find(types.begin(), types.end(), t.type) == types.end()) types.push_back(t.type);
    }
    for (const auto& [state, hours] : state_hours) {
      if (std::find(states.begin(), states.end(), state) != states.end()) {
        by_state.rows.push_back({labels[i], 0, state, hours, {}, {}});
      }
    }
  }
  by_type.categories = in_type_order(types);
  by_state.categories = states;
  for (Chart* chart : {&by_type, &by_state}) {
    if (!chart->rows.empty()) section.charts.push_back(std::move(*chart));
  }
  return section;
}

ReportTable failure_table(const std::vector<FailureRow>& rows, std::string caption) {
  ReportTable table;
  table.caption = std::move(caption);
  table.header = {"category", "reason", "failures", "% of failures", "failed GPU-hours", "% of failed GPU time"};
  table.label_columns = 2;
  double failures = 0, hours = 0;
  for (const FailureRow& row : rows) {
    const bool total = row.reason.empty();
    if (total) {
      failures += row.failures;
      hours += row.failed_gpu_hours;
    }
    table.rows.push_back({{total ? row.category : "", total ? "(all)" : row.reason, number_text(row.failures),
                           fmt::format("{:.2f}", 100.0 * row.share_of_failures), number_text(row.failed_gpu_hours, 1),
                           fmt::format("{:.2f}", 100.0 * row.share_of_gpu_time)},
                          total});
  }
  table.rows.push_back({{"total", "", number_text(failures), failures > 0 ? "100.00" : "0.00", number_text(hours, 1),
                         hours > 0 ? "100.00" : "0.00"},
                        true});
  return table;
}

std::optional<Section> failures_section(const std::vector<RunDir>& runs, const std::vector<std::string>& labels) {
  Section section{"Failures", {}, {}, {}, {}};
  section.notes.push_back(
      "From summary.json failures.breakdown, in the layout of the paper's Table 3: per category its failures "
      "and failed GPU time (the GPU time of the attempts a failure ended), then its reasons, largest GPU time "
      "first. Unknown: failures whose reason no model gave (recorded FAILED, TIMEOUT or NODE_FAIL jobs under "
      "the `trace` outcome model; configs/failures/taxonomy.yaml gives them Table 3's reasons).");
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (runs[i].summary.failures.empty()) continue;
    section.tables.push_back(failure_table(runs[i].summary.failures, runs.size() == 1 ? "" : labels[i]));
  }
  if (section.tables.empty()) return std::nullopt;
  return section;
}

Section provenance_section(const std::vector<RunDir>& runs, const std::vector<std::string>& labels) {
  Section section{"Where it came from", {}, {}, {}, {}};
  section.notes.push_back("summary.json's scenario, trace and provenance, as written.");
  for (std::size_t i = 0; i < runs.size(); ++i) {
    for (KeyValueTree tree : runs[i].summary.provenance) {
      if (runs.size() > 1) tree.key = fmt::format("{}: {}", labels[i], tree.key);
      section.trees.push_back(std::move(tree));
    }
  }
  return section;
}

// ---------------------------------------------------------------------------------------------
// Sweeps and compare tables

std::optional<double> as_number(const std::string& text) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

/// A metric's name in words, with its unit: "all_queue_mean_s" -> "mean queueing delay, all jobs (s)".
std::string metric_title(const std::string& metric) {
  static const std::map<std::string, std::string> kNamed{
      {"gpu_allocation_ratio", "GPU allocation (%)"},
      {"makespan_s", "makespan (s)"},
      {"lost_gpu_hours", "lost GPU-hours"},
      {"checkpoint_gpu_hours", "checkpoint GPU-hours"},
      {"recovery_wait_gpu_hours", "recovery wait GPU-hours"},
      {"ettr", "ETTR (effective training time ratio)"},
      {"pretrain_ettr", "ETTR of pretraining jobs"},
      {"slowdown_mean", "mean bounded slowdown"},
      {"overhead_gpu_hours", "restart overhead GPU-hours"},
  };
  if (const auto named = kNamed.find(metric); named != kNamed.end()) return named->second;
  static const std::map<std::string, std::string> kStats{
      {"mean", "mean"}, {"median", "median"}, {"p95", "p95"}, {"p99", "p99"}};
  for (const char* figure : {"queue", "jct", "wait"}) {
    for (const auto& [stat, word] : kStats) {
      const std::string suffix = fmt::format("{}_{}_s", figure, stat);
      if (metric.size() < suffix.size() || metric.compare(metric.size() - suffix.size(), suffix.size(), suffix) != 0) {
        continue;
      }
      const std::string what = std::string(figure) == "queue" ? "queueing delay"
                               : std::string(figure) == "jct" ? "JCT"
                                                              : "wait";
      const std::string group = metric.substr(0, metric.size() - suffix.size());
      return group.empty() ? fmt::format("{} {} (s)", word, what)
                           : fmt::format("{} {}, {} jobs (s)", word, what, group.substr(0, group.size() - 1));
    }
  }
  return metric;
}

/// What a metric's values are multiplied by on a chart: the allocation ratio is shown in percent.
double metric_scale(const std::string& metric) { return metric == "gpu_allocation_ratio" ? 100.0 : 1.0; }

/// Checks `wanted` against `known` (InputError with "did you mean" for a typo).
void check_metrics(const std::vector<std::string>& wanted, const std::vector<std::string>& known,
                   const std::string& file) {
  for (const std::string& metric : wanted) {
    if (std::find(known.begin(), known.end(), metric) == known.end()) {
      throw unknown_name_error("acmesim report --metrics", "metric", fmt::format("metric of {}", file), known, metric);
    }
  }
}

Chart sweep_chart(const SweepSummary& sweep, const std::string& metric, std::size_t axis) {
  Chart chart = new_chart(ChartKind::Lines, fmt::format("{} by {}", metric_title(metric), sweep.axes[axis]),
                          sweep.axes[axis], metric_title(metric), "");
  std::vector<const SweepSummary::Row*> rows;
  for (const SweepSummary::Row& row : sweep.rows) {
    if (row.metric == metric && row.mean) rows.push_back(&row);
  }
  const bool numeric = std::all_of(rows.begin(), rows.end(), [&](const SweepSummary::Row* r) {
    return as_number(r->axis_values[axis]).has_value();
  });
  chart.x_scale = numeric ? AxisScale::Linear : AxisScale::Categorical;
  // The axis spans the values: an ETTR of 0.96 against 0.97 is the difference a sweep looks for.
  chart.y_from_zero = false;
  // Ratios stay in [0, 1] and counts, times and GPU-hours at or above 0: a t interval of two
  // seeds can reach past either, which no run could.
  const bool ratio = metric.find("ratio") != std::string::npos || metric.find("ettr") != std::string::npos;
  const bool non_negative =
      std::all_of(rows.begin(), rows.end(), [](const SweepSummary::Row* r) { return *r->mean >= 0; });
  const double scale = metric_scale(metric);
  bool clipped = false;
  std::vector<std::string> series_names;
  for (const SweepSummary::Row* row : rows) {
    std::vector<std::string> others;
    for (std::size_t a = 0; a < sweep.axes.size(); ++a) {
      if (a != axis) others.push_back(fmt::format("{}={}", sweep.axes[a], row->axis_values[a]));
    }
    const std::string series = others.empty() ? "mean of the seeds" : fmt::format("{}", fmt::join(others, ", "));
    if (std::find(series_names.begin(), series_names.end(), series) == series_names.end())
      series_names.push_back(series);
    const std::string& value = row->axis_values[axis];
    if (!numeric && std::find(chart.categories.begin(), chart.categories.end(), value) == chart.categories.end()) {
      chart.categories.push_back(value);
    }
    ChartRow point{series, numeric ? *as_number(value) : 0.0, numeric ? "" : value, scale * *row->mean, {}, {}};
    if (row->ci95_low && row->ci95_high) {
      double low = *row->ci95_low, high = *row->ci95_high;
      if (non_negative && low < 0) low = 0, clipped = true;
      if (ratio && high > 1) high = 1, clipped = true;
      point.low = scale * low;
      point.high = scale * high;
    }
    chart.rows.push_back(std::move(point));
  }
  // A line is drawn in the order of its points: along the axis.
  const auto position = [&](const ChartRow& r) {
    if (numeric) return r.x;
    return static_cast<double>(std::find(chart.categories.begin(), chart.categories.end(), r.category) -
                               chart.categories.begin());
  };
  std::stable_sort(chart.rows.begin(), chart.rows.end(),
                   [&](const ChartRow& a, const ChartRow& b) { return position(a) < position(b); });
  chart.series = label_series(series_names);
  chart.caption = fmt::format("Mean over the seeds; band: their 95 % confidence interval (Student t){}.",
                              clipped ? ", clipped to the values the metric can take" : "");
  if (sweep.axes.size() > 1) chart.caption += " One line per value of the other axes.";
  return chart;
}

}  // namespace

std::vector<std::pair<double, double>> cdf_points(std::vector<double> values, std::size_t max_points) {
  std::vector<std::pair<double, double>> steps;  // (distinct value, percent at most it)
  std::sort(values.begin(), values.end());
  const double n = static_cast<double>(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i + 1 == values.size() || values[i + 1] != values[i]) {
      steps.emplace_back(values[i], 100.0 * static_cast<double>(i + 1) / n);
    }
  }
  if (steps.size() <= max_points || max_points < 2) return steps;
  std::vector<bool> keep(steps.size(), false);
  keep.front() = keep.back() = true;
  const std::size_t half = max_points / 2 - 1;
  // Evenly in percent: the first step at or above each target.
  for (std::size_t k = 1; k <= half; ++k) {
    const double target = 100.0 * static_cast<double>(k) / static_cast<double>(half + 1);
    const auto at = std::lower_bound(steps.begin(), steps.end(), target,
                                     [](const auto& step, double t) { return step.second < t; });
    if (at != steps.end()) keep[static_cast<std::size_t>(at - steps.begin())] = true;
  }
  // Evenly in log x (from the smallest positive value): the first step at or above each target.
  const auto first_positive = std::find_if(steps.begin(), steps.end(), [](const auto& s) { return s.first > 0; });
  if (first_positive != steps.end() && steps.back().first > first_positive->first) {
    const double low = std::log(first_positive->first), high = std::log(steps.back().first);
    for (std::size_t k = 1; k <= half; ++k) {
      const double target = std::exp(low + (high - low) * static_cast<double>(k) / static_cast<double>(half + 1));
      const auto at = std::lower_bound(first_positive, steps.end(), target,
                                       [](const auto& step, double t) { return step.first < t; });
      if (at != steps.end()) keep[static_cast<std::size_t>(at - steps.begin())] = true;
    }
  }
  std::vector<std::pair<double, double>> points;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (keep[i]) points.push_back(steps[i]);
  }
  return points;
}

PaperCdfs paper_cdfs(const ReferenceRow& reference, const std::string& cluster) {
  PaperCdfs paper;
  paper.cluster = cluster;
  const bool kalos = cluster == "Kalos";
  paper.duration_figure = kalos ? "AcmeTrace T6" : "AcmeTrace T4";
  paper.queue_figure = kalos ? "AcmeTrace T7" : "AcmeTrace T5";
  for (const JobType type : kJobTypes) {
    const std::string type_name{name(type)};
    for (auto [figure, list] : {std::pair{"duration", &paper.duration}, std::pair{"queue", &paper.queue}}) {
      PaperCdfs::TypeCdf cdf{type_name, {}, false};
      const std::string cdf_prefix = fmt::format("{}.{}_cdf.", type_name, figure);
      const std::string quantile_prefix = fmt::format("{}.{}_p", type_name, figure);
      for (const auto& [key, value] : reference.values) {
        if (key.rfind(cdf_prefix, 0) == 0) {
          if (const auto x = as_number(key.substr(cdf_prefix.size()))) cdf.points.emplace_back(*x, value);
        }
      }
      if (cdf.points.empty()) {
        // Only quantiles: TYPE.queue_p50 = 1 is the point (1 s, 50 %).
        for (const auto& [key, value] : reference.values) {
          if (key.rfind(quantile_prefix, 0) != 0) continue;
          if (const auto p = as_number(key.substr(quantile_prefix.size()))) cdf.points.emplace_back(value, *p);
        }
        cdf.quantiles_only = !cdf.points.empty();
      }
      std::sort(cdf.points.begin(), cdf.points.end());
      if (!cdf.points.empty()) list->push_back(std::move(cdf));
    }
  }
  return paper;
}

std::string paper_cluster_of(const RunSummaryFile& summary) {
  std::string names = summary.scenario_name + " " + fs::path(summary.trace_path).filename().string();
  std::transform(names.begin(), names.end(), names.begin(), [](unsigned char c) { return std::tolower(c); });
  const bool seren = names.find("seren") != std::string::npos;
  const bool kalos = names.find("kalos") != std::string::npos;
  if (seren != kalos) return seren ? "seren" : "kalos";
  // [Acme Table 1]: Seren 2,288 GPUs, Kalos 2,416.
  if (summary.cluster_gpus == 2288) return "seren";
  if (summary.cluster_gpus == 2416) return "kalos";
  return "";
}

ReportPage run_report(const std::vector<RunDir>& runs, const std::vector<std::string>& labels,
                      const std::optional<PaperCdfs>& paper) {
  ReportPage page;
  page.title = runs.size() == 1 ? fmt::format("acmesim report: {}", labels.front())
                                : fmt::format("acmesim report: {} runs", runs.size());
  page.subtitle = fmt::format("Written by acmesim {} from {}.", acmesim_version(),
                              runs.size() == 1 ? runs.front().path : fmt::format("{}", fmt::join(labels, ", ")));
  page.sections.push_back(overview_section(runs, labels));
  page.sections.push_back(timeline_section(runs, labels));
  page.sections.push_back(distributions_section(runs, labels, paper));
  page.sections.push_back(gpu_hours_section(runs, labels));
  if (auto failures = failures_section(runs, labels)) page.sections.push_back(std::move(*failures));
  page.sections.push_back(provenance_section(runs, labels));
  return page;
}

namespace {

/// compare.csv's `all` rows: one line per variant.
ReportTable compare_table(const CompareTable& table) {
  ReportTable out;
  out.caption = "All jobs, per variant";
  const std::vector<std::pair<std::string, std::string>> columns{{"jobs", "jobs"},
                                                                 {"queue_mean_s", "mean queueing delay (s)"},
                                                                 {"queue_p99_s", "p99 queueing delay (s)"},
                                                                 {"jct_mean_s", "mean JCT (s)"},
                                                                 {"jct_p99_s", "p99 JCT (s)"},
                                                                 {"gpu_allocation_ratio", "GPU allocation"},
                                                                 {"makespan_s", "makespan (days)"}};
  out.header = {"variant"};
  for (const auto& [metric, title] : columns) out.header.push_back(title);
  for (const CompareTable::Row& row : table.rows) {
    if (row.type != "all") continue;
    ReportTable::Row line{{row.variant}, false};
    for (const auto& [metric, title] : columns) {
      const auto at = std::find(table.metrics.begin(), table.metrics.end(), metric);
      const std::optional<double> value =
          at == table.metrics.end() ? std::nullopt : row.values[static_cast<std::size_t>(at - table.metrics.begin())];
      if (!value) {
        line.cells.emplace_back("");
      } else if (metric == "gpu_allocation_ratio") {
        line.cells.push_back(fmt::format("{:.1f} %", 100.0 * *value));
      } else {
        line.cells.push_back(metric == "makespan_s" ? number_text(*value / 86400.0, 2) : number_text(*value));
      }
    }
    out.rows.push_back(std::move(line));
  }
  return out;
}

}  // namespace

std::vector<std::string> default_compare_metrics() {
  return {"queue_mean_s", "queue_p99_s", "jct_mean_s", "jct_p99_s", "slowdown_mean", "gpu_allocation_ratio"};
}

Section compare_section(const CompareTable& table, const std::vector<std::string>& metrics) {
  check_metrics(metrics, table.metrics, table.path + "/compare.csv");
  Section section{"Variants compared", {}, {}, {}, {}};
  section.notes.push_back(fmt::format(
      "From {}/compare.csv: one bar per variant (scheduler + placement). The run-wide figures (GPU allocation, "
      "makespan) are one bar per variant.",
      table.path));
  std::vector<std::string> variants, types{"all"};
  for (const CompareTable::Row& row : table.rows) {
    if (std::find(variants.begin(), variants.end(), row.variant) == variants.end()) variants.push_back(row.variant);
    if (std::find(types.begin(), types.end(), row.type) == types.end()) types.push_back(row.type);
  }
  types.erase(types.begin());
  types = in_type_order(types);
  types.insert(types.begin(), "all");
  section.tables.push_back(compare_table(table));
  section.tables_first = true;
  for (const std::string& metric : metrics) {
    const std::size_t column =
        static_cast<std::size_t>(std::find(table.metrics.begin(), table.metrics.end(), metric) - table.metrics.begin());
    const bool run_wide = metric == "gpu_allocation_ratio" || metric == "makespan_s" || metric == "unstarted";
    // A run-wide figure has one bar per variant: bars of one series each, as wide as the band.
    Chart chart = new_chart(
        run_wide ? ChartKind::StackedBars : ChartKind::GroupedBars, metric_title(metric),
        run_wide ? "variant" : "job type", metric_title(metric),
        run_wide ? "Per variant, over the whole run." : "Per job type (all: every job), one bar per variant.");
    chart.series = label_series(variants);
    chart.categories = run_wide ? variants : types;
    for (const CompareTable::Row& row : table.rows) {
      if (run_wide && row.type != "all") continue;
      if (const std::optional<double>& value = row.values[column]) {
        chart.rows.push_back(
            {row.variant, 0, run_wide ? row.variant : row.type, metric_scale(metric) * *value, {}, {}});
      }
    }
    if (!chart.rows.empty()) section.charts.push_back(std::move(chart));
  }
  return section;
}

std::vector<std::string> default_sweep_metrics(const SweepSummary& sweep) {
  std::vector<std::string> chosen;
  for (const char* metric : {"all_queue_mean_s", "all_jct_mean_s", "gpu_allocation_ratio", "ettr", "lost_gpu_hours"}) {
    const bool has_values = std::any_of(sweep.rows.begin(), sweep.rows.end(), [&](const SweepSummary::Row& r) {
      return r.metric == metric && r.mean.has_value();
    });
    if (has_values) chosen.emplace_back(metric);
  }
  return chosen;
}

ReportPage sweep_report(const SweepSummary& sweep, const std::vector<std::string>& metrics) {
  check_metrics(metrics, sweep.metrics(), sweep.path + "/summary.csv");
  ReportPage page;
  page.title = fmt::format("acmesim report: sweep {}", fs::path(sweep.path).filename().string());
  page.subtitle = fmt::format("Written by acmesim {} from {}/summary.csv.", acmesim_version(), sweep.path);
  int seeds = 0;
  for (const SweepSummary::Row& row : sweep.rows) seeds = std::max(seeds, row.seeds);
  for (const std::string& metric : metrics) {
    Section section{metric_title(metric), {}, {}, {}, {}};
    for (std::size_t axis = 0; axis < sweep.axes.size(); ++axis) {
      Chart chart = sweep_chart(sweep, metric, axis);
      if (!chart.rows.empty()) section.charts.push_back(std::move(chart));
    }
    if (section.charts.empty()) section.notes.push_back(fmt::format("No point has a value of {}.", metric));
    page.sections.push_back(std::move(section));
  }
  Section about{"The sweep", {}, {}, {}, {}};
  about.notes.push_back(fmt::format("Axes: {}; up to {} seeds per point; metrics shown: {} (--metrics chooses).",
                                    sweep.axes.empty() ? "none" : fmt::format("{}", fmt::join(sweep.axes, ", ")), seeds,
                                    fmt::join(metrics, ", ")));
  page.sections.insert(page.sections.begin(), std::move(about));
  return page;
}

namespace {

/// What each folder is called on the page: its name, or its path where two names are the same.
std::vector<std::string> labels_of(const std::vector<std::string>& dirs) {
  std::vector<std::string> labels;
  for (const std::string& dir : dirs) {
    const fs::path path = fs::path(dir).lexically_normal();
    labels.push_back((path.has_filename() ? path.filename() : path.parent_path().filename()).string());
  }
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (std::count(labels.begin(), labels.end(), labels[i]) > 1) labels[i] = dirs[i];
  }
  return labels;
}

std::optional<PaperCdfs> paper_for(const std::string& wanted, const RunSummaryFile& summary,
                                   const std::string& reference_dir) {
  const std::string cluster = wanted == "auto" ? paper_cluster_of(summary) : wanted == "none" ? "" : wanted;
  if (cluster.empty()) return std::nullopt;
  const ReferenceRow reference = load_reference(resolve_reference(cluster, reference_dir), trace_stat_keys());
  return paper_cdfs(reference, cluster == "kalos" ? "Kalos" : "Seren");
}

}  // namespace

int run_report_command(const ReportArgs& args, const std::string& reference_dir, spdlog::logger& log) {
  if (args.dirs.empty()) throw input_error("acmesim report", "command line", "one or more folders", "none");
  if (args.dirs.size() > 1 && args.out.empty()) {
    throw input_error("acmesim report", "-o", "the report's file name (required for several folders)", "none");
  }
  std::vector<OutputDirKind> kinds;
  for (const std::string& dir : args.dirs) kinds.push_back(detect_output_dir(dir));
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    if (kinds.size() > 1 && kinds[i] != OutputDirKind::Run) {
      throw input_error(args.dirs[i], "report folder",
                        "run folders only, when several folders are given (a compare or sweep folder goes alone)",
                        fmt::format("a {} folder among {} folders", name(kinds[i]), kinds.size()));
    }
  }
  // The Vega library first: a missing one fails before anything is read.
  const std::string vega = load_vega_library(args.vega);
  ReportPage page;
  if (kinds.front() == OutputDirKind::Sweep) {
    const SweepSummary sweep = load_sweep_dir(args.dirs.front());
    page = sweep_report(sweep, args.metrics.empty() ? default_sweep_metrics(sweep) : args.metrics);
  } else {
    const bool compare = kinds.front() == OutputDirKind::Compare;
    const std::vector<std::string> run_paths = compare ? run_dirs_in(args.dirs.front()) : args.dirs;
    std::vector<RunDir> runs;
    for (const std::string& path : run_paths) runs.push_back(load_run_dir(path));
    const std::vector<std::string> labels = labels_of(run_paths);
    if (!runs.empty()) {
      const std::optional<PaperCdfs> paper =
          runs.size() == 1 ? paper_for(args.reference, runs.front().summary, reference_dir) : std::nullopt;
      page = run_report(runs, labels, paper);
    }
    if (compare) {
      const CompareTable table = load_compare_dir(args.dirs.front());
      Section section = compare_section(table, args.metrics.empty() ? default_compare_metrics() : args.metrics);
      if (runs.empty()) {
        page.title = fmt::format("acmesim report: compare {}", labels_of(args.dirs).front());
        page.subtitle = fmt::format(
            "Written by acmesim {} from {}/compare.csv (no run folders in it: compare.csv's "
            "figures only).",
            acmesim_version(), args.dirs.front());
      }
      page.sections.insert(page.sections.begin(), std::move(section));
    }
  }
  std::size_t charts = 0;
  for (const Section& section : page.sections) charts += section.charts.size();
  const std::string out = args.out.empty() ? (fs::path(args.dirs.front()) / "report.html").string() : args.out;
  const std::string html = report_html(page, vega);
  write_report_file(out, html);
  log.info("wrote {} ({} charts, {} KiB)", out, charts, (html.size() + 1023) / 1024);
  return 0;
}

}  // namespace acmesim
