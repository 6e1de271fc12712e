#pragma once
/// `acmesim compare`: one trace, several scheduler x placement variants, one table.
#include <spdlog/logger.h>

#include <cstdint>
#include <string>
#include <vector>

#include "io/acme_trace.hpp"
#include "io/outputs.hpp"
#include "io/scenario.hpp"
#include "sim/metrics/summary.hpp"
#include "sim/policy_api/catalog.hpp"

namespace acmesim {

struct CompareVariant {
  std::string scheduler;
  std::string placement;
};

/// What one variant produced: everything the table shows, nothing that grows with the trace.
struct CompareOutcome {
  CompareVariant variant;
  RunSummary summary;
  std::string fingerprint;
  std::uint64_t events = 0;
  std::uint64_t unstarted = 0;
  double wall_seconds = 0;    // printed, never written
  std::string scenario_yaml;  // the variant's resolved scenario (resolved_scenario_yaml)

  /// Provenance::scenario_id of the variant: compare.csv's column, DIR/scenarios/ID.yaml.
  std::string scenario_id() const { return Provenance{{}, {}, scenario_yaml}.scenario_id(); }
};

/// Every scheduler x placement pair, in that order; an empty list stands for the scenario's own.
/// Each is built once from `catalog`, so an unknown name is an InputError before any trace is read.
std::vector<CompareVariant> compare_variants(const Scenario& scenario, const Catalog& catalog,
                                             std::vector<std::string> schedulers, std::vector<std::string> placements);

/// Runs every variant on `trace` (shared read-only) in up to `threads` threads. Outcomes come
/// back in the order of `variants`, whatever the number of threads; each is what a separate
/// `acmesim run` of that variant gives. A variant whose policy name is the scenario's uses the
/// scenario's parameters for it; others use their defaults.
std::vector<CompareOutcome> run_variants(const Scenario& scenario, const Trace& trace, const Catalog& catalog,
                                         const std::vector<CompareVariant>& variants, unsigned threads);

/// The table as CSV: one row per variant and job type (then `all`).
std::string compare_csv(const std::vector<CompareOutcome>& outcomes);
/// The same table for a terminal.
std::string compare_pretty(const std::vector<CompareOutcome>& outcomes);

struct CompareArgs {
  std::string scenario;
  std::vector<std::string> schedulers;
  std::vector<std::string> placements;
  std::string out;
  std::vector<std::string> sets;
  unsigned threads = 0;  // 0: one per hardware thread
  bool quiet = false;
};

/// The subcommand: reads the scenario and trace once, runs, prints, writes DIR/compare.csv,
/// DIR/compare.txt, DIR/provenance.json and each variant's resolved scenario as
/// DIR/scenarios/ID.yaml. Returns the exit code.
/// `quiet` silences the table on stdout; progress and timings go to `log`.
int run_compare(const CompareArgs& args, const Catalog& catalog, const std::string& command_line, spdlog::logger& log);

}  // namespace acmesim
