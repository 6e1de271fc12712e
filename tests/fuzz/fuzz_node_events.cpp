// libFuzzer target: the node-event file of the failures `replay` policy (time_s, node, event,
// reason), read as a scenario names it and checked against a 16-node cluster.
#include <fmt/format.h>

#include "io/scenario.hpp"
#include "policies/catalog.hpp"
#include "sim/core/error.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const acmesim::Catalog catalog = acmesim::builtin_catalog();
  const std::string events = acmesim::fuzz::as_file(acmesim::fuzz::view(data, size), "-events.csv");
  const std::string yaml =
      fmt::format("trace: t.csv\ncluster: {{nodes: 16}}\nfailures: {{name: replay, file: '{}'}}\n", events);
  try {
    const acmesim::Scenario scenario = acmesim::parse_scenario("fuzz/scenario.yaml", yaml, {}, "fuzz");
    acmesim::Policies policies = acmesim::make_policies(scenario, catalog);
    policies.failures->start(scenario.cluster, acmesim::SimTime{});
  } catch (const acmesim::InputError&) {
  }
  return 0;
}
