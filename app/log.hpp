#pragma once
/// The command line's one logger (spdlog, to stderr) and its progress lines. main() makes the
/// logger and hands it to every command through the Context; nothing is registered in spdlog's
/// global registry. Messages read as they always have: info lines bare, "warning: ...",
/// "error: ...", "debug: ...". Levels: -q (errors only), -v (debug), --log-level NAME.
///
/// ProgressLine reports one phase (reading, simulating, writing, generating): on a terminal, one line
/// rewritten in place (at most every 0.2 s); otherwise plain info lines (at most every 5 s), so
/// a log file or a CI job gets a few lines, not thousands.
#include <spdlog/logger.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>

namespace acmesim::app {

/// The logger of a command-line run: stderr, level info, acmesim's message wording.
std::shared_ptr<spdlog::logger> make_logger();

/// Adds -q/--quiet, -v/--verbose and --log-level to `command`; each sets `log`'s level as it is
/// parsed, before the command runs. `quiet`, when given, also records -q for commands whose
/// stdout it silences (run's summary table).
void add_log_options(CLI::App& command, spdlog::logger& log, bool* quiet = nullptr);

class ProgressLine {
 public:
  ProgressLine(spdlog::logger& log, std::string phase);
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  ~ProgressLine();

  /// The phase's state now ("40.0% of jobs | day 12.3"); rate-limited, dropped below info level.
  void update(std::string_view state);
  /// The phase's last line, always logged at info ("read 1,031,550 jobs in 3.1s").
  void done(std::string_view summary);
  /// Seconds since the phase began.
  double seconds() const;

 private:
  void clear_line();

  spdlog::logger& log_;
  std::string phase_;
  bool terminal_;
  bool line_shown_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace acmesim::app
