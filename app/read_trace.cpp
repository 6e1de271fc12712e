// Reading a trace as every command does: progress while it reads, one line when done, and a
// warning for skipped rows.
#include <fmt/format.h>

#include "app/command.hpp"

namespace acmesim::app {

Trace read_trace(const std::string& path, bool skip_bad_rows, spdlog::logger& log) {
  ProgressLine reading{log, "reading"};
  reading.update(path);
  const Trace trace = read_acme_trace(path, TraceReadOptions{skip_bad_rows, [&](std::uint64_t rows) {
                                                               reading.update(fmt::format("{} rows of {}", rows, path));
                                                             }});
  reading.done(fmt::format("read {} jobs ({} schema) from {} in {:.2f}s", trace.jobs.size(), name(trace.schema),
                           trace.path, reading.seconds()));
  if (trace.rows_skipped > 0) {
    log.warn("skipped {} bad rows of {}, first: {}", trace.rows_skipped, trace.path, trace.skipped_messages.front());
  }
  return trace;
}

}  // namespace acmesim::app
