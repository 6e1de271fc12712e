#include "sim/core/time.hpp"

#include <catch2/catch.hpp>
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
