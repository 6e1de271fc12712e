#include "io/run_dir.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "io/csv_reader.hpp"
#include "sim/core/error.hpp"

namespace acmesim {

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

constexpr std::string_view kKinds =
    "a run folder (summary.json), a compare folder (compare.csv) or a sweep folder (summary.csv)";

/// What a folder holds, for an error message: its first few entries, folders marked with '/'.
std::string listing(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    names.push_back(entry.path().filename().string() + (entry.is_directory() ? "/" : ""));
  }
  if (ec) return fmt::format("an unreadable folder ({})", ec.message());
  if (names.empty()) return "an empty folder";
  std::sort(names.begin(), names.end());
  constexpr std::size_t kShown = 8;
  const std::size_t more = names.size() > kShown ? names.size() - kShown : 0;
  names.resize(std::min(names.size(), kShown));
  return fmt::format("{}{}", fmt::join(names, ", "), more ? fmt::format(" and {} more", more) : "");
}

bool has_file(const fs::path& dir, const char* name) {
  std::error_code ec;
  return fs::is_regular_file(dir / name, ec);
}

std::optional<double> number_or_empty(std::string_view cell, const std::string& where, std::string_view column) {
  if (cell.empty()) return std::nullopt;
  double value = 0;
  const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
  if (ec != std::errc{} || end != cell.data() + cell.size() || !std::isfinite(value)) {
    throw input_error(where, column, "a number", cell);
  }
  return value;
}

double number(std::string_view cell, const std::string& where, std::string_view column) {
  const std::optional<double> value = number_or_empty(cell, where, column);
  if (!value) throw input_error(where, column, "a number", "an empty cell");
  return *value;
}

/// Reads the CSV file `path` with the one CSV reader: checks its header holds every name of
/// `required`, then calls on_row(cells by wanted name, place) per row, with "" for a wanted
/// column the file lacks. `wanted` starts with the required names.
template <class OnRow>
void read_csv(const std::string& path, std::string_view what, const std::vector<std::string_view>& wanted,
              std::size_t required, OnRow&& on_row) {
  csv::CsvReader reader{path, what, csv::CsvReader::BlankLines::Skip};
  if (!reader.next_line()) {
    throw input_error(path, "header", fmt::format("a {} written by acmesim", what), "an empty file");
  }
  const csv::HeaderMap header = csv::map_header(reader.cells(), wanted);
  if (!header.duplicated.empty()) {
    throw input_error(place(path, 1), "header", "each column once", fmt::format("'{}' twice", header.duplicated));
  }
  for (std::size_t c = 0; c < required; ++c) {
    if (!header.has(c)) {
      throw input_error(
          place(path, 1), "header",
          fmt::format("the columns {} (a {} written by acmesim)",
                      fmt::join(wanted.begin(), wanted.begin() + static_cast<long>(required), ", "), what),
          fmt::format("no column '{}'", wanted[c]));
    }
  }
  std::vector<std::string_view> cells(wanted.size());
  while (reader.next_line()) {
    if (const std::string_view problem = csv::shape_problem(reader, header); !problem.empty()) {
      reader.check_rest_intact();
      throw input_error(place(path, reader.line()), "row", "one value per header column", problem);
    }
    for (std::size_t c = 0; c < wanted.size(); ++c) {
      cells[c] = header.has(c) ? reader.cells()[static_cast<std::size_t>(header.index[c])] : std::string_view{};
    }
    on_row(cells, place(path, reader.line()));
  }
}

/// The header of the CSV file `path` (InputError if it has none).
std::vector<std::string> csv_header(const std::string& path, std::string_view what) {
  csv::CsvReader reader{path, what, csv::CsvReader::BlankLines::Skip};
  if (!reader.next_line()) {
    throw input_error(path, "header", fmt::format("a {} written by acmesim", what), "an empty file");
  }
  return {reader.cells().begin(), reader.cells().end()};
}

