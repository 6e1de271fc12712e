#include "tools/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <memory>
#include <thread>

#include "io/output_file.hpp"
#include "sim/core/error.hpp"
#include "sim/run/simulation.hpp"

namespace acmesim {

namespace {

PolicyArgs args_for(const PolicyArgs& configured, const std::string& slot, const std::string& name,
                    std::uint64_t seed) {
  return configured.name() == name ? configured : PolicyArgs::named(slot, name, seed);
}

struct Row {
  std::string label;
  const GroupStats* stats;
};

std::vector<Row> rows_of(const CompareOutcome& o) {
  std::vector<Row> rows;
  for (JobType type : kJobTypes) {
    const GroupStats& g = o.summary.by_type[static_cast<std::size_t>(type)];
    if (g.jobs > 0) rows.push_back({std::string(name(type)), &g});
  }
  rows.push_back({"all", &o.summary.overall});
  return rows;
}

}  // namespace

std::vector<CompareOutcome> run_variants(const Scenario& scenario, const Trace& trace, const Catalog& catalog,
                                         const std::vector<CompareVariant>& variants, unsigned threads) {
  // Policies are built here, in one thread: yaml-cpp nodes are not safe to read concurrently.
  // Every variant keeps the scenario's outcome, failure and recovery policies.
  std::vector<Policies> policies;
  for (const CompareVariant& v : variants) {
    Policies p = make_policies(scenario, catalog);
    p.scheduler = catalog.schedulers.make(args_for(scenario.scheduler, "scheduler", v.scheduler, scenario.seed));
    p.placement = catalog.placements.make(args_for(scenario.placement, "placement", v.placement, scenario.seed));
    policies.push_back(std::move(p));
  }
  std::vector<CompareOutcome> outcomes(variants.size());
  for (std::size_t i = 0; i < variants.size(); ++i) {
    Scenario variant = scenario;
    variant.scheduler = args_for(scenario.scheduler, "scheduler", variants[i].scheduler, scenario.seed);
    variant.placement = args_for(scenario.placement, "placement", variants[i].placement, scenario.seed);
    outcomes[i].scenario_yaml = resolved_scenario_yaml(variant, catalog);
  }
  std::atomic<std::size_t> next{0};
  const int total_gpus = scenario.cluster.gpu_nodes * scenario.cluster.gpus_per_node;
  const auto work = [&] {
    for (std::size_t i = next++; i < variants.size(); i = next++) {
      Simulation sim{scenario.cluster, trace.jobs, std::move(policies[i]), simulation_options(scenario, trace)};
      const RunResult result = sim.run();
      CompareOutcome& o = outcomes[i];
      o.variant = variants[i];
      o.summary = summarize(trace.jobs, result, total_gpus);
      o.fingerprint = result.fingerprint;
      o.events = result.events;
      o.unstarted = result.unstarted;
      o.wall_seconds = result.wall_seconds;
    }
  };
  if (threads == 0) threads = std::max(1U, std::thread::hardware_concurrency());
  threads = std::min<unsigned>(threads, static_cast<unsigned>(std::max<std::size_t>(variants.size(), 1)));
  // A SimulationError in a worker must reach the caller: keep the first (by variant order).
  std::vector<std::exception_ptr> errors(threads);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      try {
        work();
      } catch (...) {
        errors[t] = std::current_exception();
        next = variants.size();
      }
    });
  }
  for (std::thread& t : pool) t.join();
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  return outcomes;
}

std::string compare_csv(const std::vector<CompareOutcome>& outcomes) {
  std::string out =
      "scheduler,placement,type,jobs,queue_mean_s,queue_median_s,queue_p99_s,wait_mean_s,wait_median_s,wait_p99_s,"
      "jct_mean_s,jct_median_s,jct_p99_s,slowdown_mean,gpu_allocation_ratio,makespan_s,preemptions,lost_gpu_hours,"
      "overhead_gpu_hours,unstarted,fingerprint,scenario_id\n";
  for (const CompareOutcome& o : outcomes) {
    for (const Row& r : rows_of(o)) {
      const GroupStats& g = *r.stats;
      out += fmt::format(
          "{},{},{},{},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.6f},{:.3f},"
          "{},{:.3f},{:.3f},{},{},{}\n",
          o.variant.scheduler, o.variant.placement, r.label, g.jobs, g.queue.mean, g.queue.median, g.queue.p99,
          g.wait.mean, g.wait.median, g.wait.p99, g.jct.mean, g.jct.median, g.jct.p99, g.slowdown.mean,
          o.summary.gpu_allocation_ratio, o.summary.makespan_s, g.preemptions,
          static_cast<double>(g.lost_gpu_ms) / 3.6e6, static_cast<double>(g.overhead_gpu_ms) / 3.6e6, o.unstarted,
          o.fingerprint, o.scenario_id());
    }
  }
  return out;
}

