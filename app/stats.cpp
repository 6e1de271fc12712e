// `acmesim stats`: the paper's characterization of a trace (tools/workload/trace_stats.hpp).
#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "app/command.hpp"
#include "io/acme_trace.hpp"
#include "io/failures_csv.hpp"
#include "sim/core/error.hpp"
#include "sim/metrics/failure_breakdown.hpp"
#include "tools/workload/trace_stats.hpp"

#ifndef ACMESIM_CONFIG_DIR
#define ACMESIM_CONFIG_DIR "configs"
#endif

namespace acmesim::app {

namespace {

struct StatsArgs {
  std::string trace;
  std::string format = "table";
  std::string compare;
  bool skip_bad_rows = false;
};

int run_stats(const StatsArgs& args, spdlog::logger& log) {
  std::optional<ReferenceRow> reference;
  if (!args.compare.empty()) {
    reference = load_reference(resolve_reference(args.compare, std::string(ACMESIM_CONFIG_DIR) + "/reference"),
                               trace_stat_keys());
  }
  const Trace trace = read_trace(args.trace, args.skip_bad_rows, log);
  ProgressLine computing{log, "computing"};
  computing.update("the paper's characterization");
  const TraceStats stats = compute_trace_stats(trace);
  computing.done(fmt::format("computed the statistics in {:.2f}s", computing.seconds()));
  const StatsFormat format = args.format == "csv"    ? StatsFormat::Csv
                             : args.format == "json" ? StatsFormat::Json
                                                     : StatsFormat::Table;
  fmt::print("{}", format_trace_stats(stats, reference ? &*reference : nullptr, format, args.trace));
  if (format == StatsFormat::Table) {
    // The paper's Table 3 view of the failures: by reason for a simulated run's jobs.csv (its
    // failure_log column), a single "Unknown" reason for a recorded trace.
    FailureBreakdown failures;
    add_failures_from_csv(args.trace, failures);
    fmt::print("\nFailures (Table 3 view, Hu et al. NSDI'24)\n{}", format_failure_breakdown(failures));
  }
  return 0;
}

}  // namespace

void add_stats(CLI::App& app, Context& context) {
  auto args = std::make_shared<StatsArgs>();
  CLI::App* cmd = app.add_subcommand(
      "stats",
      "Characterize a trace as the paper does: every cluster_summary.csv column, and per job type the shares of jobs "
      "and GPU time, duration and queue quantiles and CDFs at 2^i s, GPU-demand quartiles and final states. Reads "
      "trace_seren.csv, trace_kalos.csv (plain or gzip) and acmesim's jobs.csv");
  cmd->add_option("trace", args->trace, "The trace file")->required()->check(CLI::ExistingFile);
  cmd->add_option("--format", args->format, "table (default), csv (metric,value,...) or json")
      ->check(CLI::IsMember({"table", "csv", "json"}));
  cmd->add_option("--compare", args->compare,
                  "Put a reference beside each metric with its difference, relative error and target: seren or kalos "
                  "(the paper's numbers, configs/reference/*.yaml) or a reference YAML file of your own");
  cmd->add_flag("--skip-bad-rows", args->skip_bad_rows, "Skip malformed trace rows instead of stopping at the first");
  add_log_options(*cmd, context.log);
  cmd->callback([args, &context] { context.exit_code = run_stats(*args, context.log); });
}

}  // namespace acmesim::app
