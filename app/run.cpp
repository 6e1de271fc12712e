// `acmesim run`: replay a trace on a modelled cluster and write jobs.csv, timeline.csv, summary.json.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/command.hpp"
#include "io/acme_trace.hpp"
#include "io/outputs.hpp"
#include "io/scenario.hpp"
#include "sim/metrics/summary.hpp"
#include "sim/run/simulation.hpp"

namespace acmesim::app {

namespace {

struct RunArgs {
  std::string scenario;
  std::string out;
  std::vector<std::string> sets;
  std::optional<std::string> seed;  // as typed: checked by the scenario reader, as `--set seed=` is
  bool skip_bad_rows = false;
  bool quiet = false;
  bool print_config = false;
  bool force = false;
};

/// Where the outputs go: -o, else out/NAME for the scenario as written, or out/NAME-ID when
/// overrides change it, so that runs of different configurations never replace each other.
/// A folder holding another configuration's outputs is refused unless --force.
std::string output_dir(const RunArgs& args, const Scenario& scenario, const Provenance& provenance) {
  std::string out = args.out;
  if (out.empty()) {
    out = provenance.overrides.empty() ? fmt::format("out/{}", scenario.name)
                                       : fmt::format("out/{}-{}", scenario.name, provenance.scenario_id().substr(0, 8));
  }
  const std::string recorded = recorded_scenario_id(out);
  if (args.force || recorded.empty() || recorded == provenance.scenario_id()) return out;
  throw InputError(fmt::format(
      "{}: holds the outputs of another configuration ({}; this run's is {}): give another folder with -o, or "
      "--force to replace them",
      out, recorded == "?" ? "its summary.json names none" : "scenario_id " + recorded, provenance.scenario_id()));
}

int run(const RunArgs& args, const Catalog& catalog, const std::string& command_line, spdlog::logger& log) {
  std::vector<std::string> overrides = args.sets;
  if (args.seed) overrides.push_back(fmt::format("seed={}", *args.seed));
  const Scenario scenario = load_scenario(args.scenario, overrides, std::filesystem::current_path().string());
  // Resolving builds every policy: a typo in the scenario fails here, before a long trace read.
  const Provenance provenance{command_line, overrides, resolved_scenario_yaml(scenario, catalog)};
  if (args.print_config) {
    fmt::print("{}", provenance.scenario_yaml);
    return 0;
  }
  const std::string out = output_dir(args, scenario, provenance);

  const int total_gpus = scenario.cluster.gpu_nodes * scenario.cluster.gpus_per_node;
  log.debug("scenario {}: trace {}, {} x {} GPUs, scheduler {}, placement {}", scenario.source, scenario.trace_path,
            scenario.cluster.gpu_nodes, scenario.cluster.gpus_per_node, scenario.scheduler.name(),
            scenario.placement.name());
  const Trace trace = read_trace(scenario.trace_path, scenario.skip_bad_rows || args.skip_bad_rows, log);
  if (trace.jobs.empty()) log.warn("{} holds no jobs: the outputs will be empty", trace.path);
  const double load = offered_gpu_load(trace.jobs, total_gpus);
  if (load > 1.0) {
    log.warn(
        "the trace asks for {:.0f}% of the cluster's GPU time over its span of submissions: no scheduler can keep "
        "up, queues will grow until submissions stop",
        100.0 * load);
  }

  // jobs.csv's rows are formatted and written on a second thread as their jobs settle, during the
  // event loop, which leaves that core idle; the file is renamed into place only after the run,
  // once the previous outputs are out of the way (JobsCsvWriter). timeline.csv follows it on the
  // same thread. This thread then computes the summaries and helps format the rows left.
  create_output_dir(out);
  JobsCsvWriter jobs_csv{out + "/jobs.csv", trace, JobsCsvColumns::WithExtras};
  std::optional<RunResult> result;      // set before jobs_csv.finish(), so before write() returns
  std::optional<ProgressLine> writing;  // likewise: write() reports rows only once finished
  auto run_files = std::async(std::launch::async, [&] {
    jobs_csv.write([&](std::size_t rows) {
      writing->update(fmt::format("{}/jobs.csv: {:.1f}% of {} rows", out,
                                  100.0 * static_cast<double>(rows) / static_cast<double>(trace.jobs.size()),
                                  trace.jobs.size()));
    });
    write_timeline_csv(out + "/timeline.csv", trace, *result, total_gpus);
  });
  // If anything fails before the end (the simulation, the folder), the writer must not wait for
  // a finish() that will not come: abandoned, it removes its temporary file and returns, and the
  // future's destructor joins it. Harmless on the way out of a run that went well.
  struct AbandonOnExit {
    JobsCsvWriter& writer;
    ~AbandonOnExit() { writer.abandon(); }
  } abandon_on_exit{jobs_csv};
  ProgressLine simulating{log, "simulating"};
  {
    SimulationOptions options = simulation_options(scenario, trace);
    options.on_progress = [&simulating](const Progress& p) {
      simulating.update(fmt::format("{:5.1f}% of jobs done | simulated day {:.1f} | {:.1f}M events",
                                    100.0 * p.fraction_done, to_seconds(p.now) / 86400.0,
                                    static_cast<double>(p.events) / 1e6));
    };
    options.settled = &jobs_csv;
    Simulation simulation{scenario.cluster, trace.jobs, make_policies(scenario, catalog), options};
    const double set_up = simulating.seconds();
    result = simulation.run();
    // The phases inside "simulated" (docs/performance.md; bench/end_to_end.sh reads these lines).
    log.debug("set up the simulation for {} jobs in {:.2f}s", trace.jobs.size(), set_up);
    log.debug("event loop: {} events in {:.2f}s ({:.2f}M events/s)", result->events, result->wall_seconds,
              static_cast<double>(result->events) / std::max(result->wall_seconds, 1e-9) / 1e6);
  }
  simulating.done(fmt::format("simulated {} events in {:.2f}s", result->events, simulating.seconds()));
  writing.emplace(log, "writing");
  writing->update(out);
  prepare_outputs(out);
  PreviousOutputs previous{out};
  jobs_csv.finish(*result);
  log.debug("jobs.csv: {} of {} rows written during the event loop", jobs_csv.rows_written_before_finish(),
            trace.jobs.size());
  const auto summarizing = std::chrono::steady_clock::now();
  const RunSummary summary = summarize(trace.jobs, *result, total_gpus);
  log.debug("summarized {} jobs in {:.2f}s (while jobs.csv and timeline.csv were written)", trace.jobs.size(),
            std::chrono::duration<double>(std::chrono::steady_clock::now() - summarizing).count());
  jobs_csv.help();
  previous.discard();
  run_files.get();
  write_summary_file(out, provenance, scenario, trace, *result, summary);
  writing->done(fmt::format("wrote {}/jobs.csv, timeline.csv, summary.json in {:.2f}s", out, writing->seconds()));
  if (!args.quiet) fmt::print("{}", summary_table(scenario, trace, *result, summary));
  if (result->timeline_truncated) {
    log.warn(
        "timeline.csv stops after {} samples (the most a run records) at simulated day {:.1f}; a longer "
        "timeline_interval_s covers the whole run",
        result->timeline.size(), to_seconds(result->timeline.back().at - result->first_submit) / 86400.0);
  }
  if (result->conflicts > 0) {
    log.warn(
        "{} jobs could not start when the scheduler wanted (recorded starts that do not fit this cluster); "
        "summary.json lists the first under 'conflicts'",
        result->conflicts);
  }
  if (!result->unschedulable.empty()) {
    const auto& first = result->unschedulable.front();
    log.warn("{} jobs can never fit this cluster, e.g. job {} (line {}): {}", result->unschedulable.size(),
             trace.jobs[first.job.value()].trace_id, trace.jobs[first.job.value()].source_line, first.reason);
  }
  return 0;
}

}  // namespace

void add_run(CLI::App& app, Context& context) {
  auto args = std::make_shared<RunArgs>();
  args->scenario = context.default_scenario;
  CLI::App* cmd = app.add_subcommand("run",
                                     "Replay a trace on a modelled cluster under a scheduler and write "
                                     "jobs.csv, timeline.csv and summary.json");
  cmd->add_option("scenario", args->scenario, "Scenario YAML (default: the bundled configs/default.yaml)")
      ->check(CLI::ExistingFile);
  cmd->add_option("-o,--out", args->out,
                  "Output directory (default: out/<scenario name>, or out/<scenario name>-<id of the resolved "
                  "scenario> when --set or --seed change it)");
  cmd->add_flag("--force", args->force,
                "Replace the outputs of another configuration in the output directory (refused without it)");
  cmd->add_flag("--print-config", args->print_config,
                "Print the resolved scenario (every key and policy parameter, defaults filled in) as YAML and exit");
  add_set_option(*cmd, args->sets,
                 "Override a scenario key, e.g. --set cluster.nodes=300 --set scheduler=replay "
                 "--set trace=x.csv (paths given here are relative to the working directory)");
  cmd->add_option("--seed", args->seed,
                  "Seed of every random stream, a whole number in [0, 2^64) (overrides the scenario's)");
  cmd->add_flag("--skip-bad-rows", args->skip_bad_rows,
                "Skip malformed trace rows, counting and reporting them, instead of stopping at the first");
  add_log_options(*cmd, context.log, &args->quiet);
  cmd->callback(
      [args, &context] { context.exit_code = run(*args, context.catalog, context.command_line, context.log); });
}

}  // namespace acmesim::app
