#include <deque>

#include "sim/policy_api/policy_args.hpp"
#include "sim/policy_api/scheduler.hpp"

namespace acmesim::policies {

namespace {

/// `fifo`: first come, first served, strictly: the head of the queue blocks everyone behind it.
/// Cost per pass: O(jobs started + 1) placement attempts.
class Fifo final : public Scheduler {
 public:
  void enqueue(const JobSpec& job) override { queue_.push_back(job.id); }

  void select(SchedulingPass& pass) override {
    while (!queue_.empty()) {
      auto where = pass.fit(queue_.front());
      if (!where) return;  // the head blocks: that is FIFO
      pass.start(queue_.front(), *where);
      queue_.pop_front();
    }
  }

 private:
  std::deque<JobId> queue_;
};

}  // namespace

std::unique_ptr<Scheduler> make_fifo(const PolicyArgs&) { return std::make_unique<Fifo>(); }

}  // namespace acmesim::policies
