#include "sim/core/engine.hpp"

#include <fmt/format.h>

#include "sim/core/error.hpp"

namespace acmesim {

void Engine::schedule(SimTime at, EventBody body) {
  if (at < now_) {
    throw SimulationError(fmt::format("event scheduled into the past, at t={:.3f}s {}", to_seconds(at), where()));
  }
  const Phase phase = std::visit([](const auto& e) { return std::decay_t<decltype(e)>::phase; }, body);
  queue_.push(Event{at, phase, next_seq_++, std::move(body)});
}

std::optional<Event> Engine::next() {
  if (queue_.empty()) return std::nullopt;
  Event event = queue_.pop();
  now_ = event.at;
  ++processed_;
  fingerprint_.add(static_cast<std::uint64_t>(event.at.time_since_epoch().count()));
  fingerprint_.add((static_cast<std::uint64_t>(event.phase) << 8) | event.body.index());
  fingerprint_.add(std::visit([](const auto& e) { return e.key(); }, event.body));
  return event;
}

std::string Engine::where() const {
  return fmt::format("-- at t={:.3f}s, event #{}", to_seconds(now_), processed_);
}

}  // namespace acmesim