std::string scalar_text(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

KeyValueTree tree_of(const std::string& key, const Json& value) {
  KeyValueTree node{key, {}, {}};
  if (value.is_object()) {
    if (value.empty()) node.value = "(none)";
    for (const auto& [k, v] : value.items()) node.children.push_back(tree_of(k, v));
  } else if (value.is_array()) {
    const bool scalars = std::none_of(value.begin(), value.end(), [](const Json& v) { return v.is_structured(); });
    if (scalars) {
      std::vector<std::string> items;
      for (const Json& v : value) items.push_back(scalar_text(v));
      node.value = items.empty() ? "(none)" : fmt::format("{}", fmt::join(items, ", "));
    } else {
      std::size_t index = 0;
      for (const Json& v : value) node.children.push_back(tree_of(std::to_string(index++), v));
    }
  } else {
    node.value = scalar_text(value);
  }
  return node;
}

/// The number at `pointer` in `json`, or `fallback` when it is absent; InputError when it is
/// there but not a number.
double number_at(const Json& json, const char* pointer, const std::string& file, double fallback = 0) {
  const Json::json_pointer at{pointer};
  if (!json.contains(at)) return fallback;
  const Json& value = json.at(at);
  if (!value.is_number()) throw input_error(file, std::string(pointer).substr(1), "a number", scalar_text(value));
  return value.get<double>();
}

std::string string_at(const Json& json, const char* pointer) {
  const Json::json_pointer at{pointer};
  return json.contains(at) ? scalar_text(json.at(at)) : std::string{};
}

std::vector<FailureRow> failure_rows(const Json& breakdown, const std::string& file) {
  std::vector<FailureRow> rows;
  if (!breakdown.is_object() || !breakdown.contains("categories") || !breakdown.contains("reasons")) return rows;
  const auto row_of = [&](const std::string& category, const std::string& reason, const Json& j) {
    const auto get = [&](const char* key) {
      if (!j.contains(key) || !j[key].is_number()) {
        throw input_error(file, fmt::format("failures.breakdown: {}{}", reason.empty() ? category : reason, key),
                          "a number", j.contains(key) ? scalar_text(j[key]) : "nothing");
      }
      return j[key].get<double>();
    };
    return FailureRow{
        category, reason, get("failures"), get("share_of_failures"), get("failed_gpu_hours"), get("share_of_gpu_time")};
  };
  for (const auto& [category, totals] : breakdown["categories"].items()) {
    rows.push_back(row_of(category, "", totals));
    std::vector<FailureRow> reasons;
    for (const auto& [reason, figures] : breakdown["reasons"].items()) {
      if (figures.value("category", "") == category) reasons.push_back(row_of(category, reason, figures));
    }
    std::stable_sort(reasons.begin(), reasons.end(),
                     [](const FailureRow& a, const FailureRow& b) { return a.failed_gpu_hours > b.failed_gpu_hours; });
    rows.insert(rows.end(), reasons.begin(), reasons.end());
  }
  return rows;
}

RunSummaryFile read_summary_json(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw input_error(file, "summary.json", "a readable file", "it cannot be opened");
  std::stringstream text;
  text << in.rdbuf();
  Json json;
  try {
    json = Json::parse(text.str());
  } catch (const Json::parse_error& e) {
    throw input_error(file, "summary.json", "the JSON summary written by acmesim run", e.what());
  }
  if (!json.is_object() || !json.contains("scenario") || !json.contains("overall")) {
    throw input_error(file, "summary.json", "the JSON summary written by acmesim run (with scenario and overall)",
                      json.is_object() ? "an object without them" : scalar_text(json));
  }
  RunSummaryFile summary;
  summary.scenario_name = string_at(json, "/scenario/name");
  summary.trace_path = string_at(json, "/trace/path");
  summary.cluster_gpus = static_cast<std::int64_t>(number_at(json, "/scenario/cluster/nodes", file) *
                                                   number_at(json, "/scenario/cluster/gpus_per_node", file));
  summary.jobs_total = static_cast<std::int64_t>(number_at(json, "/jobs/total", file));
  summary.jobs_ran = static_cast<std::int64_t>(number_at(json, "/jobs/ran", file));
  summary.makespan_s = number_at(json, "/makespan_s", file);
  summary.gpu_allocation_ratio = number_at(json, "/gpu_allocation_ratio", file);
  summary.queue_mean_s = number_at(json, "/overall/queue_s/mean", file);
  summary.jct_mean_s = number_at(json, "/overall/jct_s/mean", file);
  summary.fingerprint = string_at(json, "/fingerprint");
  if (json.contains("by_type") && json["by_type"].is_object()) {
    for (const auto& [type, group] : json["by_type"].items()) {
      TypeGpuHours hours{type, {}};
      if (group.contains("gpu_hours") && group["gpu_hours"].is_object()) {
        for (const auto& [state, value] : group["gpu_hours"].items()) {
          // "total" (and "held", where written) sum the states: not a state of their own.
          if (state == "total" || state == "held" || !value.is_number()) continue;
          hours.by_state.emplace_back(state, value.get<double>());
        }
      }
      summary.gpu_hours.push_back(std::move(hours));
    }
  }
  if (json.contains(Json::json_pointer{"/failures/breakdown"})) {
    summary.failures = failure_rows(json.at(Json::json_pointer{"/failures/breakdown"}), file);
  }
  for (const char* key : {"provenance", "scenario", "trace"}) {
    if (json.contains(key)) summary.provenance.push_back(tree_of(key, json[key]));
  }
  return summary;
}

Timeline read_timeline(const std::string& file) {
  const std::vector<std::string> header = csv_header(file, "timeline (timeline.csv)");
  std::vector<std::string_view> wanted{"elapsed_s"};
  for (const std::string& column : header) {
    if (column != "elapsed_s" && column != "time") wanted.push_back(column);
  }
  wanted.push_back("time");
  std::vector<std::vector<double>> values(wanted.size() - 1);
  // A column of text (one a newer acmesim may add) is left out, not refused: only elapsed_s,
  // the time axis, must be numbers.
  std::vector<bool> numeric(values.size(), true);
  Timeline timeline;
  read_csv(file, "timeline (timeline.csv)", wanted, 1,
           [&](std::span<const std::string_view> cells, const std::string& at) {
             for (std::size_t c = 0; c < values.size(); ++c) {
               if (!numeric[c]) continue;
               try {
                 values[c].push_back(number_or_empty(cells[c], at, wanted[c]).value_or(std::nan("")));
               } catch (const InputError&) {
                 if (c == 0) throw;
                 numeric[c] = false;
               }
             }
             timeline.times.emplace_back(cells.back());
           });
  for (std::size_t c = 0; c < values.size(); ++c) {
    if (!numeric[c]) continue;
    timeline.columns.emplace_back(wanted[c]);
    timeline.values.push_back(std::move(values[c]));
  }
  return timeline;
}

std::vector<JobRecord> read_jobs(const std::string& file) {
  std::vector<JobRecord> jobs;
  const std::vector<std::string_view> wanted{"type", "queue", "jct", "gpu_num", "duration", "outcome"};
  read_csv(file, "jobs file (jobs.csv)", wanted, 4,
           [&](std::span<const std::string_view> cells, const std::string& at) {
             // Only jobs that started have a queueing delay; unschedulable and unstarted rows have none.
             if ((!cells[5].empty() && cells[5] != "ran") || cells[1].empty()) return;
             JobRecord job;
             job.type = std::string(cells[0]);
             job.queue_s = number(cells[1], at, "queue");
             job.jct_s = number(cells[2], at, "jct");
             job.gpus = static_cast<int>(number(cells[3], at, "gpu_num"));
             job.duration_s = number_or_empty(cells[4], at, "duration").value_or(job.jct_s - job.queue_s);
             jobs.push_back(std::move(job));
           });
  return jobs;
}

}  // namespace

