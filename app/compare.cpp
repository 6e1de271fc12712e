// `acmesim compare`: several schedulers x placements on one trace, one table.
#include "tools/compare.hpp"

#include <memory>
#include <string>
#include <vector>

#include "app/command.hpp"

namespace acmesim::app {

void add_compare(CLI::App& app, Context& context) {
  auto args = std::make_shared<CompareArgs>();
  args->scenario = context.default_scenario;
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "Run several schedulers x placements on the same trace (in parallel threads) and print and write "
      "one table: per variant and job type, queueing delay and JCT (mean/median/p99), GPU allocation, "
      "makespan, preemptions");
  cmd->add_option("scenario", args->scenario, "Scenario YAML (default: the bundled configs/default.yaml)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--schedulers", args->schedulers,
                  "Comma-separated schedulers, e.g. fifo,sjf,qssf (default: the scenario's). A scheduler "
                  "named in the scenario keeps its parameters there; others use their defaults")
      ->delimiter(',');
  cmd->add_option("--placements", args->placements,
                  "Comma-separated placements, e.g. pack,topology (default: the scenario's)")
      ->delimiter(',');
  cmd->add_option("-o,--out", args->out,
                  "Directory for compare.csv and compare.txt (default: out/<scenario name>-compare)");
  add_set_option(*cmd, args->sets, "Override a scenario key, as for `run`");
  cmd->add_option("-j,--threads", args->threads,
                  "Worker threads (default: one per hardware thread); results do not depend on it")
      ->check(in_range<std::uint64_t>(1, 4096));
  add_log_options(*cmd, context.log, &args->quiet);
  cmd->callback(
      [args, &context] { context.exit_code = run_compare(*args, context.catalog, context.command_line, context.log); });
}

}  // namespace acmesim::app
