#include <set>
#include <tuple>

#include "policies/scheduling/queue_tools.hpp"
#include "sim/policy_api/policy_args.hpp"
#include "sim/policy_api/scheduler.hpp"

namespace acmesim::policies {

namespace {

/// `sjf`: shortest job first on the true remaining duration (an oracle: no real scheduler knows
/// it), non-preemptive, strict: the shortest queued job blocks the others until it fits, as
/// `fifo`'s head does. Ties go to the earlier submission, then the lower id.
/// Cost per pass: O(log q) per job started plus one placement attempt for the blocked head,
/// q = queued jobs (an ordered set).
class Sjf final : public Scheduler {
 public:
  void enqueue(const JobSpec& job) override { queue_.insert({job.runtime, job.submitted, job.id}); }
  void requeue(const JobSpec& job, const JobView& status) override {
    queue_.insert({job.runtime - status.done, job.submitted, job.id});
  }

  void select(SchedulingPass& pass) override {
    start_in_order(pass, queue_, [](JobId) {});
  }

 private:
  std::set<std::tuple<Duration, SimTime, JobId>> queue_;
};

}  // namespace

std::unique_ptr<Scheduler> make_sjf(const PolicyArgs&) { return std::make_unique<Sjf>(); }

}  // namespace acmesim::policies
