// `acmesim synth`: generate an Acme-style trace from a workload profile (tools/workload/generator.hpp).
#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "app/command.hpp"
#include "io/profile.hpp"
#include "sim/core/error.hpp"
#include "tools/workload/generator.hpp"

#ifndef ACMESIM_CONFIG_DIR
#define ACMESIM_CONFIG_DIR "configs"
#endif

namespace acmesim::app {

namespace {

struct SynthArgs {
  std::string profile;
  std::optional<double> days;
  std::optional<std::uint64_t> jobs;
  double load = 1.0;
  std::uint64_t seed = 1;
  std::string out;
};

int run_synth(const SynthArgs& args, const Catalog& catalog, spdlog::logger& log) {
  const WorkloadProfile profile =
      load_profile(resolve_profile(args.profile, std::string(ACMESIM_CONFIG_DIR) + "/profiles"));
  catalog.schedulers.make(PolicyArgs::named("scheduler", profile.scheduler));  // unknown names fail early
  catalog.placements.make(PolicyArgs::named("placement", profile.placement));
  ProgressLine generating{log, "generating"};
  generating.update(fmt::format("{} profile", profile.name));
  Trace trace = generate_submissions(profile, SynthOptions{args.days, args.jobs, args.load, args.seed});
  generating.done(fmt::format("generated {} submissions ({} profile, {} schema, seed {}) in {:.2f}s", trace.jobs.size(),
                              profile.name, name(profile.schema), args.seed, generating.seconds()));
  ProgressLine scheduling{log, "scheduling"};
  scheduling.update(fmt::format("{} + {} on {} x {} GPUs", profile.scheduler, profile.placement,
                                profile.cluster.gpu_nodes, profile.cluster.gpus_per_node));
  schedule_submissions(trace, profile, catalog, args.seed);
  scheduling.done(fmt::format("scheduled them ({} + {} on {} x {} GPUs) in {:.2f}s", profile.scheduler,
                              profile.placement, profile.cluster.gpu_nodes, profile.cluster.gpus_per_node,
                              scheduling.seconds()));
  ProgressLine writing{log, "writing"};
  writing.update(args.out);
  write_acme_trace(args.out, trace, profile);
  writing.done(fmt::format("wrote {} in {:.2f}s", args.out, writing.seconds()));
  return 0;
}

}  // namespace

void add_synth(CLI::App& app, Context& context) {
  auto args = std::make_shared<SynthArgs>();
  CLI::App* cmd = app.add_subcommand(
      "synth",
      "Generate an Acme-style trace calibrated to the paper, in the exact AcmeTrace schema of the profile's cluster; "
      "start, end and queue come from simulating the submissions on the profile's cluster and scheduler");
  cmd->add_option("--profile", args->profile, "seren, kalos (configs/profiles/*.yaml) or a profile YAML of your own")
      ->required();
  cmd->add_option("--days", args->days, "Span of submissions in days, at most 3650 (default: the profile's)")
      ->check(in_range(0.0, kMaxSynthDays));
  cmd->add_option("--jobs", args->jobs,
                  "Number of jobs, at most 100,000,000 (default: the profile's rate x days x load)")
      ->check(in_range<std::uint64_t>(1, kMaxSynthJobs));
  cmd->add_option("--load", args->load,
                  "Arrival-rate multiplier: with --days, X times the jobs; with --jobs, the same jobs in 1/X of the "
                  "time (default 1)")
      ->check(in_range(1e-6, 1e6));
  cmd->add_option("--seed", args->seed, "Seed of every random stream (default 1)")
      ->check(in_range<std::uint64_t>(0, std::numeric_limits<std::uint64_t>::max()));
  cmd->add_option("-o,--out", args->out, "Output trace (.csv, or .csv.gz for gzip)")->required();
  add_log_options(*cmd, context.log);
  cmd->callback([args, &context] { context.exit_code = run_synth(*args, context.catalog, context.log); });
}

}  // namespace acmesim::app
