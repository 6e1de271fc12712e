// `acmesim eval-bench`: coupled vs decoupled evaluation of one checkpoint on idle nodes.
#include "tools/eval_bench.hpp"

#include <memory>
#include <string>
#include <vector>

#include "app/command.hpp"

namespace acmesim::app {

void add_eval_bench(CLI::App& app, Context& context) {
  auto args = std::make_shared<EvalBenchArgs>();
  args->suite = context.config_dir + "/eval/opencompass63.yaml";
  CLI::App* cmd =
      app.add_subcommand("eval-bench",
                         "Evaluate one checkpoint on a dataset suite on otherwise idle nodes (the paper's 7B x 63 "
                         "datasets experiment) under each evaluation policy; print makespan, GPU-hours, GPU idle time "
                         "and the speedup over the first 'coupled' policy (default parameters or not)");
  cmd->add_option("--model-gb", args->model_gb, "Checkpoint size in GB (default 14.6: a 7B model in bf16)")
      ->check(in_range(0.001, kMaxCheckpointGb));
  cmd->add_option("--nodes", args->nodes, "Node counts to run, e.g. --nodes 1 4 (default: 1 4)")
      ->expected(1, 64)
      ->check(in_range<std::uint64_t>(1, 4096));
  cmd->add_option("--gpus-per-node", args->gpus_per_node, "GPUs per node (default 8)")
      ->check(in_range<std::uint64_t>(1, 64));
  cmd->add_option("--suite", args->suite, "Dataset suite YAML (default: configs/eval/opencompass63.yaml)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--policy", args->policies,
                  "Evaluation policies to compare, a name or a YAML mapping, e.g. --policy coupled "
                  "--policy \"{name: decoupled, elastic: false}\" (default: coupled decoupled)")
      ->expected(1, 64);
  cmd->add_flag("--ablation", args->ablation,
                "Add coupled with one trial per dataset (max_task_size 0) and decoupled with each technique alone "
                "and with each one switched off");
  cmd->add_option("--nic-gbps", args->nic_gbps, "Storage NIC per node in Gb/s (default 25, Acme's)")
      ->check(in_range(0.01, 100000.0));
  cmd->add_option("--pcie-gbs", args->pcie_gbs, "Host-to-GPU bandwidth in GB/s (default 25)")
      ->check(in_range(0.01, 100000.0));
  cmd->add_option("--noise", args->noise_sigma,
                  "Actual/prior inference time is lognormal(0, sigma), one draw per dataset and run "
                  "(default 0.2; 0 = actuals equal the priors; at most 2, a factor of e^8 at 4 sigma)")
      ->check(in_range(0.0, 2.0));
  cmd->add_option("--runs", args->runs, "Runs per row, seeds seed..seed+runs-1; means are shown (default 10)")
      ->check(in_range<std::uint64_t>(1, 100000));
  cmd->add_option("--seed", args->seed, "Seed of the first run (default 1)")
      ->check(in_range<std::uint64_t>(0, std::numeric_limits<std::uint64_t>::max()));
  add_log_options(*cmd, context.log);
  cmd->callback([args, &context] { context.exit_code = run_eval_bench(*args, context.catalog); });
}

}  // namespace acmesim::app
