#pragma once
/// Simulated time: integer milliseconds on a clock of its own (never the wall clock).
/// Integer time makes "simultaneous" exact and arithmetic reproducible on any machine
/// [Design time].
#include <chrono>
#include <cmath>
#include <cstdint>
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

/// Seconds as written in YAML (may be fractional); rounded to the nearest millisecond.
inline Duration from_seconds(double s) { return Duration{static_cast<std::int64_t>(std::llround(s * 1000.0))}; }

/// For outputs only: floating point never flows back into the simulation.
constexpr double to_seconds(Duration d) { return static_cast<double>(d.count()) / 1000.0; }
constexpr double to_seconds(SimTime t) { return to_seconds(t.time_since_epoch()); }
constexpr double to_hours(Duration d) { return to_seconds(d) / 3600.0; }

/// The longest span acmesim simulates: a job's duration, a trace's span of submissions and every
/// time setting are bad input beyond it. Ten years is far beyond any trace, keeps the work of a
/// run bounded (the timeline samples it), and sums of many such spans stay far from the int64
/// limit of milliseconds (292 million years).
inline constexpr Duration kMaxSpan = seconds(std::int64_t{10} * 365 * 86400);

constexpr SimTime at_ms(std::int64_t ms) { return SimTime{Duration{ms}}; }

}  // namespace acmesim
