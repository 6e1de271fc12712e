// Throughput of a Seren-scale replay: generates its input with the workload generator of
// `acmesim synth` (configs/profiles/seren.yaml by default), then measures the simulation (fifo +
// pack on 286 x 8 GPUs) and, optionally, the CSV reader. Prints one line per figure;
// docs/performance.md records them. With --emit-trace it writes the generated jobs, scheduled
// by the profile's cluster and policies, as an AcmeTrace-format CSV (as `acmesim synth` does).
#include <fmt/format.h>
#include <sys/resource.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <queue>

#include "io/outputs.hpp"
#include "io/profile.hpp"
#include "policies/catalog.hpp"
#include "policies/scheduling/duration_predictor.hpp"
#include "sim/metrics/summary.hpp"
#include "sim/run/simulation.hpp"
#include "tools/workload/generator.hpp"

using namespace acmesim;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

long peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"acmesim replay benchmark"};
  std::string profile_path = "seren";
  std::uint64_t jobs = 100000;
  double days = 184;  // Seren's six months [AcmeTrace README]
  std::uint64_t seed = 1;
  std::string scheduler = "fifo";
  std::string placement = "pack";
  std::string emit;
  bool csv = false;
  int nodes = 0;  // 0: the profile's (Seren: 286 = 2,288 GPUs / 8 [Acme Table 1])
  app.add_option("--profile", profile_path, "Workload profile: seren, kalos or a YAML file (default seren)");
  app.add_option("--jobs", jobs, "Jobs to generate");
  app.add_option("--days", days, "Span of submissions in days");
  app.add_option("--seed", seed, "Generator seed");
  app.add_option("--nodes", nodes, "GPU nodes (default: the profile's cluster)");
  bool by_type = false;
  bool predictor = false;
  int nodes_per_switch = 0;
  app.add_option("--nodes-per-switch", nodes_per_switch, "GPU nodes per leaf switch (topology placement)");
  app.add_option("--scheduler", scheduler, "Scheduler");
  app.add_option("--placement", placement, "Placement");
  app.add_flag("--predictor", predictor, "Only report the accuracy of qssf's duration predictor on the trace");
  app.add_flag("--by-type", by_type, "Also print GPU allocation and per-type queueing delay");
  app.add_flag("--csv", csv, "Also time writing and reading the trace as CSV");
  app.add_option("--emit-trace", emit, "Write the scheduled jobs as an AcmeTrace CSV to this file and exit");
  CLI11_PARSE(app, argc, argv);

  const Catalog catalog = builtin_catalog();
  auto t0 = std::chrono::steady_clock::now();
  WorkloadProfile profile = load_profile(resolve_profile(profile_path, ACMESIM_SOURCE_DIR "/configs/profiles"));
  Trace trace = generate_submissions(profile, SynthOptions{days, jobs, 1.0, seed});
  fmt::print("generate  {:>9} jobs  {:7.2f}s\n", trace.jobs.size(), seconds_since(t0));

  if (predictor) {
    // qssf's predictor, offline: jobs in submission order, each ended job learned once its
    // submission + duration has passed (as if it never queued), accuracy over GPU jobs.
    policies::DurationPredictor p;
    using Pending = std::pair<SimTime, std::size_t>;
    std::priority_queue<Pending, std::vector<Pending>, std::greater<>> ends;
    std::vector<double> errors;
    std::size_t within2 = 0;
    for (std::size_t i = 0; i < trace.jobs.size(); ++i) {
      const JobSpec& job = trace.jobs[i];
      while (!ends.empty() && ends.top().first <= job.submitted) {
        p.learn(trace.jobs[ends.top().second], trace.jobs[ends.top().second].runtime);
        ends.pop();
      }
      if (!job.demand.cpu_only()) {
        const double predicted = std::max<double>(1000.0, static_cast<double>(p.predict(job).count()));
        const double actual = std::max<double>(1000.0, static_cast<double>(job.runtime.count()));
        const double e = std::abs(std::log2(predicted / actual));
        errors.push_back(e);
        within2 += e <= 1.0 ? 1 : 0;
      }
      ends.push({job.submitted + job.runtime, i});
    }
    std::sort(errors.begin(), errors.end());
    fmt::print("qssf predictor on {} GPU jobs: median |log2(predicted/actual)| {:.2f}, within 2x {:.1f}%\n",
               errors.size(), errors.empty() ? 0.0 : errors[errors.size() / 2],
               errors.empty() ? 0.0 : 100.0 * static_cast<double>(within2) / static_cast<double>(errors.size()));
    return 0;
  }
  ClusterSpec cluster = profile.cluster;
  if (nodes > 0) cluster.gpu_nodes = nodes;
  cluster.nodes_per_switch = nodes_per_switch;
  t0 = std::chrono::steady_clock::now();
  Simulation sim{cluster, trace.jobs,
                 core_policies(catalog, catalog.schedulers.make(PolicyArgs::named("scheduler", scheduler)),
                               catalog.placements.make(PolicyArgs::named("placement", placement)))};
  const RunResult result = sim.run();
  const double run_s = seconds_since(t0);
  fmt::print(
      "simulate  {:>9} jobs  {:7.2f}s  {:6.2f}M jobs/s  {:6.2f}M events/s  ({} events, {} {}, peak RSS {} MiB)\n",
      trace.jobs.size(), run_s, static_cast<double>(trace.jobs.size()) / run_s / 1e6,
      static_cast<double>(result.events) / run_s / 1e6, result.events, scheduler, placement, peak_rss_mib());

  if (by_type) {
    const RunSummary summary = summarize(trace.jobs, result, cluster.gpu_nodes * cluster.gpus_per_node);
    fmt::print("GPU allocation {:.1f}%, preemptions {}\n", 100.0 * summary.gpu_allocation_ratio,
               summary.overall.preemptions);
    for (JobType type : kJobTypes) {
      const GroupStats& g = summary.by_type[static_cast<std::size_t>(type)];
      fmt::print("  {:<9} {:>8} jobs  queue mean {:>9.0f}s  p50 {:>6.0f}s  p99 {:>9.0f}s  JCT mean {:>9.0f}s\n",
                 name(type), g.jobs, g.queue.mean, g.queue.median, g.queue.p99, g.jct.mean);
    }
  }
  if (!emit.empty()) {
    profile.cluster = cluster;
    profile.scheduler = scheduler;
    profile.placement = placement;
    schedule_submissions(trace, profile, catalog, seed);
    write_acme_trace(emit, trace, profile);
    fmt::print("wrote {}\n", emit);
    return 0;
  }
  if (csv) {
    const std::string path = (std::filesystem::temp_directory_path() / "acmesim_bench_trace.csv").string();
    t0 = std::chrono::steady_clock::now();
    write_jobs_csv(path, trace, result, JobsCsvColumns::TraceOnly);
    fmt::print("write csv {:>9} rows  {:7.2f}s\n", trace.jobs.size(), seconds_since(t0));
    t0 = std::chrono::steady_clock::now();
    const Trace back = read_acme_trace(path);
    const double read_s = seconds_since(t0);
    fmt::print("read csv  {:>9} rows  {:7.2f}s  {:6.2f}M rows/s  (peak RSS {} MiB)\n", back.jobs.size(), read_s,
               static_cast<double>(back.jobs.size()) / read_s / 1e6, peak_rss_mib());
    std::filesystem::remove(path);
  }
  return 0;
}
