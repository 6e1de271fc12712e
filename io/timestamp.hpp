#pragma once
/// AcmeTrace timestamps: "2023-03-01 00:18:22+08:00" (Seren, +08:00) and "...+00:00" (Kalos)
/// [AcmeTrace README]. Parsed to a UTC instant in whole seconds plus the written offset.
#include <climits>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace acmesim {

struct Timestamp {
  std::int64_t unix_seconds;  // UTC
  int utc_offset_minutes;     // as written; outputs reuse it
};

/// Accepts "YYYY-MM-DD HH:MM:SS" with an optional 'T' separator, optional fractional seconds
/// (dropped) and an optional "+hh:mm", "-hh:mm" or "Z" suffix (none means UTC).
std::optional<Timestamp> parse_timestamp(std::string_view text);

/// parse_timestamp for many times in a row (reading a trace): remembers the last date and its
/// day number, so times of one day skip the calendar arithmetic. Accepts exactly what
/// parse_timestamp accepts.
class TimestampParser {
 public:
  std::optional<Timestamp> parse(std::string_view text);

 private:
  char date_[10] = {};  // "YYYY-MM-DD" of day_
  std::int64_t day_ = INT64_MIN;
};

/// "YYYY-MM-DD HH:MM:SS+hh:mm" for `unix_seconds` shown at `utc_offset_minutes`.
std::string format_timestamp(std::int64_t unix_seconds, int utc_offset_minutes);

/// format_timestamp for many instants in a row (writing jobs.csv): remembers the last day's
/// date text, so consecutive times of one day cost a few integer divisions.
class TimestampWriter {
 public:
  TimestampWriter(std::int64_t epoch_unix_seconds, int utc_offset_minutes);
  /// The text of `epoch + ms` (milliseconds dropped), appended to `out` (a std::string or a
  /// TextBuffer).
  template <class Out>
  void append(Out& out, std::int64_t ms_since_epoch) {
    char text[kMaxChars];
    const std::size_t n = format(text, ms_since_epoch);
    out.append(text, text + n);
  }

 private:
  static constexpr std::size_t kMaxChars = 32;  // "YYYY-MM-DD HH:MM:SS+hh:mm" is 25
  std::size_t format(char* into, std::int64_t ms_since_epoch);

  std::int64_t epoch_;
  int offset_;
  std::int64_t cached_day_ = INT64_MIN;
  std::string cached_date_;  // "YYYY-MM-DD "
  std::string suffix_;       // "+08:00"
};

}  // namespace acmesim
