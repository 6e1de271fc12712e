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
  bool transient = false;                             // of a failure: it leaves the node up (repaired 1 ms later)
};

/// The rates a model was configured with, per node-day, for reports beside what a run saw (0: the
/// model has no such rate, e.g. a replayed log).
struct ConfiguredRates {
  double hardware_per_node_day = 0;   // failures that take a node down until it is repaired
  double transient_per_node_day = 0;  // interruptions of the node's jobs that leave the node up
};

class FailureModel {
 public:
  virtual ~FailureModel() = default;
  /// Called once before the run: the cluster it fails and the time of the first submission.
  virtual void start(const ClusterSpec& cluster, SimTime first) = 0;
  /// The next node event, or nullopt if there are none left.
  virtual std::optional<NodeEvent> next() = 0;
  virtual ConfiguredRates configured_rates() const { return {}; }
};

}  // namespace acmesim
