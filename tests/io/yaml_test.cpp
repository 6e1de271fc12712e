#include "io/yaml.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "sim/core/error.hpp"

using namespace acmesim;

namespace {

/// The message of the InputError `read` throws, or "no error".
template <class Read>
std::string error_of(Read read) {
  try {
    read();
  } catch (const InputError& e) {
    return e.what();
  } catch (...) {
    return "an exception that is not an InputError";
  }
  return "no error";
}

yaml::Node doc(const std::string& text) { return yaml::parse_text("dir/f.yaml", text, "settings"); }

}  // namespace

TEST_CASE("an unknown key names its place and the valid keys") {
  const yaml::Node root = doc("nodes: 2\nnodez: 3\n");
  CHECK(error_of([&] {
          root.only_keys({"nodes", "gpus"});
        }) == "dir/f.yaml:2:1: settings: expected a known key (nodes, gpus), found 'nodez' (did you mean 'nodes'?)");
  const yaml::Node nested = doc("cluster:\n  gpus: 8\n  cpu: 1\n")["cluster"];
  CHECK(error_of([&] { nested.only_keys({"gpus"}); }) ==
        "dir/f.yaml:3:3: cluster: expected a known key (gpus), found 'cpu'");
  CHECK(error_of([&] { doc("nodes: 2\n").only_keys({"nodes"}); }) == "no error");
}

TEST_CASE("a list or mapping used as a key is an InputError at the key's place") {
  const yaml::Node root = doc("a: 1\n? [a, b] : 1\n");
  CHECK(error_of([&] { root.only_keys({"a"}); }) ==
        "dir/f.yaml:2:3: settings: expected a plain key (a name or a number, not a list or a mapping), found '[a, b]: "
        "1'");
  CHECK(error_of([&] { root.entries("a mapping"); }).rfind("dir/f.yaml:2:3: settings: expected a plain key", 0) == 0);
}

TEST_CASE("a value of the wrong type names the field, the type and what was found") {
  const yaml::Node root = doc("cluster: {nodes: lots, share: [1]}\nflag: maybe\n");
  CHECK(error_of([&] { root["cluster"].get<int>("nodes", 1); }) ==
        "dir/f.yaml:1:18: cluster.nodes: expected a whole number, found 'lots'");
  CHECK(error_of([&] { root["cluster"].get<double>("share", 0); }) ==
        "dir/f.yaml:1:31: cluster.share: expected a number, found '[1]'");
  CHECK(error_of([&] { root.get<bool>("flag", false); }) ==
        "dir/f.yaml:2:7: flag: expected true or false, found 'maybe'");
  CHECK(error_of([&] {
          root.get<std::string>("cluster", "");
        }).rfind("dir/f.yaml:1:10: cluster: expected a string", 0) == 0);
  CHECK(error_of([&] { root["flag"]["x"]; }) ==
        "dir/f.yaml:2:7: flag: expected a mapping of keys to values, found 'maybe'");
}

TEST_CASE("a value out of its range names the range") {
  const yaml::Node root = doc("share: 1.5\ncount: 0\nseed: -1\nnan: .nan\n");
  CHECK(error_of([&] { root.get<double>("share", 0, {.min = 0, .max = 1}); }) ==
        "dir/f.yaml:1:8: share: expected a number in [0, 1], found '1.5'");
  CHECK(error_of([&] { root.get<int>("count", 1, {.min = 1}); }) ==
        "dir/f.yaml:2:8: count: expected a whole number >= 1, found '0'");
  CHECK(error_of([&] { root.get<std::uint64_t>("seed", 1); }) ==
        "dir/f.yaml:3:7: seed: expected a whole number, found '-1'");
  CHECK(error_of([&] { root.get<double>("nan", 0, {.max = 3}); }) ==
        "dir/f.yaml:4:6: nan: expected a number <= 3, found '.nan'");
  CHECK(root.get<double>("share", 0, {.min = 1, .max = 1.5}) == 1.5);
  CHECK(root.get<int>("absent", 7, {.min = 1}) == 7);
}

TEST_CASE("a required key that is absent is an error at its mapping") {
  const yaml::Node root = doc("cluster:\n  gpus: 8\n");
  CHECK(error_of([&] { root["cluster"].need<int>("nodes", {.min = 1}); }) ==
        "dir/f.yaml:2:3: cluster.nodes: expected a whole number >= 1 (a required key), found ''");
  CHECK(root["cluster"].need<int>("gpus") == 8);
}

TEST_CASE("YAML that does not parse is an error at the parser's line and column") {
  CHECK(error_of([] { doc("a: 1\nb: [2\nc: 3\n"); }) ==
        "dir/f.yaml:3:2: YAML: expected valid YAML (end of sequence flow not found), found ': 3'");
  CHECK(error_of([] { doc("a: {b: 1\n"); }).rfind("dir/f.yaml:2:1: YAML: expected valid YAML (", 0) == 0);
}

TEST_CASE("lists give their items with indexed fields, and a non-list is an error") {
  const yaml::Node root = doc("runs: [1, x]\none: 3\n");
  const std::vector<yaml::Node> runs = root["runs"].items("a list of numbers");
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].as<int>() == 1);
  CHECK(error_of([&] { runs[1].as<int>(); }) == "dir/f.yaml:1:11: runs[1]: expected a whole number, found 'x'");
  CHECK(error_of([&] { root["one"].items("a list of numbers"); }) ==
        "dir/f.yaml:2:6: one: expected a list of numbers, found '3'");
}

TEST_CASE("paths are relative to the file's folder unless absolute or given a base") {
  const yaml::Node root = doc("trace: ../t.csv\nabs: /x/y.csv\nempty: ''\n");
  CHECK(root["trace"].as_path("a path") == "t.csv");
  CHECK(root["trace"].as_path("a path", std::string("/work/run")) == "/work/t.csv");
  CHECK(root["abs"].as_path("a path") == "/x/y.csv");
  CHECK(error_of([&] { root["empty"].as_path("a file path"); }) ==
        "dir/f.yaml:3:8: empty: expected a file path, found '\"\"'");
}

TEST_CASE("keys set on the command line are placed at --set KEY") {
  const yaml::Node root{"dir/f.yaml",
                        YAML::Load("cluster: {nodes: 0}\nseed: x\n"),
                        "scenario",
                        {yaml::Override{"cluster.nodes", "--set cluster.nodes", "."}}};
  CHECK(error_of([&] { root["cluster"].get<int>("nodes", 1, {.min = 1}); }) ==
        "--set cluster.nodes: cluster.nodes: expected a whole number >= 1, found '0'");
  CHECK(error_of([&] { root.get<int>("seed", 1); }) == "dir/f.yaml:2:7: seed: expected a whole number, found 'x'");
}

TEST_CASE("a file that cannot be read is an InputError naming it") {
  CHECK(error_of([] { yaml::parse_file("/nonexistent/acmesim.yaml", "profile"); }) ==
        "/nonexistent/acmesim.yaml: profile: expected a file that can be read, found 'no such file, or no permission'");
}

TEST_CASE("guard turns any yaml-cpp exception into an InputError naming the file") {
  const YAML::Node scalar = YAML::Load("x");
  const std::string message = error_of([&] { yaml::guard("g.yaml", [&] { return scalar.as<int>(); }); });
  CHECK(message.rfind("g.yaml:1:1: YAML:", 0) == 0);
}
