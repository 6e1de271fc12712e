// The command line as a user meets it: exit codes and what each word of a command means.
#include <fmt/format.h>

#include <catch2/catch.hpp>
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
