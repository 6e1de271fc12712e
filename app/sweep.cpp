// `acmesim sweep`: a study as one command, on every core and, under mpirun or srun, on every rank.
#include "tools/sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "app/command.hpp"
#include "io/sweep_file.hpp"
#include "sim/core/error.hpp"

#ifdef ACMESIM_HAVE_MPI
#include <boost/mpi/communicator.hpp>
#include <boost/mpi/environment.hpp>

#include "tools/sweep_mpi.hpp"
#endif

namespace acmesim::app {

namespace {

struct SweepArgs {
  std::string file;
  std::string out;
  std::string summarize;
  std::vector<std::string> metrics;
  unsigned threads = 0;
  bool dry_run = false;
  bool no_summary = false;
  bool quiet = false;
};

/// The first of `names` set in the environment, as a whole number >= 1 (0 if none is).
unsigned env_count(std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (const char* value = std::getenv(name)) {
      const long n = std::strtol(value, nullptr, 10);  // SLURM_TASKS_PER_NODE may read "2(x3)"
      if (n >= 1) return static_cast<unsigned>(n);
    }
  }
  return 0;
}

/// Launched by mpirun, mpiexec or srun: their process managers set one of these.
bool launched_under_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK", "PMIX_RANK"}) {
    if (std::getenv(name) != nullptr) return true;
  }
  return false;
}

/// Threads per process: the cores shared among the ranks on this node.
unsigned default_threads() {
  const unsigned cores = std::max(1U, std::thread::hardware_concurrency());
  const unsigned local_ranks = env_count({"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"});
  return std::max(1U, cores / std::max(1U, local_ranks));
}

std::string duration_text(double seconds) {
  if (seconds < 90) return fmt::format("{:.0f}s", seconds);
  if (seconds < 5400) return fmt::format("{:.0f}m{:02.0f}s", std::floor(seconds / 60), std::fmod(seconds, 60));
  return fmt::format("{:.0f}h{:02.0f}m", std::floor(seconds / 3600), std::fmod(seconds, 3600) / 60);
}

std::string dry_run_text(const SweepRuns& runs, const std::string& out) {
  const SweepFile& sweep = runs.sweep();
  std::vector<std::vector<std::string>> table{{"point"}};
  for (const SweepAxis* axis : sweep_columns(sweep)) table.front().push_back(axis->key);
  for (const SweepPoint& p : runs.points()) {
    std::vector<std::string>& line = table.emplace_back(std::vector<std::string>{std::to_string(p.id)});
    for (const SweepValue* v : p.values) line.push_back(v->cell);
  }
  return fmt::format("{}: {} points x {} seeds ({}) = {} runs into {}\n", sweep.path, runs.points().size(),
                     sweep.seeds.size(), fmt::join(sweep.seeds, ", "), runs.points().size() * sweep.seeds.size(), out) +
         aligned_table(table);
}

/// The sweep itself, on this process (and, as rank 0, on the others through `remote`).
int run_here(SweepRuns& runs, const SweepArgs& args, const std::string& out, unsigned threads, RemoteWorkers* remote,
             spdlog::logger& log) {
  const std::size_t total = runs.points().size() * runs.sweep().seeds.size();
  log.info("{}: {} runs ({} points x {} seeds) on {} threads{} into {}", runs.sweep().path, total, runs.points().size(),
           runs.sweep().seeds.size(), threads, remote ? " per rank" : "", out);
  ProgressLine progress{log, "sweep"};
  SweepOptions options;
  options.out = out;
  options.threads = threads;
  options.on_progress = [&progress](std::size_t done, std::size_t all, std::size_t done_now) {
    const double minutes = progress.seconds() / 60;
    const double rate = minutes > 0 ? static_cast<double>(done_now) / minutes : 0;
    progress.update(fmt::format("{}/{} runs | {:.1f} runs/min | ~{} left", done, all, rate,
                                rate > 0 ? duration_text(60 * static_cast<double>(all - done) / rate) : "?"));
  };
  const SweepReport report = run_sweep(runs, options, remote, log);
  progress.done(fmt::format("{} runs in {} ({:.1f} runs/min){}; wrote {}/results.csv", report.ran,
                            duration_text(progress.seconds()),
                            progress.seconds() > 0 ? 60 * static_cast<double>(report.ran) / progress.seconds() : 0,
                            report.resumed ? fmt::format(", {} resumed from the journal", report.resumed) : "", out));
  if (!args.no_summary) {
    const std::string table = summarize_sweep(out, args.metrics);
    if (!args.quiet) fmt::print("{}", table);
    log.info("wrote {}/summary.csv", out);
  }
  return 0;
}

