#include "sim/core/time.hpp"

#include <catch2/catch.hpp>
#include <limits>
#include <optional>

using namespace acmesim;

TEST_CASE("An OptionalTime holds a time or none in 8 bytes and answers as std::optional would", "[core]") {
  STATIC_REQUIRE(sizeof(OptionalTime) == sizeof(SimTime));
  OptionalTime none;
  CHECK_FALSE(none.has_value());
  CHECK_FALSE(static_cast<bool>(none));
  CHECK(none.value_or(at_ms(5)) == at_ms(5));
  CHECK_FALSE(std::optional<SimTime>(none).has_value());

  // The epoch, negative times and the latest time are all values, not "none".
  for (SimTime t : {at_ms(0), at_ms(-1), at_ms(-kMaxSpan.count()), SimTime::max()}) {
    OptionalTime held = t;
    CHECK(held.has_value());
    CHECK(*held == t);
    CHECK(held == t);
    CHECK(held.value_or(at_ms(5)) == t);
    CHECK(std::optional<SimTime>(held) == std::optional<SimTime>(t));
    CHECK(held != none);
    held.reset();
    CHECK(held == none);
    CHECK_FALSE(held == t);
  }
  CHECK(OptionalTime(std::optional<SimTime>{}) == none);
  CHECK(OptionalTime(std::optional<SimTime>{at_ms(7)}) == at_ms(7));
}

TEST_CASE("from_seconds rounds to the millisecond and saturates at a thousand years, NaN included") {
  CHECK(from_seconds(1.5) == Duration{1500});
  CHECK(from_seconds(0.0004) == Duration{0});
  CHECK(from_seconds(-2.0) == Duration{-2000});
  CHECK(from_seconds(to_seconds(kMaxSpan)) == kMaxSpan);
  // A derived duration past any run (a size over a tiny bandwidth) is "never", not an overflow.
  CHECK(from_seconds(1e300) == kNever);
  CHECK(from_seconds(std::numeric_limits<double>::infinity()) == kNever);
  CHECK(from_seconds(std::numeric_limits<double>::quiet_NaN()) == kNever);
  CHECK(from_seconds(-1e300) == -kNever);
  CHECK(from_seconds(-std::numeric_limits<double>::infinity()) == -kNever);
  // Sums of a few stay far from the int64 limit of milliseconds.
  CHECK(kNever.count() < std::numeric_limits<std::int64_t>::max() / 1000);
}
