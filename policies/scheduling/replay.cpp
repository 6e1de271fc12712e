#include <deque>
#include <queue>
#include <vector>

#include "sim/policy_api/policy_args.hpp"
#include "sim/policy_api/scheduler.hpp"

namespace acmesim::policies {

namespace {

/// `replay`: starts every job at its recorded start_time, to validate the cluster model against
/// the trace. A job that does not fit at its recorded start is reported once (a conflict: the
/// recorded schedule does not fit the modelled cluster) and then waits in a FIFO of late jobs,
/// served before on-time jobs at every pass; on-time jobs still start if they fit.
/// Jobs without a recorded start (never ran) start at submission.
/// Cost per pass: O(log n) per job started, where n is the number of submitted, unstarted jobs.
class Replay final : public Scheduler {
 public:
  void enqueue(const JobSpec& job) override { due_.push(Due{job.recorded_start.value_or(job.submitted), job.id}); }

  void select(SchedulingPass& pass) override {
    while (!late_.empty()) {
      auto where = pass.fit(late_.front());
      if (!where) break;
      pass.start(late_.front(), *where);
      late_.pop_front();
    }
    while (!due_.empty() && due_.top().at <= pass.now()) {
      const Due next = due_.top();
      due_.pop();
      if (auto where = pass.fit(next.job)) {
        pass.start(next.job, *where);
      } else {
        pass.report_conflict(next.job, next.at);
        late_.push_back(next.job);
      }
    }
    if (!due_.empty()) pass.wake_at(due_.top().at);
  }

 private:
  struct Due {
    SimTime at;
    JobId job;
    // std::priority_queue keeps the largest on top: invert for the earliest (then lowest id).
    bool operator<(const Due& other) const { return at != other.at ? at > other.at : job > other.job; }
  };
  std::priority_queue<Due> due_;
  std::deque<JobId> late_;
};

}  // namespace

std::unique_ptr<Scheduler> make_replay(const PolicyArgs&) { return std::make_unique<Replay>(); }

}  // namespace acmesim::policies
