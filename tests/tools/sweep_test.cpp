// Sweeps: the same results.csv whatever the threads, a resume after a kill at any moment that
// runs only what is missing, a changed plan refused, and the seeds' confidence interval.
#include "tools/sweep.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <spdlog/sinks/null_sink.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "policies/catalog.hpp"
#include "tests/support.hpp"

namespace {

using namespace acmesim;
using acmesim::testing::kSource;
using acmesim::testing::scratch_dir;
using acmesim::testing::slurp;
namespace fs = std::filesystem;

const std::string kSmoke = kSource + "/configs/sweeps/smoke.yaml";

spdlog::logger quiet_log() { return spdlog::logger("test", std::make_shared<spdlog::sinks::null_sink_mt>()); }

/// Runs the sweep `file` into `out` in this process, on `threads` threads (0: the default).
SweepReport sweep_into(const std::string& file, const fs::path& out, unsigned threads = 0) {
  const Catalog catalog = builtin_catalog();
  SweepRuns runs{load_sweep(file), catalog};
  SweepOptions options;
  options.out = out.string();
  options.threads = threads;
  spdlog::logger log = quiet_log();
  return run_sweep(runs, options, nullptr, log);
}

fs::path sweep_in_process(const std::string& name, unsigned threads) {
  const fs::path out = scratch_dir() / name;
  fs::remove_all(out);
  const SweepReport report = sweep_into(kSmoke, out, threads);
  CHECK(report.runs == 8);
  CHECK(report.ran == 8);
  return out;
}

/// Starts `acmesim sweep <file> -o <out> -j 2 -q --no-summary`, stderr discarded.
pid_t start_sweep(const std::string& file, const fs::path& out) {
  const pid_t pid =
      acmesim::testing::spawn_acmesim({"sweep", file, "-o", out.string(), "-j", "2", "-q", "--no-summary"});
  REQUIRE(pid > 0);
  return pid;
}

int wait_for(pid_t pid) { return acmesim::testing::wait_for_exit(pid); }

std::size_t journal_runs(const fs::path& dir) {
  std::ifstream in(dir / "journal");
  std::size_t lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  return lines > 0 ? lines - 1 : 0;
}

}  // namespace

TEST_CASE("a sweep writes the same results.csv on one thread and on two") {
  const fs::path one = sweep_in_process("sweep-1-thread", 1);
  const fs::path two = sweep_in_process("sweep-2-threads", 2);
  const std::string results = slurp(one / "results.csv");
  CHECK(results == slurp(two / "results.csv"));
  // 8 runs, sorted by point then seed, and the seeds differ (node failures are drawn per seed).
  CHECK(std::count(results.begin(), results.end(), '\n') == 9);
  CHECK(results.find("\n0,200,fifo,1,") != std::string::npos);
  CHECK(results.find("\n3,286,easy-backfill,2,") != std::string::npos);
}

TEST_CASE("a sweep killed at random moments resumes with only the missing runs and ends with the same results.csv") {
  const fs::path reference = sweep_in_process("sweep-reference", 2);
  const fs::path out = scratch_dir() / "sweep-killed";
  fs::remove_all(out);
  const auto start = std::chrono::steady_clock::now();
  REQUIRE(wait_for(start_sweep(kSmoke, scratch_dir() / "sweep-timed")) == 0);
  const double whole = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::mt19937_64 random{std::random_device{}()};
  std::size_t before = 0;
  for (int attempt = 0; attempt < 4; ++attempt) {
    const pid_t pid = start_sweep(kSmoke, out);
    const double at = std::uniform_real_distribution<double>(0.0, whole)(random);
    std::this_thread::sleep_for(std::chrono::duration<double>(at));
    ::kill(pid, SIGKILL);
    wait_for(pid);
    const std::size_t now = journal_runs(out);
    INFO("killed after " << at << " s of " << whole << " s");
    CHECK(now >= before);  // nothing committed is ever lost
    before = now;
  }
  REQUIRE(wait_for(start_sweep(kSmoke, out)) == 0);
  CHECK(journal_runs(out) == 8);  // none run twice
  CHECK(slurp(out / "results.csv") == slurp(reference / "results.csv"));
}

TEST_CASE("a torn last journal line is dropped and that run done again") {
  const fs::path out = sweep_in_process("sweep-torn", 2);
  const std::string results = slurp(out / "results.csv");
  std::string journal = slurp(out / "journal");
  journal.resize(journal.size() - 20);  // the last append cut short
  std::ofstream(out / "journal", std::ios::binary | std::ios::trunc) << journal;
  fs::remove(out / "results.csv");
  const SweepReport report = sweep_into(kSmoke, out);
  CHECK(report.resumed == 7);
  CHECK(report.dropped == 1);
  CHECK(report.ran == 1);
  CHECK(slurp(out / "results.csv") == results);
}

TEST_CASE("a whole journal line with a wrong checksum is dropped as one line and that run done again") {
  const fs::path out = sweep_in_process("sweep-damaged", 2);
  std::string journal = slurp(out / "journal");
  journal[journal.size() - 2] = journal[journal.size() - 2] == '0' ? '1' : '0';  // the last checksum's last digit
  std::ofstream(out / "journal", std::ios::binary | std::ios::trunc) << journal;
  const SweepReport report = sweep_into(kSmoke, out);
  CHECK(report.resumed == 7);
  CHECK(report.dropped == 1);
  CHECK(report.ran == 1);
}

