#include "tools/eval_cluster.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "io/acme_trace.hpp"
#include "io/eval_cluster_config.hpp"
#include "io/scenario.hpp"
#include "sim/core/error.hpp"
#include "sim/run/simulation.hpp"

namespace acmesim {

namespace {

namespace fs = std::filesystem;

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const auto i = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size()))) - 1;
  return v[std::min(i, v.size() - 1)];
}

}  // namespace

EvalClusterPolicyResult eval_cluster_run(const EvalClusterConfig& file_config, const Trace& trace,
                                         const EvalClusterPolicy& listed, const Catalog& catalog, RunResult* run_out) {
  const Scenario& scenario = file_config.scenario;
  ClusterEvalConfig config;
  config.suite = &file_config.suite;
  config.checkpoint_bytes = file_config.checkpoint_bytes;
  config.checkpoint_interval = file_config.checkpoint_interval;
  config.min_pretrain_gpus = file_config.min_pretrain_gpus;
  config.plan_resources = EvalResources{file_config.plan_nodes, scenario.cluster.gpus_per_node};
  config.noise_sigma = file_config.noise_sigma;
  config.seed = file_config.seed;
  config.gpus_per_node = scenario.cluster.gpus_per_node;
  config.cpus_per_gpu =
      scenario.cluster.cpus_per_node > 0 ? scenario.cluster.cpus_per_node / scenario.cluster.gpus_per_node : 0;
  config.pretraining = file_config.pretraining;
  const auto policy = catalog.evaluations.make(listed.args);
  config.policy = policy.get();
  ClusterEvaluation hook{config};
  SimulationOptions options = simulation_options(scenario, trace);
  options.hook = &hook;
  Simulation sim{scenario.cluster, trace.jobs, make_policies(scenario, catalog), options};
  RunResult run = sim.run();

  EvalClusterPolicyResult r;
  r.policy = listed.label;
  r.checkpoints = hook.checkpoints();
  r.eval_gpu_ms = hook.eval_gpu_ms();
  r.all_gpu_ms = run.allocated_gpu_ms;
  for (const JobSpec& j : trace.jobs) {
    if (j.type == JobType::Eval) r.trace_eval_gpu_ms += j.runtime.count() * j.demand.gpus;
  }
  r.fingerprint = run.fingerprint;
  r.events = run.events;
  for (const CheckpointRecord& ck : r.checkpoints) {
    if (!ck.complete) throw SimulationError("a checkpoint evaluation did not finish by the end of the run");
  }
  if (run_out) *run_out = std::move(run);
  return r;
}

EvalLatency eval_latency(const EvalClusterPolicyResult& result) {
  EvalLatency l;
  std::vector<double> minutes;
  double wait = 0;
  for (const CheckpointRecord& c : result.checkpoints) {
    minutes.push_back(to_seconds(c.latency()) / 60.0);
    wait += to_seconds(c.first_start - c.written) / 60.0;
  }
  l.checkpoints = minutes.size();
  if (minutes.empty()) return l;
  double sum = 0;
  for (const double m : minutes) sum += m;
  l.mean = sum / static_cast<double>(minutes.size());
  l.first_wait_mean = wait / static_cast<double>(minutes.size());
  l.median = percentile(minutes, 0.5);
  l.p95 = percentile(minutes, 0.95);
  l.max = *std::max_element(minutes.begin(), minutes.end());
  return l;
}

std::vector<EvalClusterPolicyResult> eval_cluster(const std::string& file, const Catalog& catalog,
                                                  const std::string& out_dir,
                                                  const std::vector<ScenarioOverride>& overrides) {
  const EvalClusterConfig file_config = load_eval_cluster_config(file, overrides);
  const Scenario& scenario = file_config.scenario;
  const Trace trace = read_acme_trace(scenario.trace_path, TraceReadOptions{scenario.skip_bad_rows});
  std::vector<EvalClusterPolicyResult> results;
  for (const EvalClusterPolicy& listed : file_config.policies) {
    RunResult run;
    EvalClusterPolicyResult r = eval_cluster_run(file_config, trace, listed, catalog, &run);
    if (!out_dir.empty()) {
      fs::create_directories(out_dir);
      std::ofstream csv(fs::path(out_dir) / fmt::format("checkpoints_{}.csv", listed.tag));
      csv << "checkpoint,pretrain_job,written_s,trials,first_trial_wait_s,latency_s,eval_gpu_hours\n";
      const SimTime t0 = trace.jobs.empty() ? SimTime{} : trace.jobs.front().submitted;
      for (std::size_t i = 0; i < r.checkpoints.size(); ++i) {
        const CheckpointRecord& ck = r.checkpoints[i];
        const JobId src = ck.source;
        const std::string_view job = src.value() < trace.jobs.size()
                                         ? trace.jobs[src.value()].trace_id
                                         : run.spawned[src.value() - trace.jobs.size()].trace_id;
        csv << fmt::format("{},{},{:.3f},{},{:.3f},{:.3f},{:.4f}\n", i, job, to_seconds(ck.written - t0), ck.trials,
                           to_seconds(ck.first_start - ck.written), to_seconds(ck.latency()),
                           static_cast<double>(ck.gpu_ms) / 3.6e6);
      }
    }
    results.push_back(std::move(r));
  }
  return results;
}

std::string eval_cluster_table(const std::vector<EvalClusterPolicyResult>& results) {
  std::string out = fmt::format("{:<28} {:>6} {:>9} {:>9} {:>9} {:>9} {:>11} {:>10} {:>10}\n", "policy", "ckpts",
                                "lat mean", "lat p50", "lat p95", "lat max", "wait mean", "eval GPU-h", "all GPU-h");
  out += fmt::format("{:<28} {:>6} {:>9} {:>9} {:>9} {:>9} {:>11} {:>10} {:>10}\n", "", "", "(min)", "(min)", "(min)",
                     "(min)", "(min)", "(spawned)", "");
  for (const EvalClusterPolicyResult& r : results) {
    const EvalLatency l = eval_latency(r);
    out += fmt::format("{:<28} {:>6} {:>9.1f} {:>9.1f} {:>9.1f} {:>9.1f} {:>11.1f} {:>10.1f} {:>10.0f}\n", r.policy,
                       l.checkpoints, l.mean, l.median, l.p95, l.max, l.first_wait_mean,
                       static_cast<double>(r.eval_gpu_ms) / 3.6e6, static_cast<double>(r.all_gpu_ms) / 3.6e6);
  }
  out +=
      "latency: checkpoint written -> all metrics computed; wait: checkpoint -> first trial started; eval GPU-h: "
      "the checkpoint trials' (the trace's own Eval jobs excluded).\n";
  return out;
}

int run_eval_cluster(const std::string& file, const std::string& out_dir, const Catalog& catalog,
                     const std::vector<ScenarioOverride>& overrides) {
  const auto results = eval_cluster(file, catalog, out_dir, overrides);
  fmt::print("{}", eval_cluster_table(results));
  if (!out_dir.empty()) fmt::print("wrote {}/checkpoints_<policy>.csv\n", out_dir);
  return 0;
}

}  // namespace acmesim
