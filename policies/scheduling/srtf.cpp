#include <set>
#include <tuple>
#include <vector>

#include "sim/policy_api/policy_args.hpp"
#include "sim/policy_api/scheduler.hpp"

namespace acmesim::policies {

namespace {

/// `srtf`: preemptive shortest remaining time first on the true remaining work (an oracle).
/// Queued jobs start in order of remaining work, strictly (the first blocks the rest). When the
/// first does not fit, running GPU jobs with more remaining time than it are preempted, longest
/// remaining first, but only if they free enough GPUs for it; a preempted job keeps its progress
/// (a suspend to checkpoint), pays `restart_overhead_s` at its next start and rejoins the queue.
/// Cost per pass: O(log q) per start, O(v log r) for v victims examined (at most kMaxWalk)
/// among r running jobs, plus one placement attempt per preemption.
class Srtf final : public Scheduler {
 public:
  explicit Srtf(const PolicyArgs& args)
      // Tiresias (NSDI'19, §5.2.4) measured 62 s average preemption overhead (as quoted in [Lucid]'s
      // docstring); we estimate 1-2 min to reload a 7B checkpoint [Acme §6.1; est]. Our default: 60 s.
      : overhead_{from_seconds(args.number("restart_overhead_s", 60.0, Range::duration(0, 1),
                                           "seconds a preempted job pays at its next start"))} {}

  void enqueue(const JobSpec& job) override { queue_.insert({job.runtime, job.submitted, job.id}); }
  void requeue(const JobSpec& job, const JobView& status) override {
    queue_.insert({job.runtime - status.done, job.submitted, job.id});
  }

  void select(SchedulingPass& pass) override {
    while (!queue_.empty()) {
      const auto [remaining, submitted, head] = *queue_.begin();
      auto where = pass.fit(head);
      if (!where && preempt_for(pass, head, remaining)) where = pass.fit(head);
      if (!where) return;
      pass.start(head, *where);
      queue_.erase(queue_.begin());
    }
  }

 private:
  /// Preempts longer-remaining GPU jobs until `head` fits; false if they cannot free enough GPUs.
  bool preempt_for(SchedulingPass& pass, JobId head, Duration head_remaining) {
    const Demand& need = pass.job(head).demand;
    if (need.cpu_only()) return false;
    const Cluster& cluster = pass.cluster();
    int freeable = cluster.idle_gpus();
    std::vector<JobId> victims;
    int walked = 0;
    for (auto it = pass.running().rbegin(); it != pass.running().rend() && walked < kMaxWalk; ++it, ++walked) {
      // expected_end - now bounds the remaining work from above (it adds any unpaid restart
      // overhead): once it is no more than the head's, no job further on is longer.
      if (it->expected_end - pass.now() <= head_remaining) break;
      const int gpus = pass.job(it->job).demand.gpus;
      // Compare work, not overhead: a victim requeued with less work left than the head would
      // go ahead of it and be preempted again, forever.
      const Duration left = pass.job(it->job).runtime - work_done(pass.status(it->job), pass.now());
      if (gpus == 0 || left <= head_remaining) continue;
      victims.push_back(it->job);
      freeable += gpus;
      if (freeable >= need.gpus) break;
    }
    if (freeable < need.gpus) return false;
    for (JobId v : victims) {
      pass.preempt(v, Interruption{InterruptCause::Preempted, Duration::max(), overhead_, Duration{0}});
      if (pass.fit(head)) return true;
    }
    return false;
  }

  static constexpr int kMaxWalk = 256;  // our choice: bounds one pass's search for victims
  Duration overhead_;
  std::set<std::tuple<Duration, SimTime, JobId>> queue_;
};

}  // namespace

std::unique_ptr<Scheduler> make_srtf(const PolicyArgs& args) { return std::make_unique<Srtf>(args); }

}  // namespace acmesim::policies
