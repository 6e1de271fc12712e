#include <fmt/format.h>

#include <array>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "policies/scheduling/queue_tools.hpp"
#include "sim/policy_api/policy_args.hpp"
#include "sim/policy_api/scheduler.hpp"

namespace acmesim::policies {

namespace {

/// `acme`: the policy of the Acme clusters ([Acme Fig 6, §6.2]: resource isolation
/// with quota reservation for pretraining, best-effort jobs on spare capacity to raise
/// utilisation, evaluation submitted in batches at low priority onto spare resources).
///
/// - Quota: each job type in `quota_gpus` (or `quota_share` of the cluster's GPUs, in whole
///   nodes) has that many GPUs reserved. Its jobs wait in one FIFO and start, in order, while
///   their type's in-quota GPUs plus theirs stay within the quota; the first that would exceed
///   it waits for its type's jobs to end (Slurm's QOS GrpTRES limit). If the GPUs are taken by
///   best-effort jobs, those are preempted until it fits. A job larger than its whole quota can
///   never be in quota and runs best-effort.
/// - Best-effort: every other job, in two FIFO classes, normal first, then the `low_priority`
///   types (Eval); they start on any idle GPUs (unused quota included), with backfilling: each
///   pass tries up to `max_job_test` of them in order and starts every one that fits. They are
///   the victims when quota needs its GPUs back, low priority first, latest start first; a
///   preempted job keeps its progress and pays `restart_overhead_s`.
/// - While a quota job that is within its quota cannot be placed even after preemption
///   (fragments, CPUs), best-effort jobs do not start, so its capacity is not handed out again.
/// Nothing here singles out evaluation beyond its class: its long waits [Acme Fig 6] must come from
/// the reservation and the priority order.
/// Cost per pass: O(k) to refresh the k in-quota running jobs (a few dozen pretraining jobs),
/// O(log q) per start, O(v) per v victims, O(max_job_test) look-ahead mostly answered by FitMemo.
class Acme final : public Scheduler {
 public:
  explicit Acme(const PolicyArgs& args)
      // Tiresias (NSDI'19, §5.2.4): 62 s mean preemption overhead; our estimate [Acme §6.1; est]: 1-2 min to
      // reload a 7B checkpoint. Our default: 60 s.
      : overhead_{from_seconds(args.number("restart_overhead_s", 60.0, Range::at_least(0),
                                           "seconds a preempted job pays at its next start"))},
        // Slurm's bf_max_job_test (slurm.conf; 500 in current releases).
        max_job_test_{args.whole("max_job_test", 500, Range::at_least(1),
                                 "best-effort jobs tried per pass (Slurm's bf_max_job_test)")},
        // false: a quota job waits for best-effort jobs to end instead of preempting them
        // (the generator uses it so every recorded job runs once, end = start + duration).
        preemption_{args.flag("preemption", true, "quota jobs preempt best-effort jobs (false: they wait)")} {
    share_.fill(0.0);
    quota_.fill(-1);
    // [AcmeTrace treemap]: pretraining is 69.5 % of Seren's GPU time (95.5 % of
    // Kalos'); "most resources are reserved (quota) for pretraining" [Acme Fig 6]. Default: 70 % of
    // the GPUs, in whole nodes, for Pretrain; set quota_share: {Pretrain: 0.9} for Kalos.
    bool any_quota = false;
    if (const auto gpus = args.per_job_type<int>("quota_gpus", "none", Range::at_least(0),
                                                 "GPUs reserved per job type (overrides quota_share)")) {
      for (const auto& [type, value] : *gpus) quota_[index(type)] = value;
      any_quota = true;
    }
    if (const auto shares = args.per_job_type<double>("quota_share", "{Pretrain: 0.7} unless quota_gpus is set",
                                                      Range{0, 1}, "share of the GPU nodes reserved per job type")) {
      for (const auto& [type, value] : *shares) share_[index(type)] = value;
      any_quota = true;
    }
    if (!any_quota) share_[index(JobType::Pretrain)] = 0.7;
    low_.fill(false);
    // [Acme Fig 6, §6.2]: evaluation at low priority
    for (const JobType type : args.job_types("low_priority", {JobType::Eval}, "best-effort types started last")) {
      low_[index(type)] = true;
    }
  }

  void enqueue(const JobSpec& job) override {
    pending_.push_back(job.id);  // classified at the next pass, once the cluster size is known
  }

