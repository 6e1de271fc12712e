#pragma once
/// Failure injection: a model of when nodes fail and come back. The simulation keeps one pending
/// node event at a time and asks for the next after handling it ([Design lazy-events]: lazy
/// generation, the event heap never holds a failure per node).
///
/// Contract: next() returns events in non-decreasing time, and at equal times repairs before
/// failures (the engine's phases: repairs are Release, failures Fail), so the one-at-a-time
/// feeding keeps the (time, phase, seq) order.
#include <optional>

#include "sim/core/id.hpp"
#include "sim/core/time.hpp"
#include "sim/model/cluster.hpp"
#include "sim/model/failure.hpp"

namespace acmesim {

struct NodeEvent {
  SimTime at;
  NodeId node;
  bool up = false;                                    // true: repaired; false: failed
  FailureReason reason = FailureReason::NodeFailure;  // of a failure
};

class FailureModel {
 public:
  virtual ~FailureModel() = default;
  /// Called once before the run: the cluster it fails and the time of the first submission.
  virtual void start(const ClusterSpec& cluster, SimTime first) = 0;
  /// The next node event, or nullopt if there are none left.
  virtual std::optional<NodeEvent> next() = 0;
};

}  // namespace acmesim
