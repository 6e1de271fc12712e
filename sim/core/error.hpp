#pragma once
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

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

/// The one of `known` nearest to `found` by edit distance, if it is near enough to be a typo (at
/// most 2 edits, and fewer than half of the word); empty otherwise. O(sum of lengths x |found|).
inline std::string nearest_name(std::string_view found, const std::vector<std::string>& known) {
  std::string best;
  std::size_t best_distance = 3;
  std::vector<std::size_t> row(found.size() + 1), next(found.size() + 1);
  for (const std::string& name : known) {
    for (std::size_t j = 0; j <= found.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= name.size(); ++i) {
      next[0] = i;
      for (std::size_t j = 1; j <= found.size(); ++j) {
        const std::size_t change = row[j - 1] + (name[i - 1] == found[j - 1] ? 0 : 1);
        next[j] = std::min({row[j] + 1, next[j - 1] + 1, change});
      }
      row.swap(next);
    }
    const std::size_t distance = row[found.size()];
    if (distance < best_distance && 2 * distance < std::max(found.size(), name.size())) {
      best_distance = distance;
      best = name;
    }
  }
  return best;
}

/// The error for a name that is not one of `known` (a key, a policy): the shape of input_error,
/// listing the known ones, with "did you mean" when `found` looks like a typo of one of them.
inline InputError unknown_name_error(std::string_view place, std::string_view field, std::string_view what,
                                     const std::vector<std::string>& known, std::string_view found) {
  const std::string hint = nearest_name(found, known);
  InputError plain = input_error(place, field, fmt::format("a known {} ({})", what, fmt::join(known, ", ")), found);
  if (hint.empty()) return plain;
  return InputError(fmt::format("{} (did you mean '{}'?)", plain.what(), hint));
}

/// "file:line:column" (1-based), or "file" when the position is unknown (line < 1).
inline std::string place(std::string_view file, long line, long column = 0) {
  if (line < 1) return std::string(file);
  if (column < 1) return fmt::format("{}:{}", file, line);
  return fmt::format("{}:{}:{}", file, line, column);
}

}  // namespace acmesim
