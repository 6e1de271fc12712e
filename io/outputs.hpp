#pragma once
/// The only writer of run outputs: DIR/jobs.csv, DIR/timeline.csv, DIR/summary.json, and the
/// short table printed after a run. Outputs hold no wall-clock figures, so the same inputs and
/// seed give byte-identical files.
#include <functional>
#include <string>

#include "io/acme_trace.hpp"
#include "io/scenario.hpp"
#include "sim/metrics/summary.hpp"
#include "sim/run/simulation.hpp"

namespace acmesim {

/// The acmesim version written into summary.json.
std::string acmesim_version();

enum class JobsCsvColumns {
  TraceOnly,   // exactly the 13 columns of trace_seren.csv: a trace others can replay
  WithExtras,  // plus jct and outcome (ran, unschedulable, unstarted)
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

/// Writes the files `which` names into `dir` (created if missing).
/// `on_jobs_written`, if set, is called with the jobs.csv rows written so far about every 1 MiB.
void write_outputs(const std::string& dir, const Scenario& scenario, const Trace& trace, const RunResult& result,
                   const RunSummary& summary, const std::function<void(std::size_t rows)>& on_jobs_written = {},
                   RunOutputs which = {});

/// The human summary: one row per job type plus totals.
std::string summary_table(const Scenario& scenario, const Trace& trace, const RunResult& result,
                          const RunSummary& summary);

}  // namespace acmesim
