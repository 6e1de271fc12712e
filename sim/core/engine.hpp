#pragma once
/// The event loop's clock and queue, as a value: no globals, so two simulations can live in
/// one process (tests, `compare` sweeps). It knows nothing about jobs or GPUs.
#include <cstdint>
#include <optional>
#include <string>

#include "sim/core/event_queue.hpp"
#include "sim/core/fingerprint.hpp"

namespace acmesim {

class Engine {
public:
  SimTime now() const { return now_; }
  /// Schedules `body` at `at`. Scheduling into the past is a SimulationError.
  void schedule(SimTime at, EventBody body);
  /// Pops the next event, advances the clock and folds the event into the fingerprint.
  std::optional<Event> next();
  bool idle() const { return queue_.empty(); }
  std::size_t pending() const { return queue_.size(); }
  std::uint64_t processed() const { return processed_; }
  const Fingerprint& fingerprint() const { return fingerprint_; }
  /// "-- at t=12.345s, event #42": appended to SimulationError messages.
  std::string where() const;

private:
  EventQueue queue_;
  SimTime now_{};
  std::uint64_t next_seq_ = 0;
  std::uint64_t processed_ = 0;
  Fingerprint fingerprint_;
};

}  // namespace acmesim
