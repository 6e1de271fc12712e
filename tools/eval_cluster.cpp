#include "io/eval_suite.hpp"
#include "io/policy_yaml.hpp"
#include "tools/eval_cluster.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "io/scenario.hpp"
#include "sim/core/error.hpp"
#include "sim/run/simulation.hpp"
#include "io/acme_trace.hpp"

namespace acmesim {

namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kKeys{"name",          "description", "scenario", "set", "suite", "model_gb",
                                     "checkpoint_interval_h", "min_pretrain_gpus", "plan_nodes", "noise",
                                     "seed",          "policies",    "pretraining"};
const std::vector<std::string> kRunKeys{"start_h", "gpus", "hours"};

std::string where(const std::string& file, const YAML::Node& node) {
  const YAML::Mark m = node.Mark();
  return m.line < 0 ? file : fmt::format("{}:{}:{}", file, m.line + 1, m.column + 1);
}

void only_keys(const std::string& file, const std::string& what, const YAML::Node& node,
               const std::vector<std::string>& valid) {
  if (!node.IsMap()) {
    throw InputError(fmt::format("{}: {}: expected a mapping, found '{}'", where(file, node), what, YAML::Dump(node)));
  }
  for (const auto& e : node) {
    const std::string k = e.first.as<std::string>();
    if (std::find(valid.begin(), valid.end(), k) == valid.end()) {
      throw InputError(fmt::format("{}: {}: unknown key '{}' (valid: {})", where(file, e.first), what, k,
                                   fmt::join(valid, ", ")));
    }
  }
}

double number(const std::string& file, const YAML::Node& parent, const std::string& key, double fallback,
              double min_value) {
  const YAML::Node n = parent[key];
  if (!n) return fallback;
  double v = 0;
  try {
    v = n.as<double>();
  } catch (const YAML::Exception&) {
    v = min_value - 1;
  }
  if (!(v >= min_value)) {
    throw InputError(fmt::format("{}: {}: expected a number >= {}, found '{}'", where(file, n), key, min_value,
                                 YAML::Dump(n)));
  }
  return v;
}

std::string path_key(const std::string& file, const YAML::Node& root, const std::string& key) {
  const YAML::Node n = root[key];
  if (!n || !n.IsScalar() || n.as<std::string>().empty()) {
    throw InputError(fmt::format("{}: {}: expected a file path, found {}", n ? where(file, n) : file, key,
                                 n ? "'" + YAML::Dump(n) + "'" : std::string("nothing")));
  }
  const fs::path p = n.as<std::string>();
  return (p.is_absolute() ? p : fs::path(file).parent_path() / p).lexically_normal().string();
}

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const auto i = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size()))) - 1;
  return v[std::min(i, v.size() - 1)];
}

}  // namespace