std::string_view name(OutputDirKind kind) {
  switch (kind) {
    case OutputDirKind::Run:
      return "run";
    case OutputDirKind::Compare:
      return "compare";
    case OutputDirKind::Sweep:
      return "sweep";
  }
  return "?";
}

OutputDirKind detect_output_dir(const std::string& path) {
  const fs::path dir{path};
  std::error_code ec;
  const fs::file_status status = fs::status(dir, ec);
  if (!fs::exists(status)) throw input_error(path, "report folder", kKinds, "no such file or directory");
  if (!fs::is_directory(status)) {
    throw input_error(path, "report folder", kKinds, fs::is_regular_file(status) ? "a file" : "not a folder");
  }
  if (has_file(dir, "summary.json")) return OutputDirKind::Run;
  if (has_file(dir, "compare.csv")) return OutputDirKind::Compare;
  if (has_file(dir, "summary.csv")) return OutputDirKind::Sweep;
  if (has_file(dir, "results.csv") || has_file(dir, "journal")) {
    throw input_error(path, "report folder",
                      "a sweep folder with summary.csv (`acmesim sweep --summarize DIR` writes it from results.csv)",
                      listing(dir));
  }
  if (has_file(dir, "jobs.csv") || has_file(dir, "timeline.csv")) {
    throw input_error(path, "report folder",
                      "a run folder with summary.json (acmesim run writes it last: without it the run did not finish)",
                      listing(dir));
  }
  throw input_error(path, "report folder", kKinds, listing(dir));
}

