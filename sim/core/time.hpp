#pragma once
/// Simulated time: integer milliseconds on a clock of its own (never the wall clock).
/// Integer time makes "simultaneous" exact and arithmetic reproducible on any machine
/// [Design time].
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace acmesim {

struct SimClock {
  using rep = std::int64_t;
  using period = std::milli;
  using duration = std::chrono::duration<rep, period>;
  using time_point = std::chrono::time_point<SimClock, duration>;
  static constexpr bool is_steady = true;
  // No now(): simulated time is read from Engine::now().
};

using Duration = SimClock::duration;
using SimTime = SimClock::time_point;

/// Whole seconds, the unit of AcmeTrace and of our YAML.
constexpr Duration seconds(std::int64_t s) { return Duration{s * 1000}; }

/// For outputs only: floating point never flows back into the simulation.
constexpr double to_seconds(Duration d) { return static_cast<double>(d.count()) / 1000.0; }
constexpr double to_seconds(SimTime t) { return to_seconds(t.time_since_epoch()); }
constexpr double to_hours(Duration d) { return to_seconds(d) / 3600.0; }

/// The longest span acmesim simulates: a job's duration, a trace's span of submissions and every
/// time setting are bad input beyond it. Ten years is far beyond any trace, keeps the work of a
/// run bounded (the timeline samples it), and sums of many such spans stay far from the int64
/// limit of milliseconds (292 million years).
inline constexpr Duration kMaxSpan = seconds(std::int64_t{10} * 365 * 86400);
/// Longer than any run (a thousand years, a hundred times kMaxSpan) and far from the int64 limit
/// of milliseconds, so that sums of a few never overflow: what from_seconds() gives for a
/// duration beyond it.
inline constexpr Duration kNever = seconds(std::int64_t{1000} * 365 * 86400);

/// Seconds as written in YAML (may be fractional); rounded to the nearest millisecond.
/// Settings are checked against kMaxSpan where they are read; a duration derived from them (a
/// size over a tiny bandwidth, the tail of a distribution) saturates at kNever instead of
/// overflowing, and NaN reads as kNever too.
inline Duration from_seconds(double s) {
  const double ms = s * 1000.0;
  if (!(ms < static_cast<double>(kNever.count()))) return kNever;  // NaN too: it is not < anything
  if (ms < -static_cast<double>(kNever.count())) return -kNever;
  return Duration{static_cast<std::int64_t>(std::llround(ms))};
}

constexpr SimTime at_ms(std::int64_t ms) { return SimTime{Duration{ms}}; }

/// A time or none, in 8 bytes: `std::optional<SimTime>` takes 16 (a flag padded to 8), and every
/// job holds three (its recorded start, its first start, its end). None is the earliest
/// representable time, which no run reaches (every time is within kMaxSpan of the trace's epoch).
/// The interface is the part of `std::optional`'s the code uses.
class OptionalTime {
 public:
  constexpr OptionalTime() = default;
  constexpr OptionalTime(std::nullopt_t) {}
  constexpr OptionalTime(SimTime time) : time_(time) {}
  constexpr OptionalTime(const std::optional<SimTime>& time) : time_(time.value_or(kNone)) {}

  constexpr bool has_value() const { return time_ != kNone; }
  constexpr explicit operator bool() const { return has_value(); }
  /// Like std::optional's: reading an empty one is a bug of the caller (here it yields kNone).
  constexpr const SimTime& operator*() const { return time_; }
  constexpr const SimTime* operator->() const { return &time_; }
  constexpr SimTime value_or(SimTime fallback) const { return has_value() ? time_ : fallback; }
  constexpr void reset() { time_ = kNone; }
  constexpr operator std::optional<SimTime>() const {
    return has_value() ? std::optional<SimTime>{time_} : std::nullopt;
  }

  friend constexpr bool operator==(OptionalTime, OptionalTime) = default;
  friend constexpr bool operator==(OptionalTime a, SimTime b) { return a.has_value() && a.time_ == b; }

 private:
  static constexpr SimTime kNone{Duration{std::numeric_limits<std::int64_t>::min()}};
  SimTime time_ = kNone;
};

}  // namespace acmesim
