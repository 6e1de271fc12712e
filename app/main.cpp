// acmesim: the command line. Subcommands: run, compare, policies, stats, synth, failures, eval-bench, eval-cluster.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "policies/catalog.hpp"
#include "tools/eval_bench.hpp"
#include "tools/eval_cluster.hpp"
#include "app/commands.hpp"
#include "app/failures.hpp"
#include "tools/compare.hpp"
#include "io/scenario.hpp"
#include "sim/core/error.hpp"
#include "io/outputs.hpp"
#include "sim/metrics/summary.hpp"
#include "sim/run/simulation.hpp"
#include "io/acme_trace.hpp"

#ifndef ACMESIM_DEFAULT_SCENARIO
#define ACMESIM_DEFAULT_SCENARIO "configs/default.yaml"
#endif

namespace {

using namespace acmesim;

struct RunArgs {
  std::string scenario = ACMESIM_DEFAULT_SCENARIO;
  std::string out;
  std::vector<std::string> sets;
  std::optional<std::uint64_t> seed;
  bool skip_bad_rows = false;
  bool quiet = false;
};

int run(const RunArgs& args, const Catalog& catalog) {
  std::vector<std::string> overrides = args.sets;
  if (args.seed) overrides.push_back(fmt::format("seed={}", *args.seed));
  const Scenario scenario = load_scenario(args.scenario, overrides, std::filesystem::current_path().string());
  // Build the policies first: a typo in the scenario should fail before a long trace read.
  catalog.schedulers.make(scenario.scheduler);
  catalog.placements.make(scenario.placement);
  catalog.outcomes.make(scenario.outcomes);
  catalog.failures.make(scenario.failures);
  catalog.recoveries.make(scenario.recovery);

  const auto t0 = std::chrono::steady_clock::now();
  const Trace trace =
      read_acme_trace(scenario.trace_path, TraceReadOptions{scenario.skip_bad_rows || args.skip_bad_rows});
  const double read_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!args.quiet) {
    fmt::print(stderr, "read {} jobs ({} schema) from {} in {:.2f}s{}\n", trace.jobs.size(), name(trace.schema),
               trace.path, read_s,
               trace.rows_skipped ? fmt::format("; skipped {} bad rows, first: {}", trace.rows_skipped,
                                                trace.skipped_messages.front())
                                  : std::string());
  }

  SimulationOptions options = simulation_options(scenario, trace);
  if (!args.quiet) {
    options.on_progress = [](const Progress& p) {
      fmt::print(stderr, "  {:5.1f}% of jobs done | simulated day {:.1f} | {:.1f}M events | {:.1f}s\n",
                 100.0 * p.fraction_done, to_seconds(p.now) / 86400.0, static_cast<double>(p.events) / 1e6,
                 p.wall_seconds);
    };
  }
  Simulation simulation{scenario.cluster, trace.jobs, make_policies(scenario, catalog), options};
  const RunResult result = simulation.run();
  const RunSummary summary = summarize(trace.jobs, result, scenario.cluster.gpu_nodes * scenario.cluster.gpus_per_node);
  const std::string out = args.out.empty() ? fmt::format("out/{}", scenario.name) : args.out;
  write_outputs(out, scenario, trace, result, summary);
  if (!args.quiet) {
    fmt::print("{}", summary_table(scenario, trace, result, summary));
    fmt::print("wrote {}/jobs.csv, timeline.csv, summary.json\n", out);
  }
  if (!result.unschedulable.empty() && !args.quiet) {
    const auto& first = result.unschedulable.front();
    fmt::print(stderr, "note: {} jobs can never fit this cluster, e.g. job {} (line {}): {}\n",
               result.unschedulable.size(), trace.jobs[first.job.value()].trace_id,
               trace.jobs[first.job.value()].source_line, first.reason);
  }
  return 0;
}