int sweep(const SweepArgs& args, const Catalog& catalog, const std::string& command_line, spdlog::logger& log) {
  if (!args.summarize.empty()) {
    const std::string table = summarize_sweep(args.summarize, args.metrics);
    if (!args.quiet) fmt::print("{}", table);
    log.info("wrote {}/summary.csv", args.summarize);
    return 0;
  }
  if (args.file.empty()) {
    throw input_error("acmesim sweep", "command line", "a sweep file (or --summarize DIR)", "nothing");
  }
  const unsigned threads = args.threads ? args.threads : default_threads();
#ifdef ACMESIM_HAVE_MPI
  if (launched_under_mpi()) {
    namespace mpi = boost::mpi;
    mpi::environment environment{mpi::threading::funneled, true};
    const mpi::communicator world;
    if (world.size() > 1) {
      // Any error on any rank ends the whole job (the others would wait for it forever); the
      // journal keeps every run committed so far, and a re-run resumes from it.
      const auto abort_with = [&world, &log](int code, const char* what) {
        log.error("{}{}", world.rank() ? fmt::format("rank {}: ", world.rank()) : "", what);
        world.abort(code);
        return code;
      };
      try {
        SweepRuns runs{load_sweep(args.file), catalog};
        runs.set_command_line(command_line);
        const std::string out = args.out.empty() ? "out/" + runs.sweep().name : args.out;
        if (args.dry_run) {
          if (world.rank() == 0) fmt::print("{}", dry_run_text(runs, out));
          return 0;
        }
        if (world.rank() == 0) {
          const auto remote = mpi_remote_workers(world);
          log.info("MPI: {} ranks", world.size());
          return run_here(runs, args, out, threads, remote.get(), log);
        }
        runs.read_traces(runs.all_runs(), log);
        const std::size_t ran = serve_sweep_as_worker(world, runs, out, threads);
        log.info("rank {}: ran {} runs", world.rank(), ran);
        return 0;
      } catch (const InputError& e) {
        return abort_with(2, e.what());
      } catch (const std::exception& e) {
        return abort_with(3, e.what());
      }
    }
  }
#endif
  SweepRuns runs{load_sweep(args.file), catalog};
  runs.set_command_line(command_line);
  const std::string out = args.out.empty() ? "out/" + runs.sweep().name : args.out;
  if (args.dry_run) {
    fmt::print("{}", dry_run_text(runs, out));
    return 0;
  }
  return run_here(runs, args, out, threads, nullptr, log);
}

}  // namespace

void add_sweep(CLI::App& app, Context& context) {
  auto args = std::make_shared<SweepArgs>();
  CLI::App* cmd = app.add_subcommand(
      "sweep",
      "Run a study: every point of a sweep file's grid x every seed, on all cores (and on every rank under "
      "mpirun or srun), into DIR/results.csv (one row per run) and DIR/summary.csv (mean, sd and 95% CI per "
      "point). A killed sweep resumes: run the same command again (docs/studies.md)");
  cmd->add_option("sweep_file", args->file, "Sweep YAML (configs/sweeps/; docs/studies.md has every key)")
      ->check(CLI::ExistingFile);
  cmd->add_option("-o,--out", args->out, "Sweep directory (default: out/<sweep name>)");
  cmd->add_option("-j,--threads", args->threads,
                  "Worker threads per process (default: the cores, shared among the MPI ranks of a node); "
                  "results do not depend on it")
      ->check(in_range<std::uint64_t>(1, 4096));
  cmd->add_flag("--dry-run", args->dry_run, "List the points and the number of runs, run nothing");
  cmd->add_option("--summarize", args->summarize,
                  "Only aggregate an existing DIR/results.csv into DIR/summary.csv and print the table");
  cmd->add_option("--metrics", args->metrics,
                  "Comma-separated metrics the printed table shows (default: all_queue_mean_s, "
                  "pretrain_queue_mean_s, eval_queue_mean_s, all_jct_mean_s, gpu_allocation_ratio)")
      ->delimiter(',');
  cmd->add_flag("--no-summary", args->no_summary, "Do not write summary.csv or print the table at the end");
  add_log_options(*cmd, context.log, &args->quiet);
  cmd->callback(
      [args, &context] { context.exit_code = sweep(*args, context.catalog, context.command_line, context.log); });
}

}  // namespace acmesim::app
