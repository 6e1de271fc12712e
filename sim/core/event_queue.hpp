#pragma once
/// Pending events, popped in (time, phase, seq) order.
/// Cost: push and pop O(log n) in the number of *pending* events. The simulation keeps n small
/// by feeding trace submissions one at a time instead of scheduling the whole trace up front,
/// so n is about (running jobs + a few), not the trace length.
#include <algorithm>
#include <vector>

#include "sim/core/event.hpp"

namespace acmesim {

class EventQueue {
public:
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
