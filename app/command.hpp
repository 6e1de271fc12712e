#pragma once
/// The commands of `acmesim`, one file each: add_<command>() adds the subcommand, its options
/// and a callback that runs it. main.cpp only builds the Context, adds them all, parses, and
/// maps errors to exit codes (0 success, 2 bad input, 3 a broken invariant).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdint>
#include <limits>
#include <string>

#include "app/log.hpp"
#include "sim/policy_api/catalog.hpp"

namespace acmesim::app {

/// What every command shares.
struct Context {
  const Catalog& catalog;
  std::string config_dir;        // the bundled configs/
  std::string default_scenario;  // configs/default.yaml
  spdlog::logger& log;           // stderr: progress, warnings, errors (app/log.hpp)
  int exit_code = 0;             // set by a command that ends otherwise than with success
};

/// CLI11 checks worded as every acmesim input error is ("--days: expected a number in [0, 3650],
/// found '1e9'"), for a number in [min, max] ...
inline CLI::Validator in_range(double min, double max) {
  return CLI::Validator(
      [=](const std::string& text) -> std::string {
        double value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec == std::errc{} && end == text.data() + text.size() && value >= min && value <= max) return {};
        return fmt::format("expected a number in [{}, {}], found '{}'", min, max, text.substr(0, 80));
      },
      fmt::format("in [{}, {}]", min, max));
}

/// ... and for a whole number in [min, max]: digits only, so a negative count or seed never
/// wraps around into an unsigned option, and one beyond 2^64 - 1 is an error, not a clamp.
inline CLI::Validator whole_in_range(std::uint64_t min, std::uint64_t max) {
  return CLI::Validator(
      [=](const std::string& text) -> std::string {
        std::uint64_t value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec == std::errc{} && end == text.data() + text.size() && value >= min && value <= max) return {};
        return fmt::format("expected a whole number in [{}, {}], found '{}'", min, max, text.substr(0, 80));
      },
      fmt::format("in [{}, {}]", min, max));
}

void add_run(CLI::App& app, Context& context);
void add_compare(CLI::App& app, Context& context);
void add_policies(CLI::App& app, Context& context);
void add_stats(CLI::App& app, Context& context);
void add_synth(CLI::App& app, Context& context);
void add_failures(CLI::App& app, Context& context);
void add_eval_bench(CLI::App& app, Context& context);
void add_eval_cluster(CLI::App& app, Context& context);

}  // namespace acmesim::app
