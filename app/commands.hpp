#pragma once
/// Subcommands whose logic lives in their own file (main.cpp only wires them up).
#include <cstdint>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "sim/policy_api/catalog.hpp"

namespace acmesim::app {

struct StatsArgs {
  std::string trace;
  std::string format = "table";
  std::string compare;
  bool skip_bad_rows = false;
};
CLI::App* add_stats_command(CLI::App& app, StatsArgs& args);
int run_stats(const StatsArgs& args);

struct SynthArgs {
  std::string profile;
  std::optional<double> days;
  std::optional<std::uint64_t> jobs;
  double load = 1.0;
  std::uint64_t seed = 1;
  std::string out;
  bool quiet = false;
};
CLI::App* add_synth_command(CLI::App& app, SynthArgs& args);
int run_synth(const SynthArgs& args, const Catalog& catalog);

}  // namespace acmesim::app
