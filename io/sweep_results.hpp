#pragma once
/// The files of a sweep directory (docs/studies.md "Outputs"):
///
/// - results.csv: one row per run, sorted by point and seed: `point`, one column per axis, `seed`,
///   then the run's metrics (sweep_metric_names()). Cells hold no wall-clock figure, so the file
///   is the same whatever the number of threads or ranks and the order runs finished in.
/// - journal: every finished run, appended and flushed to the disk (fdatasync) as it finishes,
///   under a header naming the plan; each line carries its own checksum, so a line torn by a kill
///   is recognised and dropped. It is what a re-run of the same sweep resumes from.
/// - summary.csv: per point and metric, the seeds' mean, standard deviation and 95 % confidence
///   interval (long format: one row per point and metric).
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "io/sweep_file.hpp"
#include "sim/metrics/summary.hpp"
#include "sim/run/simulation.hpp"

namespace acmesim {

/// The metric columns of a run sweep's results.csv, after `seed`: per group (all, then each job
/// type) job count and queueing delay and JCT mean/median/p95/p99; then GPU allocation,
/// makespan, interruptions, failure and recovery figures, ETTR, events and the fingerprint.
const std::vector<std::string>& run_metric_names();
/// One run's cells of those columns, each after a comma. An empty cell is a figure that does not
/// exist (a job type with no jobs; ETTR of a run without the group). `scenario_id` names the
/// run's resolved scenario (Provenance::scenario_id; DIR/scenarios/ID.yaml holds it).
std::string run_metric_cells(const RunSummary& summary, const RunResult& result, const std::string& scenario_id);

/// results.csv's header line (with its newline): point, the axes, seed, `metrics`.
std::string sweep_results_header(const SweepFile& sweep, const std::vector<std::string>& metrics);

/// One run's row of results.csv (without a newline): its point, axis values, seed, then
/// `metric_cells` (each after a comma).
std::string sweep_result_row(const SweepPoint& point, std::uint64_t seed, const std::string& metric_cells);

/// Identifies one run of a sweep: its point and seed.
struct RunKey {
  std::size_t point = 0;
  std::uint64_t seed = 0;
  auto operator<=>(const RunKey&) const = default;
};

/// DIR/journal: the append-only record of finished runs. Thread-safe: runs finishing on several
/// threads append under one mutex. Each append is one write and one fdatasync (a run takes
/// far longer than that), so a run reported finished survives a kill or a power loss.
class SweepJournal {
 public:
  /// Opens DIR/journal for the plan whose hash is `plan`, creating DIR and the journal if needed.
  /// A journal of another plan is an InputError (a changed sweep file, an old DIR): it is never
  /// mixed with this one. A torn or damaged tail (a kill mid-append) is cut off.
  SweepJournal(const std::string& dir, const std::string& plan);
  ~SweepJournal();
  SweepJournal(const SweepJournal&) = delete;
  SweepJournal& operator=(const SweepJournal&) = delete;

  /// The rows of the runs already finished, by run.
  const std::map<RunKey, std::string>& rows() const { return rows_; }
  /// How many lines were dropped when it was opened (0, or 1 after a kill mid-append).
  std::size_t dropped() const { return dropped_; }
  /// Records a finished run: written and flushed to the disk before it returns.
  void append(RunKey key, const std::string& row);

 private:
  std::string path_;
  int fd_ = -1;
  std::mutex mutex_;
  std::map<RunKey, std::string> rows_;
  std::size_t dropped_ = 0;
};

/// Writes DIR/results.csv from `rows` (every run of the plan), sorted by point and seed.
void write_sweep_results(const std::string& dir, const SweepFile& sweep, const std::vector<std::string>& metrics,
                         const std::map<RunKey, std::string>& rows);

/// results.csv as read back: its header, and per row its cells as text.
struct ResultsTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};
/// Reads a results.csv (for `sweep --summarize`); InputError naming the line of any malformed row.
ResultsTable read_sweep_results(const std::string& path);

}  // namespace acmesim
