#include <cmath>
#include <deque>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "sim/policy_api/policy_args.hpp"
#include "sim/policy_api/scheduler.hpp"

namespace acmesim::policies {

namespace {

/// `fair-share`: per-user fair share of GPUs with Slurm-style decayed usage (Slurm's
/// multifactor priority plugin, classic fair-share factor 2^(-usage/shares) with equal shares,
/// which orders users by decayed usage alone). Every `recalc_period_s` (Slurm's
/// PriorityCalcPeriod) the GPU time each user's jobs held since the last recalculation is
/// charged, and all usage decays with half-life `half_life_s` (PriorityDecayHalfLife). Between
/// recalculations priorities stay fixed, as in Slurm. The user with the least usage goes first,
/// FIFO within a user; strict: the first job blocks the rest (pair it with backfilling in a
/// real Slurm; here the priority effect alone is modelled).
/// Decay without touching every user: usage is stored scaled by 2^(t/half_life), so decay is
/// implicit and the order of users never changes by itself; rescaled when the scale grows large.
/// Cost per pass: O(log u) per start (u = users with queued jobs); per recalculation O(a + u log u),
/// a = jobs that ran since the last one.
class FairShare final : public Scheduler {
 public:
  explicit FairShare(const PolicyArgs& args)
      // Slurm defaults (slurm.conf): PriorityDecayHalfLife=7-0 (7 days), PriorityCalcPeriod=5 (minutes).
      : half_life_s_{args.number("half_life_s", 7.0 * 86400.0, Range::duration(0, 1, true),
                                 "seconds for past usage to count half (Slurm's PriorityDecayHalfLife)")},
        period_{from_seconds(args.number("recalc_period_s", 300.0, Range::duration(0, 1, true),
                                         "seconds between priority recalculations (Slurm's PriorityCalcPeriod)"))} {
    // A period under half a millisecond rounds to none.
    if (period_ <= Duration{0}) args.invalid("recalc_period_s", "a number of seconds >= 0.001");
  }

  void enqueue(const JobSpec& job) override { push(job); }

  void select(SchedulingPass& pass) override {
    if (!epoch_) {
      epoch_ = pass.now();
      next_recalc_ = pass.now() + period_;
    }
    if (pass.now() >= next_recalc_) recalc(pass);
    while (!order_.empty()) {
      const std::uint32_t user = order_.begin()->second;
      std::set<std::pair<SimTime, JobId>>& jobs = queues_[user];
      const JobId head = jobs.begin()->second;
      auto where = pass.fit(head);
      if (!where) break;
      pass.start(head, *where);
      active_.try_emplace(head, pass.status(head).held_gpu_ms);  // earlier attempts: charged already
      jobs.erase(jobs.begin());
      if (jobs.empty()) order_.erase(order_.begin());
    }
    // Keep recalculating while anything runs or waits, so usage is charged on time.
    if (!active_.empty() || !order_.empty()) pass.wake_at(next_recalc_);
  }

 private:
  double scale(SimTime t) const { return std::exp2(to_seconds(t - *epoch_) / half_life_s_); }

  void push(const JobSpec& job) {
    const std::uint32_t user = job.user.value();
    if (usage_.size() <= user) usage_.resize(user + 1, 0.0);
    auto& jobs = queues_[user];
    if (jobs.empty()) order_.insert({usage_[user], user});
    jobs.insert({job.submitted, job.id});
  }

  void recalc(SchedulingPass& pass) {
    const double weight = scale(pass.now());
    for (auto it = active_.begin(); it != active_.end();) {
      const auto [job, charged] = *it;
      const JobView s = pass.status(job);
      const JobSpec& spec = pass.job(job);
      const bool running = s.phase == JobPhase::Running;
      const std::int64_t held =
          s.held_gpu_ms + (running ? std::int64_t{spec.demand.gpus} * (pass.now() - s.attempt_started).count() : 0);
      usage_[spec.user.value()] += static_cast<double>(held - charged) * weight;
      if (running) {
        it->second = held;
        ++it;
      } else {
        it = active_.erase(it);
      }
    }
    // Keep the scaled numbers finite over long traces: divide everything by the scale.
    if (weight > 1e30) {
      for (double& u : usage_) u /= weight;
      epoch_ = pass.now();
    }
    std::set<std::pair<double, std::uint32_t>> order;
    for (const auto& entry : order_) order.insert({usage_[entry.second], entry.second});
    order_ = std::move(order);
    while (next_recalc_ <= pass.now()) next_recalc_ += period_;
  }

  double half_life_s_;
  Duration period_;
  std::optional<SimTime> epoch_;
  SimTime next_recalc_{};
  std::vector<double> usage_;  // by user, scaled by 2^(t/half_life)
  std::map<std::uint32_t, std::set<std::pair<SimTime, JobId>>> queues_;
  std::set<std::pair<double, std::uint32_t>> order_;  // users with queued jobs, by usage
  std::map<JobId, std::int64_t> active_;              // started jobs -> GPU-ms charged so far
};

}  // namespace

std::unique_ptr<Scheduler> make_fair_share(const PolicyArgs& args) { return std::make_unique<FairShare>(args); }

}  // namespace acmesim::policies