std::string compare_pretty(const std::vector<CompareOutcome>& outcomes) {
  std::string out =
      fmt::format("{:<22} {:<10} {:<9} {:>8} {:>9} {:>8} {:>9} {:>9} {:>9} {:>9} {:>8} {:>9} {:>7} {:>8} {:>8}\n",
                  "scheduler", "placement", "type", "jobs", "queue avg", "q p50", "q p99", "wait avg", "wait p99",
                  "JCT avg", "JCT p50", "JCT p99", "alloc", "makespan", "preempt");
  for (const CompareOutcome& o : outcomes) {
    for (const Row& r : rows_of(o)) {
      const GroupStats& g = *r.stats;
      out += fmt::format(
          "{:<22} {:<10} {:<9} {:>8} {:>8.0f}s {:>7.0f}s {:>8.0f}s {:>8.0f}s {:>8.0f}s {:>8.0f}s {:>7.0f}s {:>8.0f}s "
          "{:>6.1f}% {:>7.1f}d {:>8}\n",
          o.variant.scheduler, o.variant.placement, r.label, g.jobs, g.queue.mean, g.queue.median, g.queue.p99,
          g.wait.mean, g.wait.p99, g.jct.mean, g.jct.median, g.jct.p99, 100.0 * o.summary.gpu_allocation_ratio,
          o.summary.makespan_s / 86400.0, g.preemptions);
    }
  }
  return out;
}

std::vector<CompareVariant> compare_variants(const Scenario& scenario, const Catalog& catalog,
                                             std::vector<std::string> schedulers, std::vector<std::string> placements) {
  if (schedulers.empty()) schedulers.push_back(scenario.scheduler.name());
  if (placements.empty()) placements.push_back(scenario.placement.name());
  std::vector<CompareVariant> variants;
  for (const std::string& s : schedulers) {
    for (const std::string& p : placements) variants.push_back({s, p});
  }
  for (const CompareVariant& v : variants) {
    catalog.schedulers.make(args_for(scenario.scheduler, "scheduler", v.scheduler, scenario.seed));
    catalog.placements.make(args_for(scenario.placement, "placement", v.placement, scenario.seed));
  }
  return variants;
}

int run_compare(const CompareArgs& args, const Catalog& catalog, const std::string& command_line, spdlog::logger& log) {
  const Scenario scenario = load_scenario(args.scenario, args.sets, std::filesystem::current_path().string());
  const std::vector<CompareVariant> variants = compare_variants(scenario, catalog, args.schedulers, args.placements);
  const Trace trace = read_acme_trace(scenario.trace_path, TraceReadOptions{scenario.skip_bad_rows});
  log.info("read {} jobs from {}; running {} variants", trace.jobs.size(), trace.path, variants.size());
  const auto outcomes = run_variants(scenario, trace, catalog, variants, args.threads);
  const std::string out = args.out.empty() ? fmt::format("out/{}-compare", scenario.name) : args.out;
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec) throw InputError(fmt::format("{}: cannot create the output directory ({})", out, ec.message()));
  const std::string pretty = compare_pretty(outcomes);
  std::vector<std::pair<std::string, std::string>> files{
      {"compare.csv", compare_csv(outcomes)},
      {"compare.txt", pretty},
      {"provenance.json", provenance_json(command_line, args.sets, trace)}};
  std::filesystem::create_directories(std::filesystem::path(out) / "scenarios", ec);
  if (ec) throw InputError(fmt::format("{}/scenarios: cannot create the folder ({})", out, ec.message()));
  for (const CompareOutcome& o : outcomes)
    files.emplace_back("scenarios/" + o.scenario_id() + ".yaml", o.scenario_yaml);
  for (const auto& [file, text] : files) {
    OutputFile f{(std::filesystem::path(out) / file).string()};
    f.write(text);
    f.close();
  }
  if (!args.quiet) fmt::print("{}", pretty);
  for (const CompareOutcome& o : outcomes) {
    log.info("  {} + {}: {} events in {:.2f}s", o.variant.scheduler, o.variant.placement, o.events, o.wall_seconds);
  }
  log.info("wrote {}/compare.csv, compare.txt, provenance.json, scenarios/", out);
  return 0;
}

}  // namespace acmesim