TEST_CASE("a journal whose first line was cut short by a kill is started afresh") {
  const fs::path out = scratch_dir() / "sweep-torn-header";
  fs::remove_all(out);
  fs::create_directories(out);
  std::ofstream(out / "journal", std::ios::binary) << "acmesim sweep jour";
  const SweepReport report = sweep_into(kSmoke, out);
  CHECK(report.ran == 8);
  const std::string plan = SweepRuns{load_sweep(kSmoke), builtin_catalog()}.plan_hash();
  CHECK(slurp(out / "journal").rfind("acmesim sweep journal 1 plan " + plan + "\n", 0) == 0);
  CHECK(journal_runs(out) == 8);
}

TEST_CASE("a changed sweep on an old directory is refused, not mixed") {
  const fs::path out = sweep_in_process("sweep-changed", 2);
  const fs::path changed = scratch_dir() / "changed.yaml";
  std::ofstream(changed) << "base: " << kSource << "/configs/default.yaml\nset: {trace: " << kSource
                         << "/traces/seren_week.csv.gz}\naxes:\n  cluster.nodes: [250]\n";
  CHECK_THROWS_WITH(
      sweep_into(changed.string(), out),
      Catch::StartsWith((out / "journal").string() + ": plan: expected the journal of this sweep's plan") &&
          Catch::Contains("found 'acmesim sweep journal 1 plan "));
}

TEST_CASE("the summary's 95% confidence interval is Student's t on the seeds") {
  // 1, 2, 3, 4: mean 2.5, sd sqrt(5/3) = 1.290994, t(0.975, 3) = 3.182446; half width 2.054260.
  const MetricSummary s = summarize_metric({1, 2, 3, 4});
  CHECK(s.n == 4);
  CHECK(s.mean == Approx(2.5));
  CHECK(s.sd == Approx(1.2909944487));
  CHECK(s.ci_low == Approx(2.5 - 2.0542603).epsilon(1e-6));
  CHECK(s.ci_high == Approx(2.5 + 2.0542603).epsilon(1e-6));
  const MetricSummary one = summarize_metric({7});
  CHECK(one.mean == 7);
  CHECK(one.sd == 0);
}

TEST_CASE("summarizing a sweep writes one row per point and metric and prints the chosen metrics") {
  const fs::path out = sweep_in_process("sweep-summary", 2);
  const std::string table = summarize_sweep(out.string(), {"eval_queue_mean_s", "gpu_allocation_ratio"});
  CHECK(table.find("eval_queue_mean_s (mean ± 95% CI)") != std::string::npos);
  CHECK(std::count(table.begin(), table.end(), '\n') == 5);
  const std::string csv = slurp(out / "summary.csv");
  CHECK(csv.rfind("point,cluster.nodes,scheduler,metric,seeds,mean,sd,ci95_low,ci95_high\n", 0) == 0);
  const std::size_t numeric_metrics = run_metric_names().size() - 2;  // all but the fingerprint and scenario_id
  CHECK(static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n')) == 1 + 4 * numeric_metrics);
  CHECK_THROWS_WITH(summarize_sweep(out.string(), {"eval_queue_men_s"}),
                    Catch::Contains("found 'eval_queue_men_s' (did you mean 'eval_queue_mean_s'?)"));
}

#ifdef ACMESIM_MPIEXEC
TEST_CASE("acmesim sweep under mpiexec on two ranks writes the same results.csv as on one process") {
  const fs::path reference = sweep_in_process("sweep-mpi-reference", 2);
  const fs::path out = scratch_dir() / "sweep-mpiexec";
  fs::remove_all(out);
  const std::string command = fmt::format(
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ASAN_OPTIONS=detect_leaks=0 {} '{}' sweep '{}' -o "
      "'{}' -j 1 -q 2> '{}'",
      ACMESIM_MPIEXEC, ACMESIM_BINARY, kSmoke, out.string(), (scratch_dir() / "mpiexec.stderr").string());
  const int status = std::system(command.c_str());
  INFO(slurp(scratch_dir() / "mpiexec.stderr"));
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  CHECK(slurp(out / "results.csv") == slurp(reference / "results.csv"));
  CHECK(fs::exists(out / "summary.csv"));
}
#endif

TEST_CASE("an evaluation sweep writes each policy's feedback latency, and decoupled feedback comes sooner") {
  const fs::path file = scratch_dir() / "evaluation-sweep.yaml";
  std::ofstream(file) << "base: " << kSource
                      << "/configs/eval/acme_week.yaml\naxes:\n  policies: [coupled, decoupled]\n";
  const fs::path out = scratch_dir() / "evaluation-sweep";
  fs::remove_all(out);
  sweep_into(file.string(), out);
  const ResultsTable table = read_sweep_results((out / "results.csv").string());
  REQUIRE(table.rows.size() == 2);
  const auto column = [&table](const std::string& name) {
    return static_cast<std::size_t>(std::find(table.header.begin(), table.header.end(), name) - table.header.begin());
  };
  const std::size_t latency = column("latency_mean_min");
  REQUIRE(latency < table.header.size());
  CHECK(table.rows[0][column("policies")] == "coupled");
  CHECK(std::stod(table.rows[1][latency]) < std::stod(table.rows[0][latency]));
  CHECK(std::stoi(table.rows[0][column("checkpoints")]) > 0);
}