std::vector<std::string> run_dirs_in(const std::string& path) {
  std::vector<std::string> dirs;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    if (entry.is_directory() && has_file(entry.path(), "summary.json")) dirs.push_back(entry.path().string());
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

const std::vector<double>* Timeline::column(std::string_view name) const {
  for (std::size_t c = 0; c < columns.size(); ++c) {
    if (columns[c] == name) return &values[c];
  }
  return nullptr;
}

RunDir load_run_dir(const std::string& path) {
  const fs::path dir{path};
  if (!has_file(dir, "summary.json")) {
    throw input_error(path, "report folder",
                      "a run folder with summary.json (acmesim run writes it last: without it the run did not finish)",
                      fs::is_directory(dir) ? listing(dir) : "no such folder");
  }
  RunDir run;
  run.path = path;
  run.summary = read_summary_json((dir / "summary.json").string());
  if (has_file(dir, "timeline.csv")) run.timeline = read_timeline((dir / "timeline.csv").string());
  if (has_file(dir, "jobs.csv")) run.jobs = read_jobs((dir / "jobs.csv").string());
  return run;
}

CompareTable load_compare_dir(const std::string& path) {
  const std::string file = (fs::path(path) / "compare.csv").string();
  const std::vector<std::string> header = csv_header(file, "compare table (compare.csv)");
  std::vector<std::string_view> wanted{"scheduler", "placement", "type"};
  CompareTable table;
  table.path = path;
  // The metrics: every column after the three keys but the run's fingerprint (not a number).
  for (const std::string& column : header) {
    if (column == "scheduler" || column == "placement" || column == "type" || column == "fingerprint") continue;
    wanted.push_back(column);
    table.metrics.push_back(column);
  }
  read_csv(file, "compare table (compare.csv)", wanted, 3,
           [&](std::span<const std::string_view> cells, const std::string& at) {
             CompareTable::Row row;
             row.variant = fmt::format("{} + {}", cells[0], cells[1]);
             row.type = std::string(cells[2]);
             for (std::size_t c = 3; c < cells.size(); ++c)
               row.values.push_back(number_or_empty(cells[c], at, wanted[c]));
             table.rows.push_back(std::move(row));
           });
  return table;
}

std::vector<std::string> SweepSummary::metrics() const {
  std::vector<std::string> names;
  for (const Row& row : rows) {
    if (std::find(names.begin(), names.end(), row.metric) == names.end()) names.push_back(row.metric);
  }
  return names;
}

SweepSummary load_sweep_dir(const std::string& path) {
  const std::string file = (fs::path(path) / "summary.csv").string();
  const std::vector<std::string> header = csv_header(file, "sweep summary (summary.csv)");
  const auto metric_at = std::find(header.begin(), header.end(), "metric");
  SweepSummary summary;
  summary.path = path;
  // The axes: the columns between `point` (the point's number, not an axis) and `metric`.
  const auto first_axis = !header.empty() && header.front() == "point" ? header.begin() + 1 : header.begin();
  if (metric_at != header.end()) summary.axes.assign(first_axis, metric_at);
  std::vector<std::string_view> wanted{"metric", "seeds", "mean", "ci95_low", "ci95_high"};
  wanted.insert(wanted.end(), summary.axes.begin(), summary.axes.end());
  read_csv(file, "sweep summary (summary.csv)", wanted, 5,
           [&](std::span<const std::string_view> cells, const std::string& at) {
             SweepSummary::Row row;
             row.metric = std::string(cells[0]);
             row.seeds = static_cast<int>(number(cells[1], at, "seeds"));
             row.mean = number_or_empty(cells[2], at, "mean");
             row.ci95_low = number_or_empty(cells[3], at, "ci95_low");
             row.ci95_high = number_or_empty(cells[4], at, "ci95_high");
             for (std::size_t c = 5; c < cells.size(); ++c) row.axis_values.emplace_back(cells[c]);
             summary.rows.push_back(std::move(row));
           });
  return summary;
}

}  // namespace acmesim