/// `params`: each policy's parameters too, with type, default, valid range and help.
void list_policies(const Catalog& catalog, bool params) {
  const auto print = [params](const auto& registry) {
    fmt::print("{}:\n", registry.slot());
    for (const auto& e : registry.entries()) {
      fmt::print("  {:<22} {}\n", e.name, e.summary);
      if (!params) continue;
      for (const ParamInfo& p : registry.parameters(e.name)) {
        fmt::print("      {:<24} {}, default {}{}{}: {}\n", p.key, p.type, p.fallback, p.range.empty() ? "" : ", ",
                   p.range, p.help);
      }
    }
  };
  print(catalog.schedulers);
  print(catalog.placements);
  print(catalog.evaluations);
  print(catalog.outcomes);
  print(catalog.failures);
  print(catalog.recoveries);
}

}  // namespace

int main(int argc, char** argv) {
  const Catalog catalog = builtin_catalog();
  CLI::App app{"acmesim: a discrete-event simulator of LLM-development GPU datacenters (the Acme clusters of "
               "Hu et al., NSDI'24)"};
  app.require_subcommand(1);
  app.set_version_flag("--version", acmesim_version());

  RunArgs run_args;
  CLI::App* run_cmd = app.add_subcommand("run", "Replay a trace on a modelled cluster under a scheduler and write "
                                                "jobs.csv, timeline.csv and summary.json");
  run_cmd->add_option("scenario", run_args.scenario, "Scenario YAML (default: the bundled configs/default.yaml)")
      ->check(CLI::ExistingFile);
  run_cmd->add_option("-o,--out", run_args.out, "Output directory (default: out/<scenario name>)");
  run_cmd->add_option("--set", run_args.sets,
                      "Override a scenario key, e.g. --set cluster.nodes=300 --set scheduler=replay "
                      "--set trace=x.csv (paths given here are relative to the working directory)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  run_cmd->add_option("--seed", run_args.seed, "Seed of every random stream (overrides the scenario's)");
  run_cmd->add_flag("--skip-bad-rows", run_args.skip_bad_rows,
                    "Skip malformed trace rows, counting and reporting them, instead of stopping at the first");
  run_cmd->add_flag("-q,--quiet", run_args.quiet, "Print nothing but errors");

  CompareArgs compare_args;
  compare_args.scenario = ACMESIM_DEFAULT_SCENARIO;
  CLI::App* compare_cmd = app.add_subcommand(
      "compare", "Run several schedulers x placements on the same trace (in parallel threads) and print and write "
                 "one table: per variant and job type, queueing delay and JCT (mean/median/p99), GPU allocation, "
                 "makespan, preemptions");
  compare_cmd->add_option("scenario", compare_args.scenario, "Scenario YAML (default: the bundled configs/default.yaml)")
      ->check(CLI::ExistingFile);
  compare_cmd->add_option("--schedulers", compare_args.schedulers,
                          "Comma-separated schedulers, e.g. fifo,sjf,qssf (default: the scenario's). A scheduler "
                          "named in the scenario keeps its parameters there; others use their defaults")
      ->delimiter(',');
  compare_cmd->add_option("--placements", compare_args.placements,
                          "Comma-separated placements, e.g. pack,topology (default: the scenario's)")
      ->delimiter(',');
  compare_cmd->add_option("-o,--out", compare_args.out,
                          "Directory for compare.csv and compare.txt (default: out/<scenario name>-compare)");
  compare_cmd->add_option("--set", compare_args.sets, "Override a scenario key, as for `run`")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  compare_cmd->add_option("-j,--threads", compare_args.threads,
                          "Worker threads (default: one per hardware thread); results do not depend on it");
  compare_cmd->add_flag("-q,--quiet", compare_args.quiet, "Print nothing but errors");

  bool policy_params = false;
  app.add_subcommand("policies", "List every policy by slot with a one-line summary")
      ->add_flag("--params", policy_params, "Also list each policy's parameters: type, default, valid range, help");
  app::StatsArgs stats_args;
  CLI::App* stats_cmd = app::add_stats_command(app, stats_args);
  app::SynthArgs synth_args;
  CLI::App* synth_cmd = app::add_synth_command(app, synth_args);

  EvalBenchArgs eval_args;
  eval_args.suite = (std::filesystem::path(ACMESIM_DEFAULT_SCENARIO).parent_path() / "eval" / "opencompass63.yaml").string();
  CLI::App* eval_cmd = app.add_subcommand(
      "eval-bench", "Evaluate one checkpoint on a dataset suite on otherwise idle nodes (the paper's 7B x 63 "
                    "datasets experiment) under each evaluation policy; print makespan, GPU-hours, GPU idle time "
                    "and the speedup over 'coupled'");
  eval_cmd->add_option("--model-gb", eval_args.model_gb, "Checkpoint size in GB (default 14.6: a 7B model in bf16)");
  eval_cmd->add_option("--nodes", eval_args.nodes, "Node counts to run, e.g. --nodes 1 4 (default: 1 4)")
      ->expected(1, 64);
  eval_cmd->add_option("--gpus-per-node", eval_args.gpus_per_node, "GPUs per node (default 8)");
  eval_cmd->add_option("--suite", eval_args.suite, "Dataset suite YAML (default: configs/eval/opencompass63.yaml)")
      ->check(CLI::ExistingFile);
  eval_cmd->add_option("--policy", eval_args.policies,
                       "Evaluation policies to compare, a name or a YAML mapping, e.g. --policy coupled "
                       "--policy \"{name: decoupled, elastic: false}\" (default: coupled decoupled)")
      ->expected(1, 64);
  eval_cmd->add_flag("--ablation", eval_args.ablation,
                     "Add decoupled with each technique alone and with each one switched off");
  eval_cmd->add_option("--nic-gbps", eval_args.nic_gbps, "Storage NIC per node in Gb/s (default 25, Acme's)");
  eval_cmd->add_option("--pcie-gbs", eval_args.pcie_gbs, "Host-to-GPU bandwidth in GB/s (default 25)");
  eval_cmd->add_option("--noise", eval_args.noise_sigma,
                       "Actual/prior inference time is lognormal(0, sigma), one draw per dataset and run "
                       "(default 0.2; 0 = actuals equal the priors)");
  eval_cmd->add_option("--runs", eval_args.runs, "Runs per row, seeds seed..seed+runs-1; means are shown (default 10)");
  eval_cmd->add_option("--seed", eval_args.seed, "Seed of the first run (default 1)");

  std::string cluster_file =
      (std::filesystem::path(ACMESIM_DEFAULT_SCENARIO).parent_path() / "eval" / "acme_week.yaml").string();
  std::string cluster_out;
  CLI::App* cluster_cmd = app.add_subcommand(
      "eval-cluster", "Pretraining jobs checkpoint during a cluster run; every checkpoint's evaluation trials join "
                      "the cluster queue. Prints per policy the feedback latency (checkpoint -> all metrics) and "
                      "evaluation GPU-hours");
  cluster_cmd->add_option("file", cluster_file, "eval-cluster YAML (default: configs/eval/acme_week.yaml)")
      ->check(CLI::ExistingFile);
  cluster_cmd->add_option("-o,--out", cluster_out, "Write checkpoints_<policy>.csv here (default: nothing)");

  std::vector<std::string> failure_files;
  CLI::App* failures_cmd = app.add_subcommand(
      "failures", "Print the failure breakdown of simulated runs the way the Acme paper's Table 3 does: failures and "
                  "failed GPU time per category and reason (several jobs.csv files are pooled)");
  failures_cmd->add_option("jobs_csv", failure_files, "jobs.csv of a run (or an AcmeTrace CSV: FAILED rows, reason Unknown)")
      ->required()
      ->check(CLI::ExistingFile);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    if (run_cmd->parsed()) return run(run_args, catalog);
    if (eval_cmd->parsed()) return run_eval_bench(eval_args, catalog);
    if (cluster_cmd->parsed()) return run_eval_cluster(cluster_file, cluster_out, catalog);
    if (stats_cmd->parsed()) return app::run_stats(stats_args);
    if (synth_cmd->parsed()) return app::run_synth(synth_args, catalog);
    if (failures_cmd->parsed()) return failures_command(failure_files);
    if (compare_cmd->parsed()) return compare_command(compare_args, catalog);
    list_policies(catalog, policy_params);
    return 0;
  } catch (const InputError& e) {
    fmt::print(stderr, "error: {}\n", e.what());
    return 2;
  } catch (const SimulationError& e) {
    fmt::print(stderr, "internal error: {}\n", e.what());
    return 3;
  }
}
