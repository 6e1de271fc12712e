#pragma once
/// `acmesim sweep`: a study as one command (docs/studies.md). Every (point, seed) of a sweep file
/// runs on a pool of threads, and under MPI on every rank (tools/sweep_mpi.cpp); each finished
/// run is committed to DIR/journal before it counts, so a sweep killed at any moment resumes with
/// only the missing runs, and results.csv is the same whatever the threads, ranks or kills.
#include <spdlog/logger.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "io/acme_trace.hpp"
#include "io/sweep_file.hpp"
#include "io/sweep_results.hpp"
#include "sim/policy_api/catalog.hpp"

namespace acmesim {

/// A sweep ready to run: its points (validated), the traces its runs read (each read once and
/// shared read-only by every run), and how to run one.
class SweepRuns {
 public:
  /// Expands and validates `sweep` (InputError placed in the sweep file, before anything runs).
  SweepRuns(SweepFile sweep, const Catalog& catalog);

  const SweepFile& sweep() const { return sweep_; }
  /// The command that runs the sweep, written into each kept run's summary.json.
  void set_command_line(std::string command_line) { command_line_ = std::move(command_line); }
  const std::string& command_line() const { return command_line_; }
  const std::vector<SweepPoint>& points() const { return points_; }
  /// Every run, point by point, seeds in the file's order.
  std::vector<RunKey> all_runs() const;
  /// A hash of sweep_plan_text(): the identity of the plan a journal belongs to.
  std::string plan_hash() const;
  std::string plan_text() const { return sweep_plan_text(sweep_, points_); }
  /// results.csv's metric columns: a run's (run_metric_names()) or an evaluation run's.
  const std::vector<std::string>& metric_names() const;

  /// Reads the distinct traces of `runs` (once each), logging each on `log`, and prices each run.
  void read_traces(const std::vector<RunKey>& runs, spdlog::logger& log);
  /// The relative cost of a run, to hand out the longest first: the jobs of its trace times a
  /// weight of its scheduler (docs/studies.md, "On a cluster"). Needs read_traces() of the run.
  double expected_cost(RunKey key) const;
  /// The traces read_traces() has read, by path (provenance.json).
  std::vector<const Trace*> traces() const;
  /// Runs one (point, seed) and returns its results.csv row; writes the kept outputs under
  /// `out`/runs/<point>-s<seed>/. Safe to call from several threads at once.
  std::string run(RunKey key, const std::string& out) const;

 private:
  /// The scenario of a run (for an eval-cluster sweep, its file's scenario).
  Scenario scenario_of(RunKey key) const;
  const Trace& trace_of(const Scenario& scenario) const;
  std::string run_scenario(RunKey key, const std::string& out) const;
  std::string run_eval_cluster(RunKey key) const;

  SweepFile sweep_;
  const Catalog& catalog_;
  std::string command_line_ = "acmesim sweep";
  std::vector<SweepPoint> points_;
  std::map<std::pair<std::string, bool>, Trace> traces_;  // (path, skip_bad_rows)
  std::map<RunKey, double> costs_;                        // expected_cost() of the runs read for
  mutable std::mutex parse_mutex_;  // scenarios are read one at a time (yaml-cpp), runs in parallel
};

/// A queue of runs that worker threads take from; pop() waits until a run comes or the queue is
/// closed and empty. O(1) per operation.
class RunQueue {
 public:
  void push(RunKey key);
  /// No more runs will come: waiting pops end once the queue is empty.
  void close();
  std::optional<RunKey> pop();
  std::optional<RunKey> try_pop();

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<RunKey> runs_;
  bool closed_ = false;
};

/// Threads that take runs from a RunQueue, run them and hand each row to `done` (called on the
/// worker thread). A run that throws stops the pool: the queue is drained and join() rethrows.
class RunPool {
 public:
  using Done = std::function<void(RunKey, std::string row)>;
  RunPool(const SweepRuns& runs, std::string out, unsigned threads, RunQueue& queue, Done done);
  ~RunPool();
  RunPool(const RunPool&) = delete;
  RunPool& operator=(const RunPool&) = delete;
  /// Waits for every thread; rethrows the first error of a run.
  void join();
  /// A run threw: the pool is stopping.
  bool failed() const { return failed_; }

 private:
  std::vector<std::thread> threads_;
  std::vector<std::exception_ptr> errors_;
  std::atomic<bool> failed_{false};
};

/// Other processes that take runs from this one (rank 0 of an MPI job): tools/sweep_mpi.cpp.
class RemoteWorkers {
 public:
  virtual ~RemoteWorkers() = default;
  /// Serves what has arrived, without waiting: a request for work gets `take()` (no more: the rank
  /// is told to stop), a finished run goes to `done`. Returns whether anything arrived.
  virtual bool serve(const std::function<std::optional<RunKey>()>& take,
                     const std::function<void(RunKey, std::string)>& done) = 0;
  /// Every other rank has been told to stop and has returned every run it was given.
  virtual bool finished() const = 0;
};

struct SweepOptions {
  std::string out;       // the sweep directory
  unsigned threads = 0;  // per process; 0: one per hardware thread
  /// Called on the coordinating thread after each finished run (done, total, this sweep's runs so far).
  std::function<void(std::size_t done, std::size_t total, std::size_t done_now)> on_progress;
};

/// What a finished sweep did.
struct SweepReport {
  std::size_t runs = 0;     // in the plan
  std::size_t resumed = 0;  // already in the journal
  std::size_t ran = 0;      // run now
  std::size_t dropped = 0;  // torn journal lines dropped (then run again)
};

/// Runs the runs of `runs` missing from OUT/journal on this process's threads and on `remote`'s
/// ranks (none: nullptr), then writes OUT/results.csv. The coordinating thread is the caller's.
SweepReport run_sweep(SweepRuns& runs, const SweepOptions& options, RemoteWorkers* remote, spdlog::logger& log);

/// One point's aggregate of one metric over its seeds.
struct MetricSummary {
  std::size_t n = 0;  // seeds with a value
  double mean = 0, sd = 0;
  double ci_low = 0, ci_high = 0;  // 95 % Student t interval; only when n >= 2
};
/// Mean, sample standard deviation and the 95 % Student t confidence interval of `values`.
MetricSummary summarize_metric(const std::vector<double>& values);

/// `sweep --summarize`: aggregates DIR/results.csv per point into DIR/summary.csv and returns the
/// compact table of `shown` metrics (empty: the default few) for a terminal.
std::string summarize_sweep(const std::string& dir, const std::vector<std::string>& shown);

/// Rows of cells as a terminal table: columns padded to their widest cell (in characters, not
/// bytes), two spaces apart, no trailing blanks.
std::string aligned_table(const std::vector<std::vector<std::string>>& rows);

}  // namespace acmesim
