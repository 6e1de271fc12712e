#pragma once
/// Job outcome models decide how a job ends once it runs: in which final state and after how
/// much work. The simulation asks once per job, at submission, in submission order (so the
/// answers are deterministic). Failures of this kind are *job-level and terminal*: the job ends
/// FAILED at its time to failure, as a user's job does; injected node failures that recovery
/// policies restart from are the `failures` slot's (failure_model.hpp).
#include <string>
#include <vector>

#include "sim/model/failure.hpp"
#include "sim/model/job.hpp"

namespace acmesim {

struct JobOutcome {
  FinalState state = FinalState::Completed;
  Duration work{};                             // running time needed (<= what the job would run)
  FailureReason reason = FailureReason::None;  // why it failed, when state is a failed one
};

class OutcomeModel {
 public:
  virtual ~OutcomeModel() = default;
  /// Called once before the run with every job of the trace (a model may calibrate on it).
  virtual void prepare(const std::vector<JobSpec>& jobs) { (void)jobs; }
  virtual JobOutcome decide(const JobSpec& job) = 0;
  /// A line for summary.json (e.g. what the model calibrated), or empty.
  virtual std::string note() const { return {}; }
};

}  // namespace acmesim
