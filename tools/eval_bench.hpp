#pragma once
/// `acmesim eval-bench`: the paper's evaluation experiment [Acme §6.2] on otherwise idle
/// nodes: one checkpoint, one suite, each policy; prints makespan, GPU-hours and GPU idle time
/// per policy and the speedup over the first `coupled` policy given.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/model/eval/eval_sim.hpp"
#include "sim/policy_api/catalog.hpp"

namespace acmesim {

struct EvalBenchArgs {
  double model_gb = 14.6;  // InternLM-7B in bf16 [InternLM; derived]
  std::vector<int> nodes{1, 4};
  int gpus_per_node = 8;  // [Acme Table 1]: 8 A100 per node
  std::string suite;      // YAML file
  /// Each a policy name or a YAML mapping, e.g. "{name: decoupled, elastic: false}".
  std::vector<std::string> policies{"coupled", "decoupled"};
  bool ablation = false;
  double nic_gbps = 25.0;  // [Acme §6.2, Fig 16]: 25 Gb/s storage NIC per node
  double pcie_gbs = 25.0;  // [PCIe4; est]: PCIe Gen4 x16 in practice
  /// [Acme §6.2; est]: priors are the history; actual runtimes deviate by a
  /// lognormal factor with sigma ~0.2. Each (nodes, policy) runs `runs` times, seeds seed, seed+1, ...
  double noise_sigma = 0.2;
  int runs = 10;
  std::uint64_t seed = 1;
};

struct EvalBenchRow {
  int nodes = 0;
  std::string policy;            // label
  EvalPlan plan;                 // from priors only, so the same for every run
  std::vector<EvalResult> runs;  // one per seed
  /// Per run: the baseline's makespan / this makespan, the baseline being the first row of the
  /// node count whose policy is coupled (with any parameters); empty if there is none.
  std::vector<double> speedups;

  double mean_makespan_min() const;
  double mean_hours(std::int64_t EvalResult::*field) const;
  double mean_idle_hours() const;
  double mean_speedup() const;
};

/// Runs every (nodes, policy) pair; the rows in order: per node count, the policies as given,
/// then (with ablation) coupled with one trial per dataset (max_task_size 0), and decoupled with
/// each technique alone and with each one switched off.
std::vector<EvalBenchRow> eval_bench(const EvalBenchArgs& args, const EvalSuite& suite, const Catalog& catalog);

/// The table `acmesim eval-bench` prints.
std::string eval_bench_table(const EvalBenchArgs& args, const EvalSuite& suite, const std::vector<EvalBenchRow>& rows);

/// Profile of one dataset's trial in a result (for the HumanEval check of Fig 13): the share of
/// the trial spent before inference and in the on-GPU metric tail. False if not a single-dataset trial.
struct TrialProfile {
  double load_share = 0;
  double metric_share = 0;
  double seconds = 0;
};
bool trial_profile(const EvalPlan& plan, const EvalResult& result, std::uint32_t dataset, TrialProfile& out);

int run_eval_bench(const EvalBenchArgs& args, const Catalog& catalog);

}  // namespace acmesim
