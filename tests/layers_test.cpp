// The tree is the architecture: core <- model <- policy_api <- run <- {policies, io} <- tools <- {app, python}.
// These tests read every source file's includes and fail on an arrow that runs the wrong way,
// so the rule in README's "Layout" cannot quietly erode.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "tests/support.hpp"

namespace fs = std::filesystem;
using acmesim::testing::kSource;

namespace {

struct Layer {
  const char* name;
  const char* folder;  // relative to the source tree
  int rank;            // a layer may include its own and lower ranks
};

// policies and io share a rank: neither may include the other; nor may the two front ends, the
// command line (app) and the Python module (python).
const std::vector<Layer> kLayers{
    {"core", "sim/core", 0}, {"model", "sim/model", 1}, {"policy_api", "sim/policy_api", 2},
    {"run", "sim/run", 3},   {"run", "sim/metrics", 3}, {"policies", "policies", 4},
    {"io", "io", 4},         {"tools", "tools", 5},     {"app", "app", 6},
    {"python", "python", 6},
};

std::optional<Layer> layer_of(const std::string& path) {
  for (const Layer& l : kLayers) {
    if (path.rfind(std::string(l.folder) + "/", 0) == 0) return l;
  }
  return std::nullopt;
}

struct Include {
  std::string file;  // relative to the source tree
  int line;
  std::string target;  // what is between the quotes or angle brackets
  bool quoted;
};

std::vector<Include> includes_of_tree() {
  std::vector<Include> all;
  const std::regex include_line{R"re(^\s*#\s*include\s*([<"])([^>"]+)[>"])re"};
  for (const Layer& l : kLayers) {
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(kSource) / l.folder)) {
      const std::string ext = entry.path().extension().string();
      if (ext != ".hpp" && ext != ".cpp") continue;
      const std::string rel = fs::relative(entry.path(), kSource).generic_string();
      std::ifstream in(entry.path());
      int n = 0;
      for (std::string text; std::getline(in, text);) {
        ++n;
        std::smatch m;
        if (std::regex_search(text, m, include_line)) all.push_back({rel, n, m[2].str(), m[1].str() == "\""});
      }
    }
  }
  return all;
}

}  // namespace

TEST_CASE("No source file includes a header of a layer above its own", "[layers]") {
  const auto includes = includes_of_tree();
  REQUIRE(includes.size() > 100);  // the walk found the tree
  for (const Include& inc : includes) {
    if (!inc.quoted) continue;
    const auto from = layer_of(inc.file);
    const auto to = layer_of(inc.target);
    REQUIRE(from);
    INFO(inc.file << ":" << inc.line << " includes \"" << inc.target << "\"");
    REQUIRE(to);  // every project include names a file of a layer
    const bool same = std::string(from->name) == to->name;
    CHECK((same || to->rank < from->rank));
  }
}

TEST_CASE(
    "Only io/ includes the file-format libraries, only app/ the command line, only python/ pybind11, and sim/ no "
    "files or threads",
    "[layers]") {
  for (const Include& inc : includes_of_tree()) {
    if (inc.quoted) continue;
    const std::string layer = layer_of(inc.file)->name;
    const bool in_sim = inc.file.rfind("sim/", 0) == 0;
    INFO(inc.file << ":" << inc.line << " includes <" << inc.target << ">");
    for (const char* format_lib : {"yaml-cpp/", "zlib.h", "nlohmann/", "boost/iostreams/", "openssl/"}) {
      if (inc.target.rfind(format_lib, 0) == 0) CHECK(layer == "io");
    }
    if (inc.target.rfind("CLI/", 0) == 0) CHECK(layer == "app");
    if (inc.target.rfind("pybind11/", 0) == 0) CHECK(layer == "python");
    if (in_sim) {
      for (const char* banned : {"fstream", "filesystem", "iostream", "thread", "mutex", "atomic", "cstdio"}) {
        CHECK(inc.target != banned);
      }
    }
  }
}