std::vector<EvalClusterPolicyResult> eval_cluster(const std::string& file, const Catalog& catalog,
                                                  const std::string& out_dir) {
  std::ifstream in(file);
  if (!in) throw InputError(fmt::format("{}: cannot open the eval-cluster file", file));
  std::stringstream text;
  text << in.rdbuf();
  YAML::Node root;
  try {
    root = YAML::Load(text.str());
  } catch (const YAML::ParserException& e) {
    throw InputError(fmt::format("{}:{}:{}: not valid YAML: {}", file, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
  only_keys(file, "eval-cluster", root, kKeys);

  std::vector<std::string> overrides;
  if (const YAML::Node set = root["set"]) {
    if (!set.IsSequence()) throw InputError(fmt::format("{}: set: expected a list of key=value", where(file, set)));
    for (const auto& s : set) overrides.push_back(s.as<std::string>());
  }
  const std::string base = fs::path(file).parent_path().string();
  const Scenario scenario = load_scenario(path_key(file, root, "scenario"), overrides, base.empty() ? "." : base);
  const EvalSuite suite = load_eval_suite(path_key(file, root, "suite"));
  const Trace trace = read_acme_trace(scenario.trace_path, TraceReadOptions{scenario.skip_bad_rows});

  ClusterEvalConfig config;
  config.suite = &suite;
  config.checkpoint_bytes = std::llround(number(file, root, "model_gb", 14.6, 0.001) * 1e9);
  config.checkpoint_interval = from_seconds(number(file, root, "checkpoint_interval_h", 4, 0.01) * 3600);
  config.min_pretrain_gpus = static_cast<int>(number(file, root, "min_pretrain_gpus", 64, 1));
  config.plan_resources = EvalResources{static_cast<int>(number(file, root, "plan_nodes", 4, 1)),
                                        scenario.cluster.gpus_per_node};
  config.noise_sigma = number(file, root, "noise", 0.2, 0);
  config.seed = static_cast<std::uint64_t>(number(file, root, "seed", static_cast<double>(scenario.seed), 0));
  config.gpus_per_node = scenario.cluster.gpus_per_node;
  config.cpus_per_gpu = scenario.cluster.cpus_per_node > 0 ? scenario.cluster.cpus_per_node / scenario.cluster.gpus_per_node : 0;
  if (const YAML::Node runs = root["pretraining"]) {
    if (!runs.IsSequence()) throw InputError(fmt::format("{}: pretraining: expected a list", where(file, runs)));
    for (const auto& r : runs) {
      only_keys(file, "pretraining run", r, kRunKeys);
      PretrainingRun run;
      run.start_offset = from_seconds(number(file, r, "start_h", 0, 0) * 3600);
      run.gpus = static_cast<int>(number(file, r, "gpus", 256, 1));
      run.length = from_seconds(number(file, r, "hours", 24, 0.01) * 3600);
      const int nodes = (run.gpus + config.gpus_per_node - 1) / config.gpus_per_node;
      if (run.gpus % config.gpus_per_node != 0 || nodes > scenario.cluster.gpu_nodes) {
        throw InputError(fmt::format("{}: pretraining run: gpus: expected whole nodes of {} GPUs, at most {}, found {}",
                                     where(file, r), config.gpus_per_node,
                                     scenario.cluster.gpu_nodes * config.gpus_per_node, run.gpus));
      }
      config.pretraining.push_back(run);
    }
  }

  std::vector<std::string> policy_texts{"coupled", "decoupled"};
  if (const YAML::Node list = root["policies"]) {
    if (!list.IsSequence()) throw InputError(fmt::format("{}: policies: expected a list", where(file, list)));
    policy_texts.clear();
    for (const auto& p : list) policy_texts.push_back(p.IsScalar() ? p.as<std::string>() : YAML::Dump(p));
  }

  std::vector<EvalClusterPolicyResult> results;
  for (const std::string& text_policy : policy_texts) {
    const YAML::Node node = YAML::Load(text_policy);
    const PolicyArgs args = policy_args_from_yaml_text(text_policy, "evaluation", file, config.seed);
    const auto policy = catalog.evaluations.make(args);
    ClusterEvalConfig c = config;
    c.policy = policy.get();
    ClusterEvaluation hook{c};
    SimulationOptions options = simulation_options(scenario, trace);
    options.hook = &hook;
    Simulation sim{scenario.cluster, trace.jobs, make_policies(scenario, catalog), options};
    const RunResult run = sim.run();

    EvalClusterPolicyResult r;
    r.policy = node.IsScalar() ? text_policy : fmt::format("{}", YAML::Dump(node));
    std::replace(r.policy.begin(), r.policy.end(), '\n', ' ');
    r.checkpoints = hook.checkpoints();
    r.eval_gpu_ms = hook.eval_gpu_ms();
    r.all_gpu_ms = run.allocated_gpu_ms;
    for (const JobSpec& j : trace.jobs) {
      if (j.type == JobType::Eval) r.trace_eval_gpu_ms += j.runtime.count() * j.demand.gpus;
    }
    r.fingerprint = run.fingerprint;
    for (const CheckpointRecord& ck : r.checkpoints) {
      if (!ck.complete) throw SimulationError("a checkpoint evaluation did not finish by the end of the run");
    }
    if (!out_dir.empty()) {
      fs::create_directories(out_dir);
      std::string name = node.IsScalar() ? text_policy : fmt::format("policy{}", results.size());
      std::ofstream csv(fs::path(out_dir) / fmt::format("checkpoints_{}.csv", name));
      csv << "checkpoint,pretrain_job,written_s,trials,first_trial_wait_s,latency_s,eval_gpu_hours\n";
      const SimTime t0 = trace.jobs.empty() ? SimTime{} : trace.jobs.front().submitted;
      for (std::size_t i = 0; i < r.checkpoints.size(); ++i) {
        const CheckpointRecord& ck = r.checkpoints[i];
        const JobId src = ck.source;
        const std::string job = src.value() < trace.jobs.size() ? trace.jobs[src.value()].trace_id
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
                                "lat mean", "lat p50", "lat p95", "lat max", "wait mean", "eval GPU-h",
                                "all GPU-h");
  out += fmt::format("{:<28} {:>6} {:>9} {:>9} {:>9} {:>9} {:>11} {:>10} {:>10}\n", "", "", "(min)", "(min)", "(min)",
                     "(min)", "(min)", "(spawned)", "");
  for (const EvalClusterPolicyResult& r : results) {
    std::vector<double> lat;
    double wait = 0;
    for (const CheckpointRecord& c : r.checkpoints) {
      lat.push_back(to_seconds(c.latency()) / 60.0);
      wait += to_seconds(c.first_start - c.written) / 60.0;
    }
    double mean = 0;
    for (double l : lat) mean += l;
    if (!lat.empty()) {
      mean /= static_cast<double>(lat.size());
      wait /= static_cast<double>(lat.size());
    }
    out += fmt::format("{:<28} {:>6} {:>9.1f} {:>9.1f} {:>9.1f} {:>9.1f} {:>11.1f} {:>10.1f} {:>10.0f}\n", r.policy,
                       r.checkpoints.size(), mean, percentile(lat, 0.5), percentile(lat, 0.95),
                       lat.empty() ? 0.0 : *std::max_element(lat.begin(), lat.end()), wait,
                       static_cast<double>(r.eval_gpu_ms) / 3.6e6, static_cast<double>(r.all_gpu_ms) / 3.6e6);
  }
  out += "latency: checkpoint written -> all metrics computed; wait: checkpoint -> first trial started; eval GPU-h: "
         "the checkpoint trials' (the trace's own Eval jobs excluded).\n";
  return out;
}

int run_eval_cluster(const std::string& file, const std::string& out_dir, const Catalog& catalog) {
  const auto results = eval_cluster(file, catalog, out_dir);
  fmt::print("{}", eval_cluster_table(results));
  if (!out_dir.empty()) fmt::print("wrote {}/checkpoints_<policy>.csv\n", out_dir);
  return 0;
}

}  // namespace acmesim
