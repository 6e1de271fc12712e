#pragma once
// Small builders shared by the tests.
#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/policy_yaml.hpp"
#include "policies/catalog.hpp"
#include "sim/policy_api/policies.hpp"
#include "sim/run/simulation.hpp"

extern char** environ;

namespace acmesim::testing {

/// The source tree, for the bundled configs and traces.
inline const std::string kSource = ACMESIM_SOURCE_DIR;

/// A folder of this test process's own under the temp directory (created if missing): ctest runs
/// test cases in parallel processes, and fixed /tmp paths would collide.
inline std::filesystem::path scratch_dir() {
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("acmesim-test-{}", ::getpid());
  std::filesystem::create_directories(dir);
  return dir;
}

/// Runs the acmesim binary with `args` (a shell word list) in a fresh folder of its own, stdout
/// to stdout.txt and stderr to stderr.txt there; returns the folder and the exit code.
inline std::pair<std::filesystem::path, int> run_command(const std::string& case_name, const std::string& args) {
  const auto dir = scratch_dir() / case_name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string command =
      fmt::format("cd '{}' && '{}' {} > stdout.txt 2> stderr.txt", dir.string(), ACMESIM_BINARY, args);
  const int status = std::system(command.c_str());
  return {dir, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

/// Starts the acmesim binary with `args` (the words after the program's name), stderr to
/// /dev/null, without waiting: for tests that kill or interrupt it. Its pid, or -1 if it could
/// not start.
inline pid_t spawn_acmesim(std::vector<std::string> args) {
  std::vector<std::string> words{ACMESIM_BINARY};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  if (posix_spawn(&pid, ACMESIM_BINARY, &actions, nullptr, argv.data(), environ) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

/// Waits for `pid`: its exit code, or 128 + the signal that ended it; -1 if it cannot be waited for.
inline int wait_for_exit(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/// The whole file as bytes ("" if it cannot be read).
inline std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct JobLine {
  std::int64_t submit_s;
  int gpus;
  std::int64_t runtime_s;
};

/// Single-node GPU jobs (16 CPUs per GPU), ids in order, sorted by submission as given.
inline std::vector<JobSpec> make_jobs(const std::vector<JobLine>& lines) {
  std::vector<JobSpec> jobs;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    JobSpec j;
    j.id = JobId{static_cast<std::uint32_t>(i)};
    fmt::format_to(std::back_inserter(j.trace_id), "j{}", i);
    j.type = JobType::Other;
    const int gpus = lines[i].gpus;
    j.demand = Demand{std::max(1, (gpus + 7) / 8), gpus, gpus * 16, 0};
    j.submitted = SimTime{seconds(lines[i].submit_s)};
    j.runtime = seconds(lines[i].runtime_s);
    j.source_line = static_cast<std::uint32_t>(i + 2);
    jobs.push_back(j);
  }
  return jobs;
}

inline RunResult run_policies(const ClusterSpec& cluster, const std::vector<JobSpec>& jobs,
                              const std::string& scheduler, const std::string& placement) {
  const Catalog catalog = builtin_catalog();
  Simulation sim{cluster, jobs,
                 core_policies(catalog, catalog.schedulers.make(PolicyArgs::named("scheduler", scheduler)),
                               catalog.placements.make(PolicyArgs::named("placement", placement)))};
  return sim.run();
}

inline std::vector<std::int64_t> start_seconds(const RunResult& r) {
  std::vector<std::int64_t> out;
  for (const JobStatus& s : r.jobs) out.push_back(s.started ? s.started->time_since_epoch().count() / 1000 : -1);
  return out;
}

inline std::vector<std::int64_t> end_seconds(const RunResult& r) {
  std::vector<std::int64_t> out;
  for (const JobStatus& s : r.jobs) out.push_back(s.ended ? s.ended->time_since_epoch().count() / 1000 : -1);
  return out;
}

/// `text` as gzip data (Boost.Iostreams' compressor, as `io/trace_writer.cpp` writes traces),
/// for the tests of gzip input. Defined in tests/support.cpp, the one file of the suite that
/// compiles the compressor.
std::string gzip(std::string_view text);

}  // namespace acmesim::testing

namespace acmesim::testing {

/// Runs with a scheduler given as a YAML block, e.g. "{name: las, thresholds_gpu_s: [800]}".
inline RunResult run_yaml(const ClusterSpec& cluster, const std::vector<JobSpec>& jobs, const std::string& scheduler,
                          const std::string& placement = "pack") {
  const Catalog catalog = builtin_catalog();
  const PolicyArgs args = policy_from_text("scheduler", scheduler, "<test>", 1);
  Simulation sim{cluster, jobs,
                 core_policies(catalog, catalog.schedulers.make(args),
                               catalog.placements.make(PolicyArgs::named("placement", placement)))};
  return sim.run();
}

}  // namespace acmesim::testing
