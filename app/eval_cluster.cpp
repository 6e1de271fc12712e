// `acmesim eval-cluster`: checkpoint evaluation inside a cluster run, per evaluation policy.
#include "tools/eval_cluster.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/command.hpp"

namespace acmesim::app {

namespace {

struct EvalClusterArgs {
  std::string file;
  std::string out;
  std::vector<std::string> sets;
  std::optional<std::string> seed;  // as typed: checked by the readers, as `--set seed=` is
};

}  // namespace

void add_eval_cluster(CLI::App& app, Context& context) {
  auto args = std::make_shared<EvalClusterArgs>();
  args->file = context.config_dir + "/eval/acme_week.yaml";
  CLI::App* cmd =
      app.add_subcommand("eval-cluster",
                         "Pretraining jobs checkpoint during a cluster run; every checkpoint's evaluation trials join "
                         "the cluster queue. Prints per policy the feedback latency (checkpoint -> all metrics) and "
                         "evaluation GPU-hours");
  cmd->add_option("file", args->file, "eval-cluster YAML (default: configs/eval/acme_week.yaml)")
      ->check(CLI::ExistingFile);
  cmd->add_option("-o,--out", args->out, "Write checkpoints_<policy>.csv here (default: nothing)");
  add_set_option(*cmd, args->sets,
                 "Override a key: the file's own (plan_nodes=8, policies=decoupled, noise=0.3) or its "
                 "scenario's (cluster.nodes=200, scheduler=acme); paths relative to the working directory");
  cmd->add_option("--seed", args->seed, "Seed of the scenario and of the evaluation draws (overrides both)");
  add_log_options(*cmd, context.log);
  cmd->callback([args, &context] {
    const std::string here = std::filesystem::current_path().string();
    std::vector<ScenarioOverride> overrides;
    for (const std::string& s : args->sets) overrides.push_back(command_line_override(s, here));
    if (args->seed) overrides.push_back(command_line_override("seed=" + *args->seed, here));
    context.exit_code = run_eval_cluster(args->file, args->out, context.catalog, overrides);
  });
}

}  // namespace acmesim::app
