#pragma once
/// `acmesim report`: one self-contained HTML page of charts for the output folders of `acmesim
/// run`, `compare` and `sweep` (docs/usage.md "Report"). The folders are read by io/run_dir, the
/// charts assembled here from what was read, the page written by io/report_html.
///
/// - One run folder: the cluster over time, the queueing-delay, JCT and run-time CDFs per job type
///   (with the paper's CDFs of Seren or Kalos beside them when the run is of one of them),
///   GPU-hours by job type and final state, the failures in the paper's Table 3 layout, and
///   where it came from (summary.json's scenario, trace and provenance).
/// - Several run folders, or a compare folder: the same figures side by side, one colour per run;
///   compare.csv's figures as grouped bars per variant.
/// - A sweep folder: each chosen metric against each axis, one line per value of the other
///   axes, with the seeds' 95 % confidence band.
#include <spdlog/logger.h>

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "io/reference.hpp"
#include "io/report_html.hpp"
#include "io/run_dir.hpp"

namespace acmesim {

/// The empirical CDF of `values` (percent of values <= x at each x), cut to at most `max_points`
/// points that keep its shape on a log x axis: half spaced evenly in percent, half evenly in
/// log x, always the first and the last. Empty for no values.
std::vector<std::pair<double, double>> cdf_points(std::vector<double> values, std::size_t max_points);

/// The paper's per-type CDFs of one cluster (the stats references, configs/reference/*.yaml).
struct PaperCdfs {
  std::string cluster;          // "Seren" or "Kalos"
  std::string duration_figure;  // "AcmeTrace T4" ...
  std::string queue_figure;
  struct TypeCdf {
    std::string type;
    std::vector<std::pair<double, double>> points;  // (seconds, percent)
    bool quantiles_only = false;                    // no CDF points: the quantiles (p50 ...) drawn as points
  };
  std::vector<TypeCdf> duration;
  std::vector<TypeCdf> queue;
};

/// The per-type duration and queue CDFs of a reference (keys TYPE.duration_cdf.X, or TYPE.duration_pN
/// when there is no CDF; the same for queue).
PaperCdfs paper_cdfs(const ReferenceRow& reference, const std::string& cluster);

/// "seren" or "kalos" when the run is of that cluster (its scenario name or trace file names it,
/// else its GPU count is the cluster's: 2,288 or 2,416), "" otherwise.
std::string paper_cluster_of(const RunSummaryFile& summary);

/// The page of one run folder, or of several side by side (`labels`: one per run).
ReportPage run_report(const std::vector<RunDir>& runs, const std::vector<std::string>& labels,
                      const std::optional<PaperCdfs>& paper);
/// compare.csv's `metrics` as grouped bars (one colour per variant), added as a section.
Section compare_section(const CompareTable& table, const std::vector<std::string>& metrics);
/// compare.csv's metrics a report shows unless told (`--metrics`).
std::vector<std::string> default_compare_metrics();
/// The page of a sweep folder: each of `metrics` against each axis.
ReportPage sweep_report(const SweepSummary& sweep, const std::vector<std::string>& metrics);
/// The sweep metrics a report shows unless told (`--metrics`): of those the summary has values for.
std::vector<std::string> default_sweep_metrics(const SweepSummary& sweep);

struct ReportArgs {
  std::vector<std::string> dirs;
  std::string out;  // default: DIR/report.html for one folder
  std::string vega = kDebianVegaPath;
  std::vector<std::string> metrics;  // sweep or compare metrics; empty: the defaults
  std::string reference = "auto";    // auto, seren, kalos or none
};

/// The command: detects each folder's kind, reads them, writes the page. Returns the exit code;
/// InputError for a folder it cannot read, a mix it cannot show on one page, or no Vega library.
/// `reference_dir` holds the bundled references (configs/reference).
int run_report_command(const ReportArgs& args, const std::string& reference_dir, spdlog::logger& log);

}  // namespace acmesim
