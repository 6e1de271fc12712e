#pragma once
/// The output folders `acmesim report` reads back, as value types: a run folder (`acmesim run`:
/// summary.json, timeline.csv, jobs.csv), a compare folder (`acmesim compare`: compare.csv) and a
/// sweep folder (`acmesim sweep`: summary.csv). Columns are found by header name, so a file with
/// more columns than these readers know (a newer acmesim) still reads; CSV through the one CSV
/// reader (io/csv_reader.hpp). Every problem is an InputError naming the file, what was expected
/// and what was found.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace acmesim {

/// What a folder given to `acmesim report` holds, told by its files.
enum class OutputDirKind : std::uint8_t { Run, Compare, Sweep };
std::string_view name(OutputDirKind kind);

/// The kind of the output folder `path`: summary.json makes a run folder, compare.csv a compare
/// folder, results.csv or summary.csv (with plan.txt or journal) a sweep folder. InputError when
/// `path` does not exist, is not a folder, or holds none of them (a run killed before its
/// summary.json was written is named as such); the message lists what the folder does hold.
OutputDirKind detect_output_dir(const std::string& path);

/// The subfolders of `path` that are run folders (hold summary.json), sorted by name: the
/// per-variant runs a compare folder may hold.
std::vector<std::string> run_dirs_in(const std::string& path);

/// A JSON value as nested key/value pairs, for showing any object without knowing its fields:
/// a scalar has a `value` (its JSON text, strings unquoted), an object or array `children`
/// (array items keyed by index; an array of scalars is one value, comma-separated).
struct KeyValueTree {
  std::string key;
  std::string value;
  std::vector<KeyValueTree> children;
};

/// timeline.csv: every numeric column by its header name, elapsed_s first, then in file order
/// (`time` kept as text; a column of other text left out).
struct Timeline {
  std::vector<std::string> columns;
  std::vector<std::vector<double>> values;  // per column, one value per row
  std::vector<std::string> times;           // the `time` column
  /// The column named `name`, or nullptr.
  const std::vector<double>* column(std::string_view name) const;
};

/// One job of jobs.csv that started: what the report's distributions need.
struct JobRecord {
  std::string type;
  double queue_s = 0;
  double jct_s = 0;
  double duration_s = 0;  // run time: end - start
  int gpus = 0;
};

/// GPU-hours of one job type by final state (summary.json by_type.TYPE.gpu_hours, no total).
struct TypeGpuHours {
  std::string type;
  std::vector<std::pair<std::string, double>> by_state;  // file order
};

/// One row of the failure breakdown (summary.json failures.breakdown), in the paper's Table 3
/// layout: a category's total row, then its reasons by failed GPU time, largest first.
struct FailureRow {
  std::string category;
  std::string reason;  // empty on a category's total row
  double failures = 0;
  double share_of_failures = 0;  // fraction
  double failed_gpu_hours = 0;
  double share_of_gpu_time = 0;  // fraction
};

/// What the report shows of a summary.json.
struct RunSummaryFile {
  std::string scenario_name;
  std::string trace_path;
  std::int64_t cluster_gpus = 0;  // nodes x gpus_per_node, 0 if not given
  std::int64_t jobs_total = 0;
  std::int64_t jobs_ran = 0;
  double makespan_s = 0;
  double gpu_allocation_ratio = 0;
  double queue_mean_s = 0;  // overall
  double jct_mean_s = 0;    // overall
  std::string fingerprint;
  std::vector<TypeGpuHours> gpu_hours;
  std::vector<FailureRow> failures;  // empty when the run had none
  /// `scenario`, `trace` and (when present) `provenance`, as they are in the file.
  std::vector<KeyValueTree> provenance;
};

struct RunDir {
  std::string path;
  RunSummaryFile summary;
  std::optional<Timeline> timeline;            // absent when the run wrote no timeline.csv
  std::optional<std::vector<JobRecord>> jobs;  // absent when the run wrote no jobs.csv
};

/// Reads a run folder: summary.json (required), timeline.csv and jobs.csv (when present).
RunDir load_run_dir(const std::string& path);

/// compare.csv: one row per variant and job type, every numeric column by name.
struct CompareTable {
  std::string path;
  std::vector<std::string> metrics;  // the numeric columns, in file order
  struct Row {
    std::string variant;                        // "scheduler + placement"
    std::string type;                           // a job type or "all"
    std::vector<std::optional<double>> values;  // per metric; empty cells are nullopt
  };
  std::vector<Row> rows;
};
CompareTable load_compare_dir(const std::string& path);

/// summary.csv of a sweep (long format): per point and metric, the seeds' statistics.
struct SweepSummary {
  std::string path;
  std::vector<std::string> axes;  // the columns between `point` and `metric`
  struct Row {
    std::vector<std::string> axis_values;  // as written, per axis
    std::string metric;
    int seeds = 0;
    std::optional<double> mean;
    std::optional<double> ci95_low;
    std::optional<double> ci95_high;
  };
  std::vector<Row> rows;
  /// The metric names in order of first appearance.
  std::vector<std::string> metrics() const;
};
SweepSummary load_sweep_dir(const std::string& path);

}  // namespace acmesim
