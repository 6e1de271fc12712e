#pragma once
#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace acmesim {

/// Bad input: a scenario, trace or command line the user can fix. The message names the
/// place (file:line[:col]), the field, what was expected and what was found. Exit code 2.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A broken invariant while simulating: a bug in acmesim or in a policy, never the user's
/// input. The message ends with "-- at t=..., event #...". Exit code 3.
class SimulationError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Every bad-input message has one shape, built here:
///   PLACE: FIELD: expected EXPECTED, found 'FOUND'
/// PLACE is file:line:column where it is known (file:line for a CSV row, "--set KEY" for a
/// command-line override, the file alone for a whole-file problem). FOUND is cut to 120
/// characters, so a whole file given in the wrong place never floods the terminal.
inline InputError input_error(std::string_view place, std::string_view field, std::string_view expected,
                              std::string_view found) {
  constexpr std::size_t kMaxFound = 120;
  const bool cut = found.size() > kMaxFound;
  return InputError(fmt::format("{}: {}: expected {}, found '{}{}'", place, field, expected, found.substr(0, kMaxFound),
                                cut ? "..." : ""));
}

/// "file:line:column" (1-based), or "file" when the position is unknown (line < 1).
inline std::string place(std::string_view file, long line, long column = 0) {
  if (line < 1) return std::string(file);
  if (column < 1) return fmt::format("{}:{}", file, line);
  return fmt::format("{}:{}:{}", file, line, column);
}

}  // namespace acmesim
