#pragma once
/// The only writer of run outputs: DIR/jobs.csv, DIR/timeline.csv, DIR/summary.json, and the
/// short table printed after a run. Outputs hold no wall-clock figures, so the same inputs and
/// seed give byte-identical files.
#include <array>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "io/acme_trace.hpp"
#include "io/scenario.hpp"
#include "sim/metrics/summary.hpp"
#include "sim/run/simulation.hpp"

namespace acmesim {

class TextBuffer;

/// The acmesim version written into summary.json.
std::string acmesim_version();
/// The commit acmesim was built from ("0123456789ab", with "-dirty" if the tree had changes),
/// or "unknown".
std::string acmesim_git_revision_text();

/// How a run was made: summary.json's "provenance" and "scenario". With the trace's SHA-256
/// (in Trace) it is enough to make the run again.
struct Provenance {
  std::string command_line;            // as typed, each argument shell-quoted if it needs it
  std::vector<std::string> overrides;  // KEY=VALUE as given (--set, --seed, a sweep point's axes)
  std::string scenario_yaml;           // resolved_scenario_yaml(): every value, defaults filled in

  /// The first 12 hex digits of the resolved scenario's SHA-256: equal for runs that would
  /// produce the same outputs from the same trace.
  std::string scenario_id() const;
};

/// provenance.json of a command that writes several runs' figures (compare, sweep): how it was
/// run, by which build, on which traces (path, schema, rows, SHA-256).
std::string provenance_json(const std::string& command_line, const std::vector<std::string>& overrides,
                            const std::vector<const Trace*>& traces);
inline std::string provenance_json(const std::string& command_line, const std::vector<std::string>& overrides,
                                   const Trace& trace) {
  return provenance_json(command_line, overrides, std::vector<const Trace*>{&trace});
}

/// `argv` as one line a shell would read back to the same arguments.
std::string shell_command_line(int argc, const char* const* argv);

enum class JobsCsvColumns {
  TraceOnly,   // exactly the 13 columns of trace_seren.csv: a trace others can replay
  WithExtras,  // plus jct and outcome (ran, unschedulable, unstarted)
};

/// jobs.csv, written by one thread while others may help format it: its rows are formatted in
/// blocks of kRowsPerBlock, taken in order by whichever thread asks first (the writer's or a
/// helper's), and written in order by the writer's. The bytes are the same however many threads
/// help, and whether a block's rows came during the run or after it.
///
/// Two ways to use it:
/// - after a run: construct it with the RunResult, then write() (and help() from other threads);
/// - during a run (`run`): construct it without one, start write() on a thread of its own, give it
///   to the simulation as SimulationOptions::settled, then finish() with the result. The writer
///   formats and writes each block as soon as its jobs have all settled, on a core the event loop
///   leaves idle; it renames the file into place only after finish(), so nothing replaces a
///   previous jobs.csv before the run is over. A run that fails calls abandon(): write() then
///   throws, and its temporary file is removed.
///
/// Memory: the blocks formatted but not yet written (about 2 MiB each), and the settled jobs'
/// statuses copied until formatted (1.2 MiB a block; at most kMaxCopiedBlocks: past that, as
/// when the disk is slow, the rest of the rows wait for finish()). settled() costs a copy of
/// each status, O(1) per job.
class JobsCsvWriter final : public SettledJobs {
 public:
  static constexpr std::size_t kRowsPerBlock = 8192;
  static constexpr std::size_t kMaxCopiedBlocks = 16;

  /// During a run: rows come from settled(), and the rest from finish().
  JobsCsvWriter(std::string path, const Trace& trace, JobsCsvColumns columns);
  /// After a run: every row from `result`.
  JobsCsvWriter(std::string path, const Trace& trace, const RunResult& result, JobsCsvColumns columns);
  ~JobsCsvWriter() override;
  JobsCsvWriter(const JobsCsvWriter&) = delete;
  JobsCsvWriter& operator=(const JobsCsvWriter&) = delete;

  /// From the simulation's thread (SettledJobs): copies the statuses into the current block and
  /// hands a complete block to the writer.
  void settled(std::size_t first, std::span<const JobStatus> statuses) override;
  /// The run is over: the rows not given yet come from `result`, which must outlive write().
  void finish(const RunResult& result);
  /// The run failed: write() stops and throws, removing its temporary file. noexcept, for a
  /// catch block.
  void abandon() noexcept;

  /// Formats and writes the file; `on_rows`, if set, is called with the rows written so far
  /// after each block written once finish() was called (so that a caller can report progress
  /// from then on). InputError if the file cannot be written (it is then removed).
  void write(const std::function<void(std::size_t rows)>& on_rows = {});
  /// From another thread, once finished: formats blocks not yet taken until none is left, then
  /// returns (at once if the writer has taken them all).
  void help();
  /// Rows written so far, from any thread.
  std::size_t rows_written() const;
  /// Rows written when finish() was called (for the log).
  std::size_t rows_written_before_finish() const { return rows_before_finish_; }

