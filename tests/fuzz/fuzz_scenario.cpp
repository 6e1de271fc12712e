// libFuzzer target: the scenario loader with --set overrides, then every policy built from it
// (each policy reads and range-checks its own parameters). The input is the scenario's YAML,
// optionally followed by a line "%%" and one override (KEY=VALUE) per line.
#include <string>
#include <vector>

#include "io/scenario.hpp"
#include "policies/catalog.hpp"
#include "sim/core/error.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const acmesim::Catalog catalog = acmesim::builtin_catalog();
  const std::string_view input = acmesim::fuzz::view(data, size);
  const std::size_t split = input.find("\n%%\n");
  const std::string yaml{input.substr(0, split)};
  std::vector<std::string> overrides;
  if (split != std::string_view::npos) {
    std::string_view rest = input.substr(split + 4);
    while (!rest.empty()) {
      const std::size_t end = rest.find('\n');
      overrides.emplace_back(rest.substr(0, end));
      rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
    }
  }
  try {
    const acmesim::Scenario scenario = acmesim::parse_scenario("fuzz/scenario.yaml", yaml, overrides, "fuzz");
    acmesim::make_policies(scenario, catalog);
  } catch (const acmesim::InputError&) {
  }
  return 0;
}
