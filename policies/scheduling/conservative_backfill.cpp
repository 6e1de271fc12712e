#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "policies/factories.hpp"
#include "policies/scheduling/queue_tools.hpp"
#include "policies/scheduling/runtime_estimate.hpp"

namespace acmesim::policies {

namespace {

/// `conservative-backfill`: FIFO where every examined job gets a reservation (Mu'alem and
/// Feitelson, IEEE TPDS 2001): a later job may start now only if it delays no earlier job's
/// reservation. The plan is a profile of free GPUs over time built from the running jobs'
/// estimated ends (RuntimeEstimate); each of the first `max_job_test` queued jobs, in order,
/// takes the earliest slot where its GPUs are free for its estimated runtime, starting now if
/// the slot begins now and the placement finds it nodes. Like `easy-backfill`, the plan counts
/// GPUs, not nodes. Jobs beyond the window wait for a later pass.
/// Cost of a pass after something ended or started: O(r) to build the profile (r = running
/// jobs), then O(p) per examined job (p = profile steps, r + 2 x reservations). A pass where
/// only new jobs joined the tail keeps the plan and places just them: O(new jobs x p).
class ConservativeBackfill final : public Scheduler {
public:
  explicit ConservativeBackfill(const PolicyArgs& args)
      : estimate_{args},
        // Slurm's bf_max_job_test (slurm.conf; 500 in current releases).
        max_job_test_{args.get<int>("max_job_test", 500)} {}

  void enqueue(const JobSpec& job) override {
    const std::pair<SimTime, JobId> key{job.submitted, job.id};
    // A job that lands before the tail (a requeue) changes everyone's plan.
    if (!queue_.empty() && key < *queue_.rbegin()) dirty_ = true;
    else arrivals_.push_back(key);
    queue_.insert(key);
  }

  void select(SchedulingPass& pass) override {
    // Anything that ended or was interrupted since the last pass changes the plan.
    if (pass.running().size() != running_after_) dirty_ = true;
    // Jobs at the front that fit now delay nobody: no plan needed for them.
    while (!queue_.empty()) {
      const JobId head = queue_.begin()->second;
      auto where = pass.fit(head);
      if (!where) break;
      start(pass, head, *where);
      queue_.erase(queue_.begin());
      dirty_ = true;
    }
    // A planned end that has passed without the job ending (an overrun) changes it too.
    if (!dirty_ && profile_.size() > 1 && profile_[1].first <= pass.now()) dirty_ = true;
    if (!queue_.empty()) {
      if (dirty_) {
        build_profile(pass);
        plan(pass, queue_.begin());
      } else if (!arrivals_.empty()) {
        // Nothing changed but new jobs at the tail: the plan stands; place only them, if they
        // are inside the window. O(new jobs x p) instead of a new plan.
        profile_.front().first = pass.now();
        const std::size_t first = queue_.size() - std::min(queue_.size(), arrivals_.size());
        if (first < static_cast<std::size_t>(max_job_test_)) {
          plan(pass, queue_.find(arrivals_[arrivals_.size() - (queue_.size() - first)]),
               max_job_test_ - static_cast<int>(first));
        }
      }
    }
    arrivals_.clear();
    dirty_ = queue_.empty();  // no queue, no plan: the next one starts from scratch
    running_after_ = pass.running().size();
  }

private:
  /// Plans (and starts where the plan says now) up to `budget` queued jobs from `from`.
  void plan(SchedulingPass& pass, std::set<std::pair<SimTime, JobId>>::iterator from, int budget = -1) {
    if (budget < 0) budget = max_job_test_;
    FitMemo memo;
    int tested = 0;
    for (auto it = from; it != queue_.end() && tested < budget; ++tested) {
      const JobId job = it->second;
      const int gpus = pass.job(job).demand.gpus;
      const Duration length = std::max(estimate_.of(pass.job(job)), Duration{1});
      if (gpus == 0) {  // uses no GPUs: the GPU plan cannot be delayed by it
        if (auto where = memo.fit(pass, job)) {
          start(pass, job, *where);
          it = queue_.erase(it);
          continue;
        }
        ++it;
        continue;
      }
      std::size_t slot = earliest(gpus, length, 0);
      if (slot < profile_.size() && profile_[slot].first == pass.now()) {
        if (auto where = memo.fit(pass, job)) {
          start(pass, job, *where);
          reserve(slot, gpus, length);
          it = queue_.erase(it);
          continue;
        }
        slot = earliest(gpus, length, 1);  // fragments: it cannot start now, plan it later
      }
      if (slot < profile_.size()) reserve(slot, gpus, length);
      ++it;
    }
  }

  void start(SchedulingPass& pass, JobId job, const Allocation& where) {
    pass.start(job, where);
    running_.add(pass, estimate_.end_of(pass, job), job);
  }

  /// Free GPUs from now on: a step function, profile_[i] holding from its time to the next.
  void build_profile(SchedulingPass& pass) {
    profile_.clear();
    const Cluster& cluster = pass.cluster();
    profile_.push_back({pass.now(), cluster.idle_gpus()});
    auto& entries = running_.entries();
    for (auto it = entries.begin(); it != entries.end();) {
      if (!running_.live(pass, *it)) {
        it = entries.erase(it);
        continue;
      }
      const SimTime at = std::max(it->key, pass.now());
      const int freed = pass.job(it->job).demand.gpus;
      if (profile_.back().first == at) profile_.back().second += freed;
      else profile_.push_back({at, profile_.back().second + freed});
      ++it;
    }
  }

  /// Index of the earliest step (from `from`) where `gpus` stay free for `length`, or size().
  std::size_t earliest(int gpus, Duration length, std::size_t from) const {
    // One sweep: `c` is the first step of the current run of steps with enough free GPUs;
    // the run works once it lasts `length` (the last step lasts forever).
    std::size_t c = from;
    for (std::size_t k = from; k < profile_.size(); ++k) {
      if (profile_[k].second < gpus) {
        c = k + 1;
        continue;
      }
      if (k + 1 == profile_.size() || profile_[k + 1].first >= profile_[c].first + length) return c;
    }
    return profile_.size();
  }

  /// Takes `gpus` from the profile over [profile_[slot].first, + length).
  void reserve(std::size_t slot, int gpus, Duration length) {
    const SimTime end = profile_[slot].first + length;
    std::size_t k = slot;
    for (; k < profile_.size() && profile_[k].first < end; ++k) profile_[k].second -= gpus;
    // Split the step that `end` falls in, so the GPUs come back at `end`.
    const int after = k < profile_.size() && profile_[k].first == end ? -1 : profile_[k - 1].second + gpus;
    if (after >= 0) profile_.insert(profile_.begin() + static_cast<std::ptrdiff_t>(k), {end, after});
  }

  RuntimeEstimate estimate_;
  int max_job_test_;
  std::set<std::pair<SimTime, JobId>> queue_;
  TrackedRunning<SimTime> running_;
  std::vector<std::pair<SimTime, int>> profile_;  // the last plan, with its reservations
  bool dirty_ = true;                              // the plan must be rebuilt
  std::vector<std::pair<SimTime, JobId>> arrivals_;  // joined the tail since the last pass
  std::size_t running_after_ = 0;                  // running jobs when the last pass ended
};

}  // namespace

std::unique_ptr<Scheduler> make_conservative_backfill(const PolicyArgs& args) {
  return std::make_unique<ConservativeBackfill>(args);
}

}  // namespace acmesim::policies
