#include <fmt/format.h>

#include <queue>
#include <set>
#include <tuple>
#include <vector>

#include "policies/scheduling/queue_tools.hpp"
#include "sim/policy_api/policy_args.hpp"
#include "sim/policy_api/scheduler.hpp"

namespace acmesim::policies {

namespace {

/// `las`: Tiresias' discretized two-dimensional least-attained-service (Gu et al., NSDI'19).
/// A job's attained service is GPUs x time it has worked; thresholds split it into queues, 0
/// the highest priority. Queued jobs start in (queue, submission) order, strictly (the first
/// blocks the rest). A running job that crosses a threshold drops one queue (a wake-up is
/// asked for at the crossing). When the first queued job does not fit, running GPU jobs of
/// lower-priority queues are preempted, lowest queue and latest start first, if they free
/// enough GPUs; a preempted job keeps its progress and pays `restart_overhead_s` at its next
/// start. Tiresias' starvation knob (promotion after long waits) is not modelled.
/// Cost per pass: O(log q) per start, O(log r) per demotion, O(v log r) per v victims.
class Las final : public Scheduler {
 public:
  explicit Las(const PolicyArgs& args)
      // Tiresias (NSDI'19, §5.2.4) measured 62 s mean preemption overhead; our default 60 s.
      : overhead_{from_seconds(args.number("restart_overhead_s", 60.0, Range::duration(0, 1),
                                           "seconds a preempted job pays at its next start"))} {
    // Lucid's Tiresias baseline [Lucid]: two queues split at 18,000 GPU-seconds.
    const std::vector<double> thresholds =
        args.numbers("thresholds_gpu_s", {18000.0}, Range::above(0),
                     "attained GPU-seconds at which a job drops one queue, increasing");
    for (std::size_t i = 0; i < thresholds.size(); ++i) {
      if (i > 0 && thresholds[i] <= thresholds[i - 1]) {
        args.invalid("thresholds_gpu_s", "increasing positive GPU-seconds");
      }
      thresholds_ms_.push_back(static_cast<std::int64_t>(thresholds[i] * 1000.0));
    }
  }

  void enqueue(const JobSpec& job) override { queue_.insert({0, job.submitted, job.id}); }
  void requeue(const JobSpec& job, const JobView& status) override {
    queue_.insert({level(std::int64_t{job.demand.gpus} * status.done.count()), job.submitted, job.id});
  }

  void select(SchedulingPass& pass) override {
    demote_due(pass);
    while (!queue_.empty()) {
      const auto [lvl, submitted, head] = *queue_.begin();
      auto where = pass.fit(head);
      if (!where && preempt_for(pass, head, lvl)) where = pass.fit(head);
      if (!where) return;
      pass.start(head, *where);
      queue_.erase(queue_.begin());
      track(pass, head, lvl);
    }
  }

 private:
  // Victim order: lowest-priority queue first, then the latest start.
  using Key = std::pair<int, std::int64_t>;                    // (-queue, -attempt start ms)
  using Due = std::tuple<SimTime, JobId, std::uint32_t, int>;  // crossing, job, attempt, new queue

  int level(std::int64_t attained_gpu_ms) const {
    int l = 0;
    while (l < static_cast<int>(thresholds_ms_.size()) &&
           attained_gpu_ms >= thresholds_ms_[static_cast<std::size_t>(l)])
      ++l;
    return l;
  }
  Key key(const SchedulingPass& pass, JobId job, int lvl) const {
    return {-lvl, -pass.status(job).attempt_started.time_since_epoch().count()};
  }

  /// Registers a started job and asks to be woken when it crosses its next threshold.
  void track(SchedulingPass& pass, JobId job, int lvl) {
    const JobSpec& spec = pass.job(job);
    running_.add(pass, key(pass, job, lvl), job);
    if (spec.demand.gpus == 0 || lvl >= static_cast<int>(thresholds_ms_.size())) return;
    const JobView s = pass.status(job);
    const std::int64_t attained = std::int64_t{spec.demand.gpus} * s.done.count();
    const std::int64_t to_go = thresholds_ms_[static_cast<std::size_t>(lvl)] - attained;
    const SimTime at =
        s.attempt_started + s.attempt_overhead + Duration{(to_go + spec.demand.gpus - 1) / spec.demand.gpus};
    if (at >= s.attempt_started + s.attempt_overhead + (spec.runtime - s.done)) return;  // ends first
    due_.push({at, job, s.attempt, lvl + 1});
    pass.wake_at(std::max(at, pass.now() + Duration{1}));
  }

  void demote_due(SchedulingPass& pass) {
    while (!due_.empty() && std::get<0>(due_.top()) <= pass.now()) {
      const auto [at, job, attempt, lvl] = due_.top();
      due_.pop();
      const JobView s = pass.status(job);
      if (s.phase != JobPhase::Running || s.attempt != attempt) continue;
      running_.entries().erase({key(pass, job, lvl - 1), job, attempt});
      running_.entries().insert({key(pass, job, lvl), job, attempt});
      if (lvl < static_cast<int>(thresholds_ms_.size())) {
        const JobSpec& spec = pass.job(job);
        const std::int64_t to_go = thresholds_ms_[static_cast<std::size_t>(lvl)] -
                                   std::int64_t{spec.demand.gpus} * work_done(s, pass.now()).count();
        const SimTime next = pass.now() + Duration{(to_go + spec.demand.gpus - 1) / spec.demand.gpus};
        if (next < s.attempt_started + s.attempt_overhead + (spec.runtime - s.done)) {
          due_.push({next, job, attempt, lvl + 1});
          pass.wake_at(std::max(next, pass.now() + Duration{1}));
        }
      }
    }
  }

  /// Preempts lower-queue GPU jobs until `head` fits; false if they cannot free enough GPUs.
  bool preempt_for(SchedulingPass& pass, JobId head, int head_level) {
    const Demand& need = pass.job(head).demand;
    if (need.cpu_only()) return false;
    const Cluster& cluster = pass.cluster();
    int freeable = cluster.idle_gpus();
    // Only strictly lower-priority queues.
    const std::vector<JobId> victims =
        running_.victims_until(pass, need.gpus, freeable, [&](const auto& e) { return -e.key.first <= head_level; });
    if (freeable < need.gpus) return false;
    for (JobId v : victims) {
      pass.preempt(v, Interruption{InterruptCause::Preempted, Duration::max(), overhead_, Duration{0}});
      if (pass.fit(head)) return true;
    }
    return false;
  }

  Duration overhead_;
  std::vector<std::int64_t> thresholds_ms_;
  std::set<std::tuple<int, SimTime, JobId>> queue_;
  TrackedRunning<Key> running_;
  std::priority_queue<Due, std::vector<Due>, std::greater<>> due_;
};

}  // namespace

std::unique_ptr<Scheduler> make_las(const PolicyArgs& args) { return std::make_unique<Las>(args); }

}  // namespace acmesim::policies
