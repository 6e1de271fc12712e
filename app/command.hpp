#pragma once
/// The commands of `acmesim`, one file each: add_<command>() adds the subcommand, its options
/// and a callback that runs it. main.cpp only builds the Context, adds them all, parses, and
/// maps errors to exit codes (0 success, 2 bad input, 3 a broken invariant).
#include <CLI/CLI.hpp>
#include <string>

#include "sim/policy_api/catalog.hpp"

namespace acmesim::app {

/// What every command shares.
struct Context {
  const Catalog& catalog;
  std::string config_dir;        // the bundled configs/
  std::string default_scenario;  // configs/default.yaml
  int exit_code = 0;             // set by a command that ends otherwise than with success
};

void add_run(CLI::App& app, Context& context);
void add_compare(CLI::App& app, Context& context);
void add_policies(CLI::App& app, Context& context);
void add_stats(CLI::App& app, Context& context);
void add_synth(CLI::App& app, Context& context);
void add_failures(CLI::App& app, Context& context);
void add_eval_bench(CLI::App& app, Context& context);
void add_eval_cluster(CLI::App& app, Context& context);

}  // namespace acmesim::app
