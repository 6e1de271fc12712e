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
#include <type_traits>
#include <vector>

#include "app/log.hpp"
#include "io/acme_trace.hpp"
#include "sim/policy_api/catalog.hpp"

namespace acmesim::app {

/// What every command shares.
struct Context {
  const Catalog& catalog;
  std::string config_dir;        // the bundled configs/
  std::string default_scenario;  // configs/default.yaml
  spdlog::logger& log;           // stderr: progress, warnings, errors (app/log.hpp)
  std::string command_line;      // as typed, for the outputs' provenance
  int exit_code = 0;             // set by a command that ends otherwise than with success
};

/// A CLI11 check that an option is a number of type T in [min, max], worded as every acmesim
/// input error is ("--days: expected a number in [0, 3650], found '1e9'"). For an integer T the
/// text must be digits only, so a negative count or seed never wraps around into an unsigned
/// option, and one beyond the type's range is an error, not a clamp.
template <class T>
CLI::Validator in_range(T min, T max) {
  return CLI::Validator(
      [=](const std::string& text) -> std::string {
        T value{};
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec == std::errc{} && end == text.data() + text.size() && value >= min && value <= max) return {};
        return fmt::format("expected {} in [{}, {}], found '{}'", std::is_integral_v<T> ? "a whole number" : "a number",
                           min, max, text.substr(0, 80));
      },
      fmt::format("in [{}, {}]", min, max));
}

/// Adds `--set KEY=VALUE` to `command`: one value per flag, repeatable, so that a positional
/// argument after it stays positional (`run --set cluster.nodes=300 seren.yaml`).
inline CLI::Option* add_set_option(CLI::App& command, std::vector<std::string>& sets, const std::string& help) {
  return command.add_option("--set", sets, help)
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

/// Reads the trace at `path` with progress on `log`, a line when done and a warning for skipped rows.
Trace read_trace(const std::string& path, bool skip_bad_rows, spdlog::logger& log);

void add_run(CLI::App& app, Context& context);
void add_compare(CLI::App& app, Context& context);
void add_policies(CLI::App& app, Context& context);
void add_stats(CLI::App& app, Context& context);
void add_synth(CLI::App& app, Context& context);
void add_failures(CLI::App& app, Context& context);
void add_eval_bench(CLI::App& app, Context& context);
void add_eval_cluster(CLI::App& app, Context& context);
void add_sweep(CLI::App& app, Context& context);
void add_report(CLI::App& app, Context& context);

}  // namespace acmesim::app
