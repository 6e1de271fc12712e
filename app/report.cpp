// `acmesim report`: one self-contained HTML page of charts for run, compare and sweep folders.
#include "tools/report.hpp"

#include <memory>
#include <string>

#include "app/command.hpp"

namespace acmesim::app {

void add_report(CLI::App& app, Context& context) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "report",
      "Write one self-contained HTML page of charts (Vega, inlined: it opens offline) for a run folder (the "
      "cluster over time, queueing-delay/JCT/run-time CDFs per job type beside the paper's, GPU-hours, failures, "
      "provenance), several run folders or a compare folder (side by side), or a sweep folder (each metric "
      "against each axis with the seeds' 95 % band)");
  cmd->add_option("dirs", args->dirs, "Output folders of acmesim run, compare or sweep")->required();
  cmd->add_option("-o,--out", args->out, "The HTML file (default: DIR/report.html; required for several folders)");
  cmd->add_option("--vega", args->vega,
                  "The Vega library: Debian's libjs-vega folder of modules or one vega.min.js (default: "
                  "/usr/share/javascript/vega)");
  cmd->add_option("--metrics", args->metrics,
                  "Comma-separated metrics of a sweep's summary.csv or a compare.csv to chart (default: mean "
                  "queueing delay and JCT, GPU allocation, ETTR, lost GPU-hours; for compare also p99s and slowdown)")
      ->delimiter(',');
  cmd->add_option("--reference", args->reference,
                  "The paper's CDFs beside a run's: auto (Seren or Kalos when the run is of one), seren, kalos or none")
      ->check(CLI::IsMember({"auto", "seren", "kalos", "none"}));
  add_log_options(*cmd, context.log);
  cmd->callback([args, &context] {
    context.exit_code = run_report_command(*args, context.config_dir + "/reference", context.log);
  });
}

}  // namespace acmesim::app
