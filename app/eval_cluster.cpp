// `acmesim eval-cluster`: checkpoint evaluation inside a cluster run, per evaluation policy.
#include "tools/eval_cluster.hpp"

#include <memory>
#include <string>
#include <vector>

#include "app/command.hpp"

namespace acmesim::app {

void add_eval_cluster(CLI::App& app, Context& context) {
  auto file = std::make_shared<std::string>(context.config_dir + "/eval/acme_week.yaml");
  auto out = std::make_shared<std::string>();
  CLI::App* cmd =
      app.add_subcommand("eval-cluster",
                         "Pretraining jobs checkpoint during a cluster run; every checkpoint's evaluation trials join "
                         "the cluster queue. Prints per policy the feedback latency (checkpoint -> all metrics) and "
                         "evaluation GPU-hours");
  cmd->add_option("file", *file, "eval-cluster YAML (default: configs/eval/acme_week.yaml)")->check(CLI::ExistingFile);
  cmd->add_option("-o,--out", *out, "Write checkpoints_<policy>.csv here (default: nothing)");
  add_log_options(*cmd, context.log);
  cmd->callback([file, out, &context] { context.exit_code = run_eval_cluster(*file, *out, context.catalog); });
}

}  // namespace acmesim::app