 private:
  bool format_next_block();  // false when none is left to take
  /// Waits until block `block` can be formatted (its statuses copied, or the run finished);
  /// false if abandoned.
  bool wait_until_formattable(std::size_t block);
  std::size_t rows_in(std::size_t block) const;

  std::string path_;
  const Trace& trace_;
  bool extras_;
  std::size_t blocks_;
  std::atomic<std::size_t> next_block_{0};
  std::vector<std::unique_ptr<TextBuffer>> formatted_;  // a block's text until it is written
  std::vector<std::atomic<bool>> done_;                 // set once formatted_[block] is complete

  // The simulation's thread only.
  std::vector<JobStatus> filling_;  // statuses of the block being copied
  std::size_t filling_block_ = 0;
  bool copying_ = true;  // false once a block was left to finish(): so are all after it

  // Shared, under mutex_.
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::unique_ptr<std::vector<JobStatus>>> copied_;  // by block, until formatted
  std::size_t copied_blocks_ = 0;                                // copied and not yet formatted
  const RunResult* result_ = nullptr;                            // set by finish()
  bool abandoned_ = false;
  std::size_t rows_written_ = 0;        // by write()'s thread
  std::size_t rows_before_finish_ = 0;  // rows_written_ when finish() was called
};

/// One row per job in JobId order, the 13 AcmeTrace columns first, with the simulated values.
void write_jobs_csv(const std::string& path, const Trace& trace, const RunResult& result, JobsCsvColumns columns,
                    const std::function<void(std::size_t rows)>& on_rows = {});

/// Which of the three files a run writes (`run` writes all; a sweep keeps what it is told to).
struct RunOutputs {
  bool jobs = true;
  bool timeline = true;
  bool summary = true;
  bool any() const { return jobs || timeline || summary; }
};

/// summary.json's text.
std::string summary_json(const Provenance& provenance, const Scenario& scenario, const Trace& trace,
                         const RunResult& result, const RunSummary& summary);

/// The steps of write_outputs, in their order, for a caller that overlaps them with other work
/// (`run` computes the summaries while another thread writes jobs.csv and timeline.csv):
/// prepare_outputs creates `dir` and removes its summary.json, the marker of a complete run;
/// write_run_files writes jobs.csv and timeline.csv (as `which` says); write_summary_file
/// writes summary.json, which must come last.
void prepare_outputs(const std::string& dir);
/// Creates `dir` if missing (prepare_outputs() does too), and nothing else: a JobsCsvWriter
/// writes its temporary file there during the run, before the previous outputs are touched.
void create_output_dir(const std::string& dir);

/// The previous run's jobs.csv and timeline.csv in `dir`, moved aside (renamed to hidden names,
/// which is cheap) so that writing the new ones ends with a rename over nothing: replacing a
/// file of 200 MB makes the kernel free its cached pages then, about 50 ms. discard() deletes
/// them, paying that on a thread that has nothing else to do (`run`'s main thread, once the
/// rows are all formatted); the destructor does if it was not called, and so does an interrupt
/// (remove_partial_outputs()). A copy left by a run killed with SIGKILL is deleted by the next
/// run into the folder. Call after prepare_outputs() has removed summary.json: the folder is
/// marked incomplete already.
class PreviousOutputs {
 public:
  explicit PreviousOutputs(const std::string& dir);
  ~PreviousOutputs() { discard(); }
  PreviousOutputs(const PreviousOutputs&) = delete;
  PreviousOutputs& operator=(const PreviousOutputs&) = delete;
  void discard() noexcept;

 private:
  // Room for both names from the start: the signal handler's table points into these strings.
  std::array<std::string, 2> moved_;
  std::array<int, 2> listed_{-1, -1};
};
void write_run_files(const std::string& dir, const Scenario& scenario, const Trace& trace, const RunResult& result,
                     const std::function<void(std::size_t rows)>& on_jobs_written = {}, RunOutputs which = {});
/// timeline.csv: one row per sample of the run's timeline.
void write_timeline_csv(const std::string& path, const Trace& trace, const RunResult& result, int total_gpus);
void write_summary_file(const std::string& dir, const Provenance& provenance, const Scenario& scenario,
                        const Trace& trace, const RunResult& result, const RunSummary& summary);

/// Writes the files `which` names into `dir` (created if missing).
/// `on_jobs_written`, if set, is called with the jobs.csv rows written so far about every 1 MiB.
void write_outputs(const std::string& dir, const Provenance& provenance, const Scenario& scenario, const Trace& trace,
                   const RunResult& result, const RunSummary& summary,
                   const std::function<void(std::size_t rows)>& on_jobs_written = {}, RunOutputs which = {});

/// The scenario id recorded in DIR/summary.json (Provenance::scenario_id), "" if DIR has no
/// summary.json, or "?" if it has one that names none (a damaged file, or one from before
/// provenance was recorded).
std::string recorded_scenario_id(const std::string& dir);

/// The human summary: one row per job type plus totals.
std::string summary_table(const Scenario& scenario, const Trace& trace, const RunResult& result,
                          const RunSummary& summary);

}  // namespace acmesim
