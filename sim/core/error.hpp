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
/// command-line override, the file alone for a whole-file problem). FOUND is cut to 80 bytes
/// (at a character boundary), so a whole file given in the wrong place never floods the
/// terminal, and its control bytes (NUL, escape sequences, line breaks) are shown as \xNN.
inline InputError input_error(std::string_view place, std::string_view field, std::string_view expected,
                              std::string_view found) {
  constexpr std::size_t kMaxFound = 80;
  std::size_t keep = std::min(found.size(), kMaxFound);
  // Never cut inside a UTF-8 sequence: back up over continuation bytes (10xxxxxx).
  while (keep < found.size() && keep > 0 && (static_cast<unsigned char>(found[keep]) & 0xC0) == 0x80) --keep;
  std::string shown;
  for (const char c : found.substr(0, keep)) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7F) {
      shown += fmt::format("\\x{:02x}", byte);
    } else {
      shown.push_back(c);
    }
  }
  return InputError(fmt::format("{}: {}: expected {}, found '{}{}'", place, field, expected, shown,
                                keep < found.size() ? "..." : ""));
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
