#pragma once
/// The event loop's clock and queue, as a value: no globals, so two simulations can live in one
/// process (tests, `compare` sweeps). Generic over the event set `Body` (a std::variant, see
/// event_queue.hpp); it knows nothing about jobs or GPUs.
#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>

#include "sim/core/error.hpp"
#include "sim/core/event_queue.hpp"
#include "sim/core/fingerprint.hpp"

namespace acmesim {

template <class Body>
class Engine {
 public:
  using Event = BasicEvent<Body>;

  SimTime now() const { return now_; }

  /// Schedules `body` at `at`. Scheduling into the past is a SimulationError.
  void schedule(SimTime at, Body body) {
    if (at < now_) {
      throw SimulationError(fmt::format("event scheduled into the past, at t={:.3f}s {}", to_seconds(at), where()));
    }
    const auto phase =
        std::visit([](const auto& e) { return static_cast<std::uint8_t>(std::decay_t<decltype(e)>::phase); }, body);
    queue_.push(Event{at, phase, next_seq_++, std::move(body)});
  }

  /// Pops the next event, advances the clock and folds the event into the fingerprint.
  std::optional<Event> next() {
    if (queue_.empty()) return std::nullopt;
    Event event = queue_.pop();
    now_ = event.at;
    ++processed_;
    fingerprint_.add(static_cast<std::uint64_t>(event.at.time_since_epoch().count()));
    fingerprint_.add((std::uint64_t{event.phase} << 8) | event.body.index());
    fingerprint_.add(std::visit([](const auto& e) -> std::uint64_t { return e.key(); }, event.body));
    return event;
  }

  bool idle() const { return queue_.empty(); }
  std::size_t pending() const { return queue_.size(); }
  std::uint64_t processed() const { return processed_; }
  const Fingerprint& fingerprint() const { return fingerprint_; }
  /// "-- at t=12.345s, event #42": appended to SimulationError messages.
  std::string where() const { return fmt::format("-- at t={:.3f}s, event #{}", to_seconds(now_), processed_); }

 private:
  EventQueue<Body> queue_;
  SimTime now_{};
  std::uint64_t next_seq_ = 0;
  std::uint64_t processed_ = 0;
  Fingerprint fingerprint_;
};

}  // namespace acmesim
