#pragma once
/// Events and their one total order: (time, phase, sequence).
///
/// The engine is generic over the event set: a model defines a std::variant of event structs,
/// each with a `static constexpr` `phase` (an enum whose values give the order of simultaneous
/// events) and a `key()` folded into the fingerprint. The cluster simulation's events are in
/// sim/model/events.hpp; the evaluation model has its own.
///
/// Cost, n = pending events (never the trace or the cluster: submissions and node failures are
/// fed one at a time, stale events are skipped when popped, not searched for):
///
///   operation   complexity    measured (bench/event_queue_bench.cpp, push + pop in a hold model)
///   push        O(log n)      n = 1e3: 88 ns | n = 1e5: 197 ns | n = 1e6: 621 ns
///   pop         O(log n)      (one figure for the pair; the 1e6 heap is 40 MB, past the cache)
///   top, size   O(1)
///
/// A binary heap in one vector: no node allocations, events move, never copy.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/core/time.hpp"

namespace acmesim {

template <class Body>
struct BasicEvent {
  SimTime at;
  std::uint8_t phase;  // taken from the body's type, so callers cannot get it wrong
  std::uint64_t seq;   // scheduling order; unique, so the order is total
  Body body;
};

/// True if `a` runs before `b`.
template <class Body>
constexpr bool runs_before(const BasicEvent<Body>& a, const BasicEvent<Body>& b) {
  if (a.at != b.at) return a.at < b.at;
  if (a.phase != b.phase) return a.phase < b.phase;
  return a.seq < b.seq;
}

template <class Body>
class EventQueue {
 public:
  using Event = BasicEvent<Body>;
  void push(Event event) {
    heap_.push_back(std::move(event));
    std::push_heap(heap_.begin(), heap_.end(), later);
  }
  /// Precondition: !empty().
  Event pop() {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    Event top = std::move(heap_.back());
    heap_.pop_back();
    return top;
  }
  const Event& top() const { return heap_.front(); }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }

 private:
  // std heap algorithms keep the *largest* element on top, so order by "runs later".
  static bool later(const Event& a, const Event& b) { return runs_before(b, a); }
  std::vector<Event> heap_;
};

}  // namespace acmesim
