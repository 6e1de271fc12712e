// Regression anchors: whole-command outputs and random draws that must not change unless a
// commit says why. Run with ACMESIM_UPDATE_GOLDEN=1 to rewrite tests/golden/ after an intended
// change (and give the reason in the commit message).
#include <fmt/format.h>
#include <unistd.h>

#include <boost/random/bernoulli_distribution.hpp>
#include <boost/random/discrete_distribution.hpp>
#include <boost/random/exponential_distribution.hpp>
#include <boost/random/geometric_distribution.hpp>
#include <boost/random/lognormal_distribution.hpp>
#include <boost/random/uniform_01.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>
#include <boost/random/weibull_distribution.hpp>
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sim/core/fingerprint.hpp"
#include "sim/core/rng.hpp"
#include "tests/support.hpp"

namespace fs = std::filesystem;
using acmesim::Fingerprint;
using acmesim::Rng;
using acmesim::testing::kSource;
using acmesim::testing::slurp;

namespace {

const fs::path kGolden = fs::path(kSource) / "tests" / "golden";

bool updating() {
  const char* flag = std::getenv("ACMESIM_UPDATE_GOLDEN");
  return flag != nullptr && std::string(flag) == "1";
}

/// Compares `actual` with the golden file `name`, or rewrites it in update mode.
void check_golden(const std::string& name, const std::string& actual) {
  const fs::path path = kGolden / name;
  if (updating()) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  INFO("golden file " << path.string() << " (ACMESIM_UPDATE_GOLDEN=1 rewrites it)");
  REQUIRE(fs::exists(path));
  CHECK(actual == slurp(path));
}

std::string fnv_hex(const std::string& bytes) {
  Fingerprint f;
  for (const char c : bytes) f.add(static_cast<unsigned char>(c));
  return f.hex();
}

/// Replaces every occurrence of the source directory, so goldens hold no machine's paths.
std::string without_source_dir(std::string text) {
  const std::string dir = kSource;
  for (std::size_t at = text.find(dir); at != std::string::npos; at = text.find(dir, at)) {
    text.replace(at, dir.size(), "<source>");
  }
  return text;
}

/// summary.json without the machine's paths and without "provenance", which names the build's
/// commit and the command line (and an id hashed from absolute paths), not what was simulated.
std::string golden_summary(const fs::path& file) {
  const std::string text = without_source_dir(slurp(file));
  const std::size_t begin = text.find("  \"provenance\": {\n");
  REQUIRE(begin != std::string::npos);
  const std::size_t end = text.find("\n  },\n", begin);
  REQUIRE(end != std::string::npos);
  return text.substr(0, begin) + text.substr(end + 5);
}

/// Runs the acmesim binary in a fresh folder; the run must succeed.
fs::path run_acmesim(const std::string& case_name, const std::string& args) {
  const auto [dir, exit_code] = acmesim::testing::run_command(case_name, args);
  REQUIRE(exit_code == 0);
  return dir;
}

std::string checksums(const fs::path& dir, const std::vector<std::string>& files) {
  std::string out;
  for (const auto& f : files) out += fmt::format("{} {}\n", f, fnv_hex(slurp(dir / f)));
  return out;
}

}  // namespace

TEST_CASE("The default scenario reproduces its golden summary and output checksums", "[golden]") {
  const fs::path dir = run_acmesim("default", "run -q -o out");
  check_golden("default/summary.json", golden_summary(dir / "out" / "summary.json"));
  check_golden("default/checksums.txt", checksums(dir / "out", {"jobs.csv", "timeline.csv"}));
  fs::remove_all(dir);
}

TEST_CASE("The node-failure what-if reproduces its golden summary and output checksums", "[golden]") {
  const fs::path dir = run_acmesim("whatif", fmt::format("run -q -o out '{}/configs/failures/whatif.yaml'", kSource));
  check_golden("whatif/summary.json", golden_summary(dir / "out" / "summary.json"));
  check_golden("whatif/checksums.txt", checksums(dir / "out", {"jobs.csv", "timeline.csv"}));
  fs::remove_all(dir);
}

