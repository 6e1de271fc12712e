// The command line as a user meets it: exit codes and what each word of a command means.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support.hpp"

using acmesim::testing::kSource;
using acmesim::testing::run_command;
using acmesim::testing::slurp;

TEST_CASE("A scenario named after --set is the scenario, not a second override", "[cli]") {
  const auto [dir, code] =
      run_command("cli-set", fmt::format("run --set cluster.nodes=300 '{}/configs/default.yaml' -q -o out", kSource));
  INFO(slurp(dir / "stderr.txt"));
  REQUIRE(code == 0);
  const std::string summary = slurp(dir / "out" / "summary.json");
  CHECK(summary.find("\"nodes\": 300") != std::string::npos);
}

TEST_CASE("A wrong command line exits 2, --help exits 0, and a malformed scenario exits 2 with its place", "[cli]") {
  CHECK(run_command("cli-unknown", "run --sed 3").second == 2);
  CHECK(run_command("cli-help", "run --help").second == 0);
  const auto [dir, code] = run_command("cli-bad", "run bad.yaml");
  CHECK(code == 2);  // bad.yaml does not exist: CLI11 rejects it
  std::ofstream(dir / "bad.yaml") << "name: bad\n? [a, b] : 1\n";
  const auto [dir2, code2] = run_command("cli-bad-key", fmt::format("run '{}'", (dir / "bad.yaml").string()));
  CHECK(code2 == 2);
  CHECK(slurp(dir2 / "stderr.txt").find("bad.yaml:2:3:") != std::string::npos);
}

TEST_CASE("A mistyped option or policy name is reported as such, with the name it most likely meant", "[cli]") {
  const auto [dir, code] = run_command("cli-typo-option", "stats --comapre seren trace.csv");
  CHECK(code == 2);
  const std::string option_error = slurp(dir / "stderr.txt");
  CHECK(option_error.find("found '--comapre' (did you mean '--compare'?)") != std::string::npos);
  CHECK(option_error.find("File does not exist") == std::string::npos);
  const auto [dir2, code2] = run_command("cli-typo-policy", "run --set scheduler=slrum");
  CHECK(code2 == 2);
  CHECK(slurp(dir2 / "stderr.txt").find("found 'slrum' (did you mean 'slurm'?)") != std::string::npos);
}

TEST_CASE("Log levels: -q keeps only errors, --log-level warning keeps warnings, -v adds debug detail", "[cli]") {
  // A trace that asks for more than the cluster has: a warning at the default level.
  const std::string scenario = fmt::format("'{}/configs/default.yaml' --set cluster.nodes=40", kSource);
  const auto [dir, code] = run_command("log-default", "run " + scenario + " -o out");
  REQUIRE(code == 0);
  const std::string normal = slurp(dir / "stderr.txt");
  CHECK(normal.find("read 168188 jobs") != std::string::npos);
  CHECK(normal.find("warning: the trace asks for") != std::string::npos);
  CHECK(normal.find("debug:") == std::string::npos);
  const auto [quiet_dir, quiet_code] = run_command("log-quiet", "run " + scenario + " -q -o out");
  CHECK(quiet_code == 0);
  CHECK(slurp(quiet_dir / "stderr.txt").empty());
  CHECK(slurp(quiet_dir / "stdout.txt").empty());
  const auto [warn_dir, warn_code] = run_command("log-warn", "run " + scenario + " --log-level warning -o out");
  CHECK(warn_code == 0);
  const std::string warnings = slurp(warn_dir / "stderr.txt");
  CHECK(warnings.find("warning: the trace asks for") != std::string::npos);
  CHECK(warnings.find("read 168188 jobs") == std::string::npos);
  const auto [debug_dir, debug_code] = run_command("log-debug", "run " + scenario + " -v -o out");
  CHECK(debug_code == 0);
  CHECK(slurp(debug_dir / "stderr.txt").find("debug: scenario ") != std::string::npos);
  const auto [bad_dir, bad_code] = run_command("log-bad-level", "run --log-level loud");
  CHECK(bad_code == 2);
  CHECK(slurp(bad_dir / "stderr.txt").find("--log-level") != std::string::npos);
}

TEST_CASE("Every path given with --set is relative to the working directory, every path in a file to that file",
          "[cli]") {
  const auto dir = acmesim::testing::scratch_dir() / "cli-relative";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "sub");
  std::ofstream(dir / "t.csv") << "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,"
                                  "duration,queue,gpu_time\n1,u,1,8,16,SFT,COMPLETED,2023-07-01 00:00:00+08:00,"
                                  "2023-07-01 00:00:00+08:00,2023-07-01 01:00:00+08:00,3600,0,28800\n";
  std::ofstream(dir / "events.csv") << "time_s,node,event,reason\n600,0,fail,NVLinkError\n";
  std::ofstream(dir / "sub" / "s.yaml") << "trace: ../t.csv\ncluster: {nodes: 4}\n";
  std::ofstream(dir / "sub" / "f.yaml")
      << "trace: ../t.csv\ncluster: {nodes: 4}\nfailures: {name: replay, file: ../events.csv}\n";
  const auto run_in = [&](const std::string& args) {
    const std::string command =
        fmt::format("cd '{}' && '{}' {} -q -o out --force 2> stderr.txt", dir.string(), ACMESIM_BINARY, args);
    const int status = std::system(command.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  CHECK(run_in("run sub/s.yaml --set failures.name=replay --set failures.file=events.csv") == 0);
  CHECK(run_in("run sub/s.yaml --set 'failures={name: replay, file: events.csv}'") == 0);
  CHECK(run_in("run sub/s.yaml --set trace=t.csv") == 0);
  CHECK(run_in("run sub/f.yaml") == 0);
  CHECK(run_in("run sub/s.yaml --set failures.name=replay --set failures.file=../events.csv") == 2);
  CHECK(slurp(dir / "stderr.txt").find("../events.csv: cannot open the file") != std::string::npos);
}

TEST_CASE("eval-cluster takes --set for its own keys and its scenario's, and --seed", "[cli]") {
  const auto [dir, code] =
      run_command("cli-eval-set", "eval-cluster --set policies=decoupled --set cluster.nodes=200 --seed 2");
  INFO(slurp(dir / "stderr.txt"));
  REQUIRE(code == 0);
  const std::string table = slurp(dir / "stdout.txt");
  CHECK(table.find("\ndecoupled ") != std::string::npos);
  CHECK(table.find("\ncoupled ") == std::string::npos);
  const auto [bad, bad_code] = run_command("cli-eval-set-bad", "eval-cluster --set plan_nodes=0");
  CHECK(bad_code == 2);
  CHECK(slurp(bad / "stderr.txt") == "error: --set plan_nodes: plan_nodes: expected a whole number >= 1, found '0'\n");
}
