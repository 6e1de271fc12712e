#include "app/log.hpp"

#include <fmt/format.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <unistd.h>

#include <cstdio>
#include <utility>

namespace acmesim::app {

namespace {

/// "%*": the word before a message that is not plain information.
class LevelPrefix final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& message, const std::tm&, spdlog::memory_buf_t& out) override {
    std::string_view prefix;
    switch (message.level) {
      case spdlog::level::trace:
        prefix = "trace: ";
        break;
      case spdlog::level::debug:
        prefix = "debug: ";
        break;
      case spdlog::level::warn:
        prefix = "warning: ";
        break;
      case spdlog::level::err:
        prefix = "error: ";
        break;
      case spdlog::level::critical:  // a broken invariant: exit 3
        prefix = "internal error: ";
        break;
      default:
        break;
    }
    out.append(prefix.data(), prefix.data() + prefix.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override { return std::make_unique<LevelPrefix>(); }
};

}  // namespace

std::shared_ptr<spdlog::logger> make_logger() {
  // Single-threaded sink: compare's and sweep's worker threads report through their caller.
  auto log = std::make_shared<spdlog::logger>("acmesim", std::make_shared<spdlog::sinks::stderr_sink_st>());
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  formatter->add_flag<LevelPrefix>('*').set_pattern("%*%v");
  log->set_formatter(std::move(formatter));
  log->set_level(spdlog::level::info);
  log->flush_on(spdlog::level::trace);  // every line at once: progress and errors must not wait
  return log;
}

void add_log_options(CLI::App& command, spdlog::logger& log, bool* quiet) {
  command.add_flag_callback(
      "-q,--quiet",
      [&log, quiet] {
        log.set_level(spdlog::level::err);
        if (quiet != nullptr) *quiet = true;
      },
      "Print nothing but errors (--log-level error)");
  command.add_flag_callback(
      "-v,--verbose", [&log] { log.set_level(spdlog::level::debug); }, "Also print debug detail (--log-level debug)");
  command
      .add_option_function<std::string>(
          "--log-level", [&log](const std::string& level) { log.set_level(spdlog::level::from_str(level)); },
          "What stderr gets: trace, debug, info (default), warning, error or off")
      ->check(CLI::IsMember({"trace", "debug", "info", "warning", "error", "off"}));
}

ProgressLine::ProgressLine(spdlog::logger& log, std::string phase)
    : log_{log},
      phase_{std::move(phase)},
      terminal_{::isatty(STDERR_FILENO) == 1},
      start_{std::chrono::steady_clock::now()},
      // On a terminal the first update shows at once; in a log, only phases longer than 5 s get lines.
      last_{terminal_ ? start_ - std::chrono::hours{1} : start_} {}

ProgressLine::~ProgressLine() { clear_line(); }

double ProgressLine::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void ProgressLine::update(std::string_view state) {
  if (!log_.should_log(spdlog::level::info)) return;
  const auto now = std::chrono::steady_clock::now();
  const auto every = terminal_ ? std::chrono::milliseconds{200} : std::chrono::milliseconds{5000};
  if (now - last_ < every) return;
  last_ = now;
  if (terminal_) {
    // Rewritten in place: carriage return, the line, erase to its end (no newline until done()).
    fmt::print(stderr, "\r{}: {} | {:.1f}s\x1b[K", phase_, state, seconds());
    std::fflush(stderr);
    line_shown_ = true;
  } else {
    log_.info("{}: {} | {:.1f}s", phase_, state, seconds());
  }
}

void ProgressLine::done(std::string_view summary) {
  clear_line();
  log_.info("{}", summary);
}

void ProgressLine::clear_line() {
  if (!line_shown_) return;
  fmt::print(stderr, "\r\x1b[K");
  std::fflush(stderr);
  line_shown_ = false;
}

}  // namespace acmesim::app
