// `acmesim failures`: the Table-3-style failure breakdown of simulated runs.
#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "app/command.hpp"
#include "io/failures_csv.hpp"
#include "sim/metrics/failure_breakdown.hpp"

namespace acmesim::app {

void add_failures(CLI::App& app, Context& context) {
  auto files = std::make_shared<std::vector<std::string>>();
  CLI::App* cmd = app.add_subcommand(
      "failures",
      "Print the failure breakdown of simulated runs the way the Acme paper's Table 3 does: failures, "
      "failed GPU time, mean GPU demand and mean time to failure per category and reason (several jobs.csv "
      "files are pooled)");
  cmd->add_option("jobs_csv", *files, "jobs.csv of a run (or an AcmeTrace CSV: FAILED rows, reason Unknown)")
      ->required()
      ->check(CLI::ExistingFile);
  add_log_options(*cmd, context.log);
  cmd->callback([files] {
    FailureBreakdown pooled;
    for (const std::string& path : *files) add_failures_from_csv(path, pooled);
    fmt::print(
        "failure breakdown of {} file{} (Table 3 of the Acme paper: share of failures and of failed GPU time)\n"
        "failed GPU-h: GPU time of the attempts a failure ended (not the run's lost GPU-hours, the work "
        "redone after failures)\n",
        files->size(), files->size() == 1 ? "" : "s");
    fmt::print("{}", format_failure_breakdown(pooled));
  });
}

}  // namespace acmesim::app