  void select(SchedulingPass& pass) override {
    if (!resolved_) resolve(pass.cluster());
    for (JobId id : pending_) classify(pass.job(id));
    pending_.clear();
    refresh_in_quota(pass);

    bool quota_blocked = false;
    while (!quota_queue_.empty()) {
      const JobId head = quota_queue_.begin()->second;
      const JobSpec& spec = pass.job(head);
      const std::size_t t = index(spec.type);
      if (used_[t] + spec.demand.gpus > quota_[t]) break;  // waits for its own type's jobs
      auto where = pass.fit(head);
      if (!where && preemption_) where = preempt_for(pass, head);
      if (!where) {
        quota_blocked = true;
        break;
      }
      pass.start(head, *where);
      quota_queue_.erase(quota_queue_.begin());
      in_quota_.push_back({head, pass.status(head).attempt});
      used_[t] += spec.demand.gpus;
    }
    if (quota_blocked) return;

    FitMemo memo;
    int tested = 0;
    for (int cls = 0; cls < 2; ++cls) {
      auto& queue = best_effort_[static_cast<std::size_t>(cls)];
      for (auto it = queue.begin(); it != queue.end() && tested < max_job_test_; ++tested) {
        if (auto where = memo.fit(pass, it->second)) {
          pass.start(it->second, *where);
          victims_.add(pass, {cls == 0 ? 1 : 0, -pass.now().time_since_epoch().count()}, it->second);
          it = queue.erase(it);
        } else {
          ++it;
        }
      }
    }
  }

 private:
  using Key = std::pair<int, std::int64_t>;  // (0 = low priority first, -start ms: latest first)
  static std::size_t index(JobType t) { return static_cast<std::size_t>(t); }

  /// Turns quota shares into GPUs (whole nodes) once the cluster is known.
  void resolve(const Cluster& cluster) {
    resolved_ = true;
    const int per_node = cluster.spec().gpus_per_node;
    for (std::size_t t = 0; t < kJobTypeCount; ++t) {
      if (quota_[t] < 0) quota_[t] = static_cast<int>(share_[t] * cluster.spec().gpu_nodes) * per_node;
      if (quota_[t] > cluster.total_gpus()) quota_[t] = cluster.total_gpus();
    }
  }

  void classify(const JobSpec& job) {
    const std::size_t t = index(job.type);
    const bool quota_job = quota_[t] > 0 && job.demand.gpus > 0 && job.demand.gpus <= quota_[t];
    if (quota_job)
      quota_queue_.insert({job.submitted, job.id});
    else
      best_effort_[low_[t] ? 1 : 0].insert({job.submitted, job.id});
  }

  void refresh_in_quota(const SchedulingPass& pass) {
    for (auto it = in_quota_.begin(); it != in_quota_.end();) {
      const JobView s = pass.status(it->first);
      if (s.phase == JobPhase::Running && s.attempt == it->second) {
        ++it;
        continue;
      }
      used_[index(pass.job(it->first).type)] -= pass.job(it->first).demand.gpus;
      it = in_quota_.erase(it);
    }
  }

  /// Preempts best-effort jobs until `head` fits; nullopt (and no preemption) if all of them
  /// together do not hold enough GPUs.
  std::optional<Allocation> preempt_for(SchedulingPass& pass, JobId head) {
    const Demand& need = pass.job(head).demand;
    const Cluster& cluster = pass.cluster();
    int freeable = cluster.idle_gpus();
    // Only counts what preemption could free: fragments may need more victims than the count.
    victims_.victims_until(pass, need.gpus, freeable, [](const auto&) { return false; });
    if (freeable < need.gpus) return std::nullopt;
    auto& entries = victims_.entries();
    for (auto it = entries.begin(); it != entries.end();) {
      if (!victims_.live(pass, *it) || pass.job(it->job).demand.gpus == 0) {
        ++it;
        continue;
      }
      const JobId v = it->job;
      ++it;
      pass.preempt(v, Interruption{InterruptCause::Preempted, Duration::max(), overhead_, Duration{0}});
      if (auto where = pass.fit(head)) return where;
    }
    return std::nullopt;
  }

  Duration overhead_;
  int max_job_test_;
  bool preemption_;
  std::array<double, kJobTypeCount> share_{};
  std::array<int, kJobTypeCount> quota_{};  // GPUs; -1 until resolved from share_
  std::array<int, kJobTypeCount> used_{};   // GPUs held by in-quota jobs
  std::array<bool, kJobTypeCount> low_{};
  bool resolved_ = false;
  std::vector<JobId> pending_;
  std::set<std::pair<SimTime, JobId>> quota_queue_;
  std::array<std::set<std::pair<SimTime, JobId>>, 2> best_effort_;  // normal, low priority
  std::vector<std::pair<JobId, std::uint32_t>> in_quota_;           // running in quota (job, attempt)
  TrackedRunning<Key> victims_;
};

}  // namespace

std::unique_ptr<Scheduler> make_acme(const PolicyArgs& args) { return std::make_unique<Acme>(args); }

}  // namespace acmesim::policies
