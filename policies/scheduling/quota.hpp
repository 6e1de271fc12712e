#pragma once
/// What `acme` and `slurm` share: the reserved GPU quota per job type with best-effort jobs
/// around it ([Acme Fig 6, §6.2]), and the preemption of best-effort jobs when a quota needs its
/// GPUs back.
#include <array>
#include <optional>
#include <utility>
#include <vector>

#include "policies/scheduling/queue_tools.hpp"
#include "sim/policy_api/policy_args.hpp"
#include "sim/policy_api/scheduler.hpp"

namespace acmesim::policies {

/// The quota of each job type and the best-effort classes, read from the policy's parameters
/// (`quota_gpus`, `quota_share`, `low_priority`), and the GPUs each type's in-quota jobs hold.
/// A job is in quota if its type has a quota and its GPUs fit that quota; it may start while its
/// type's in-quota GPUs plus its own stay within the quota (Slurm's QOS GrpTRES limit). Every
/// other job is best-effort, of low priority if its type is in `low_priority`.
/// Cost: O(1) per question; refresh() O(k) over the k in-quota running jobs (a few dozen
/// pretraining jobs, hundreds on a large cluster) when a job has left since the last pass, O(1)
/// otherwise; started() O(1) amortized.
class QuotaBook {
 public:
  explicit QuotaBook(const PolicyArgs& args) {
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

  /// Turns quota shares into GPUs (whole nodes) once the cluster is known; false before.
  bool resolved() const { return resolved_; }
  void resolve(const Cluster& cluster) {
    resolved_ = true;
    const int per_node = cluster.spec().gpus_per_node;
    for (std::size_t t = 0; t < kJobTypeCount; ++t) {
      if (quota_[t] < 0) quota_[t] = static_cast<int>(share_[t] * cluster.spec().gpu_nodes) * per_node;
      if (quota_[t] > cluster.total_gpus()) quota_[t] = cluster.total_gpus();
    }
  }

  bool in_quota(const JobSpec& job) const {
    const int quota = quota_[index(job.type)];
    return quota > 0 && job.demand.gpus > 0 && job.demand.gpus <= quota;
  }
  bool low(JobType type) const { return low_[index(type)]; }
  /// True if the in-quota `job` may start now: its type's quota has room for it.
  bool has_room(const JobSpec& job) const { return has_room(job.type, job.demand.gpus); }
  bool has_room(JobType type, int gpus) const {
    const std::size_t t = index(type);
    return used_[t] + gpus <= quota_[t];
  }
  /// The in-quota `job` has just started.
  void started(const SchedulingPass& pass, JobId job) {
    in_quota_.push_back({job, pass.status(job).attempt});
    used_[index(pass.job(job).type)] += pass.job(job).demand.gpus;
  }
  /// Gives back the quota of in-quota jobs that ended or were interrupted since the last pass.
  /// If no job has left since the last refresh (SchedulingPass::departures()), there is nothing
  /// to give back: most passes of a busy cluster follow a submission, not an end.
  void refresh(const SchedulingPass& pass) {
    if (pass.departures() == departures_seen_) return;
    departures_seen_ = pass.departures();
    for (auto it = in_quota_.begin(); it != in_quota_.end();) {
      const JobView s = pass.status(it->first);
      if (s.phase == JobPhase::Running && s.attempt == it->second) {
        ++it;
        continue;
      }
      used_[index(pass.job(it->first).type)] -= pass.job(it->first).demand.gpus;
      it = in_quota_.erase(it);
      ++releases_;
    }
  }
  /// How many in-quota attempts have ended or been interrupted so far.
  std::uint64_t releases() const { return releases_; }

 private:
  static std::size_t index(JobType t) { return static_cast<std::size_t>(t); }

  std::array<double, kJobTypeCount> share_{};
  std::array<int, kJobTypeCount> quota_{};  // GPUs; -1 until resolved from share_
  std::array<int, kJobTypeCount> used_{};   // GPUs held by in-quota jobs
  std::array<bool, kJobTypeCount> low_{};
  bool resolved_ = false;
  std::uint64_t releases_ = 0;
  std::vector<std::pair<JobId, std::uint32_t>> in_quota_;  // running in quota (job, attempt)
  std::uint64_t departures_seen_ = 0;                      // SchedulingPass::departures() at the last refresh
};

/// The running best-effort jobs an in-quota job may take GPUs back from: low priority first,
/// latest start first. A preempted job keeps its progress and pays `restart_overhead_s` at its
/// next start. Cost: O(log n) per start; make_room() O(v) placement attempts for v victims.
class Preemptor {
 public:
  explicit Preemptor(const PolicyArgs& args)
      // Tiresias (NSDI'19, §5.2.4): 62 s mean preemption overhead; our estimate [Acme §6.1; est]: 1-2 min to
      // reload a 7B checkpoint. Our default: 60 s.
      : overhead_{from_seconds(args.number("restart_overhead_s", 60.0, Range::duration(0, 1),
                                           "seconds a preempted job pays at its next start"))} {}

  /// The best-effort `job` has just started; `low`: of a low-priority type.
  void started(const SchedulingPass& pass, JobId job, bool low) {
    victims_.add(pass, {low ? 0 : 1, -pass.now().time_since_epoch().count()}, job);
  }

  /// Preempts best-effort jobs until `head` fits, and returns where; nullopt (and no preemption)
  /// if all of them together do not hold enough GPUs. Fragments (or CPUs) may still leave it
  /// unplaced after preempting them all; the attempt is then futile, and it is not repeated for
  /// the same head until `epoch` changes (the owner's count of in-quota jobs that ended: only
  /// they hold what preemption cannot free), so preempted jobs that backfill around the head's
  /// reservation are not preempted again and again for nothing.
  std::optional<Allocation> make_room(SchedulingPass& pass, JobId head, std::uint64_t epoch) {
    if (futile_ && futile_->first == head && futile_->second == epoch) return std::nullopt;
    auto where = try_room(pass, head);
    if (!where) futile_ = std::pair{head, epoch};
    return where;
  }

 private:
  std::optional<Allocation> try_room(SchedulingPass& pass, JobId head) {
    const Demand& need = pass.job(head).demand;
    int freeable = pass.cluster().idle_gpus();
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

  using Key = std::pair<int, std::int64_t>;  // (0 = low priority first, -start ms: latest first)
  Duration overhead_;
  TrackedRunning<Key> victims_;
  std::optional<std::pair<JobId, std::uint64_t>> futile_;  // (head, epoch) of the last futile attempt
};

}  // namespace acmesim::policies
