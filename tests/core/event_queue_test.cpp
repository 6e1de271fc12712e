#include <catch2/catch.hpp>

#include "sim/core/error.hpp"
#include "sim/model/events.hpp"

using namespace acmesim;

namespace {
std::string label(const Event& e) {
  return std::visit(
      [](const auto& body) -> std::string {
        using T = std::decay_t<decltype(body)>;
        if constexpr (std::is_same_v<T, JobEnded>)
          return "end" + std::to_string(body.job.value());
        else if constexpr (std::is_same_v<T, JobSubmitted>)
          return "submit" + std::to_string(body.job.value());
        else if constexpr (std::is_same_v<T, SchedulingDue>)
          return "pass";
        else
          return "sample";
      },
      e.body);
}
}  // namespace

TEST_CASE("events at one instant run in phase order, then in the order they were scheduled") {
  SimEngine engine;
  const SimTime t = at_ms(5000);
  engine.schedule(t, SampleDue{});
  engine.schedule(t, SchedulingDue{});
  engine.schedule(t, JobSubmitted{JobId{1}});
  engine.schedule(t, JobEnded{JobId{7}, 1});
  engine.schedule(t, JobSubmitted{JobId{2}});
  engine.schedule(t, JobEnded{JobId{3}, 1});
  engine.schedule(at_ms(4999), SampleDue{});
  std::vector<std::string> order;
  while (auto e = engine.next()) order.push_back(label(*e));
  CHECK(order == std::vector<std::string>{"sample", "end7", "end3", "submit1", "submit2", "pass", "sample"});
}

TEST_CASE("the clock advances to each event's time and never goes back") {
  SimEngine engine;
  engine.schedule(at_ms(10), SampleDue{});
  engine.schedule(at_ms(3), SampleDue{});
  REQUIRE(engine.next()->at == at_ms(3));
  CHECK(engine.now() == at_ms(3));
  REQUIRE(engine.next()->at == at_ms(10));
  CHECK(engine.now() == at_ms(10));
  CHECK_FALSE(engine.next().has_value());
}

TEST_CASE("scheduling into the past is an error that names the time and event number") {
  SimEngine engine;
  engine.schedule(at_ms(2000), SampleDue{});
  engine.next();
  CHECK_THROWS_WITH(engine.schedule(at_ms(1000), SampleDue{}),
                    "event scheduled into the past, at t=1.000s -- at t=2.000s, event #1");
}

TEST_CASE("the fingerprint depends on the order of events, not only on the set of events") {
  SimEngine a;
  a.schedule(at_ms(1), JobSubmitted{JobId{1}});
  a.schedule(at_ms(1), JobSubmitted{JobId{2}});
  SimEngine b;
  b.schedule(at_ms(1), JobSubmitted{JobId{2}});
  b.schedule(at_ms(1), JobSubmitted{JobId{1}});
  while (a.next()) {
  }
  while (b.next()) {
  }
  CHECK(a.fingerprint().value() != b.fingerprint().value());
  CHECK(a.processed() == 2);
}