TEST_CASE("The failure-taxonomy scenario reproduces its golden summary and output checksums", "[golden]") {
  const fs::path dir =
      run_acmesim("taxonomy", fmt::format("run -q -o out '{}/configs/failures/taxonomy.yaml'", kSource));
  check_golden("taxonomy/summary.json", golden_summary(dir / "out" / "summary.json"));
  check_golden("taxonomy/checksums.txt", checksums(dir / "out", {"jobs.csv", "timeline.csv"}));
  fs::remove_all(dir);
}

TEST_CASE("The evaluation-in-the-cluster run reproduces its golden table and checkpoint files", "[golden]") {
  const fs::path dir = run_acmesim("eval-cluster", "eval-cluster -o out");
  check_golden("eval-cluster/stdout.txt", slurp(dir / "stdout.txt"));
  check_golden("eval-cluster/checksums.txt",
               checksums(dir / "out", {"checkpoints_coupled.csv", "checkpoints_decoupled.csv"}));
  fs::remove_all(dir);
}

TEST_CASE("A generated two-day Seren trace reproduces its golden checksum", "[golden]") {
  const fs::path dir = run_acmesim("synth", "synth --profile seren --days 2 --seed 1 -q -o week.csv");
  check_golden("synth/checksums.txt", checksums(dir, {"week.csv"}));
  fs::remove_all(dir);
}

TEST_CASE("The first draws of every random stream and distribution acmesim uses are pinned", "[golden]") {
  std::string out;
  const auto line = [&](const std::string& what, auto value) { out += fmt::format("{} {}\n", what, value); };
  // The engine under every stream: a named stream's first raw words.
  for (const char* purpose : {"synth/arrivals", "scheduler/fifo", "failures/node-mtbf", "eval/runtime/HumanEval"}) {
    Rng rng{1, purpose};
    for (int i = 0; i < 3; ++i) line(fmt::format("rng[1,{}]#{}", purpose, i), rng());
  }
  {
    Rng rng{7, "distributions"};
    const auto real = [&](const std::string& what, auto&& dist) {
      for (int i = 0; i < 3; ++i) line(fmt::format("{}#{}", what, i), fmt::format("{:.17g}", dist(rng)));
    };
    const auto whole = [&](const std::string& what, auto&& dist) {
      for (int i = 0; i < 3; ++i) line(fmt::format("{}#{}", what, i), dist(rng));
    };
    real("uniform_01", boost::random::uniform_01<double>{});
    real("uniform_real(2,5)", boost::random::uniform_real_distribution<double>{2.0, 5.0});
    real("exponential(0.5)", boost::random::exponential_distribution<double>{0.5});
    real("weibull(0.75,3)", boost::random::weibull_distribution<double>{0.75, 3.0});
    real("lognormal(1,2)", boost::random::lognormal_distribution<double>{1.0, 2.0});
    whole("bernoulli(0.3)", boost::random::bernoulli_distribution<double>{0.3});
    whole("geometric(0.2)", boost::random::geometric_distribution<std::uint64_t>{0.2});
    whole("uniform_int(1,100)", boost::random::uniform_int_distribution<int>{1, 100});
    whole("uniform_int64(0,1e12)", boost::random::uniform_int_distribution<std::int64_t>{0, 1'000'000'000'000});
    const std::vector<double> weights{0.5, 0.25, 0.125, 0.125};
    whole("discrete<size_t,double>", boost::random::discrete_distribution<std::size_t, double>{weights});
    whole("discrete<size_t>", boost::random::discrete_distribution<std::size_t>{weights});
    whole("discrete<uint32>", boost::random::discrete_distribution<std::uint32_t>{weights});
    whole("discrete<int>", boost::random::discrete_distribution<int>{weights});
  }
  check_golden("random_draws.txt", out);
}
