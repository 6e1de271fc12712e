// Outputs that never lie: a run killed or interrupted at any moment, and a reader that goes away.
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "tests/support.hpp"

namespace {

using acmesim::testing::kSource;
using acmesim::testing::scratch_dir;
using acmesim::testing::slurp;
namespace fs = std::filesystem;

const std::vector<std::string> kOutputs{"jobs.csv", "timeline.csv", "summary.json"};

/// Starts `acmesim run <scenario> --set scheduler=<scheduler> -q -o <out>` (stderr discarded).
pid_t start_run(const std::string& scheduler, const fs::path& out) {
  const pid_t pid = acmesim::testing::spawn_acmesim(
      {"run", kSource + "/configs/seren.yaml", "--set", "scheduler=" + scheduler, "-q", "-o", out.string()});
  REQUIRE(pid > 0);
  return pid;
}

int wait_for(pid_t pid) { return acmesim::testing::wait_for_exit(pid); }

double run_seconds(const std::string& scheduler, const fs::path& out) {
  const auto start = std::chrono::steady_clock::now();
  REQUIRE(wait_for(start_run(scheduler, out)) == 0);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::vector<std::string> partial_files(const fs::path& dir) {
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const auto extension = entry.path().extension();
    if (extension == ".partial" || extension == ".previous") found.push_back(entry.path().filename().string());
  }
  return found;
}

}  // namespace

TEST_CASE(
    "A run killed at any moment leaves each output the previous run's or the new one's, complete, or none (jobs.csv "
    "and timeline.csv are moved aside while the new ones are written)",
    "[cli][outputs]") {
  const fs::path base = scratch_dir() / "kill";
  fs::remove_all(base);
  // Two complete runs that differ in every output: the previous run's folder and what the new
  // run writes when left alone.
  run_seconds("fifo", base / "previous");
  const double seconds = run_seconds("slurm", base / "new");
  for (int step = 1; step <= 8; ++step) {
    const fs::path target = base / "target";
    fs::remove_all(target);
    fs::copy(base / "previous", target);
    const pid_t pid = start_run("slurm", target);
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds * step / 8.0));
    kill(pid, SIGKILL);
    wait_for(pid);
    INFO("killed after " << seconds * step / 8.0 << " s of a " << seconds << " s run");
    const bool summary_present = fs::exists(target / "summary.json");
    const std::string summary = slurp(target / "summary.json");
    const bool summary_new = summary_present && summary == slurp(base / "new" / "summary.json");
    const bool summary_previous = summary_present && summary == slurp(base / "previous" / "summary.json");
    CHECK((!summary_present || summary_new || summary_previous));
    for (const std::string& name : kOutputs) {
      INFO(name);
      if (!fs::exists(target / name)) continue;
      const std::string content = slurp(target / name);
      const bool is_new = content == slurp(base / "new" / name);
      const bool is_previous = content == slurp(base / "previous" / name);
      CHECK((is_new || is_previous));
      // A summary.json vouches for the files beside it.
      if (summary_new) CHECK(is_new);
      if (summary_previous) CHECK(is_previous);
    }
  }
}

TEST_CASE(
    "An interrupted run exits 130 and leaves no temporary file, no set-aside earlier output and no summary of a run it "
    "did not finish",
    "[cli][outputs]") {
  const fs::path base = scratch_dir() / "interrupt";
  fs::remove_all(base);
  const double seconds = run_seconds("slurm", base / "timing");
  const std::string earlier_summary = slurp(base / "timing" / "summary.json");
  for (const bool earlier_outputs : {false, true}) {
    for (const int signal : {SIGINT, SIGTERM}) {
      INFO("signal " << signal << ", earlier outputs in the folder " << earlier_outputs);
      const fs::path target = base / fmt::format("target-{}-{}", signal, earlier_outputs);
      // Outputs of an earlier run there, which the run moves aside while it writes its own.
      if (earlier_outputs) fs::copy(base / "timing", target);
      const pid_t pid = start_run("slurm", target);
      std::this_thread::sleep_for(std::chrono::duration<double>(seconds * 0.7));
      kill(pid, signal);
      const int code = wait_for(pid);
      if (code == 0) continue;  // it finished first: nothing to check
      CHECK(code == 130);
      if (!fs::exists(target)) continue;
      CHECK(partial_files(target).empty());
      if (!fs::exists(target / "summary.json")) continue;
      if (slurp(target / "summary.json") == earlier_summary) {
        // The earlier run's, if the run was stopped before it began to replace it.
        CHECK(earlier_outputs);
      } else {
        // This run's: the signal came after its last output was complete (the run was still
        // exiting, which takes a while under a sanitizer), so it vouches for complete outputs.
        CHECK(slurp(target / "jobs.csv") == slurp(base / "timing" / "jobs.csv"));
        CHECK(slurp(target / "timeline.csv") == slurp(base / "timing" / "timeline.csv"));
      }
    }
  }
}

TEST_CASE("A reader that closes the pipe early is no error, and a full stdout is exit 2 with the reason", "[cli]") {
  const auto dir = scratch_dir() / "cli-full-stdout";
  fs::create_directories(dir);
  const std::string full = fmt::format("cd '{}' && '{}' stats '{}/traces/seren_week.csv.gz' > /dev/full 2> stderr.txt",
                                       dir.string(), ACMESIM_BINARY, kSource);
  const int status = std::system(full.c_str());
  CHECK(WEXITSTATUS(status) == 2);
  CHECK(slurp(dir / "stderr.txt").find("standard output: cannot write (No space left on device)") != std::string::npos);
  const auto pipe_dir = scratch_dir() / "cli-pipe-closed";
  fs::create_directories(pipe_dir);
  const std::string command =
      fmt::format("cd '{}' && ('{}' stats '{}/traces/seren_week.csv.gz'; echo $? > code) | true", pipe_dir.string(),
                  ACMESIM_BINARY, kSource);
  REQUIRE(std::system(command.c_str()) == 0);
  CHECK(slurp(pipe_dir / "code") == "0\n");
}
