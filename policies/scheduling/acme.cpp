#include <array>
#include <set>
#include <utility>
#include <vector>

#include "policies/scheduling/queue_tools.hpp"
#include "policies/scheduling/quota.hpp"
#include "sim/policy_api/policy_args.hpp"
#include "sim/policy_api/scheduler.hpp"

namespace acmesim::policies {

namespace {

/// `acme`: the policy of the Acme clusters ([Acme Fig 6, §6.2]: resource isolation
/// with quota reservation for pretraining, best-effort jobs on spare capacity to raise
/// utilisation, evaluation submitted in batches at low priority onto spare resources).
///
/// - Quota (QuotaBook): each job type in `quota_gpus` (or `quota_share` of the cluster's GPUs,
///   in whole nodes) has that many GPUs reserved. Its jobs wait in one FIFO and start, in order,
///   while their type's in-quota GPUs plus theirs stay within the quota; the first that would
///   exceed it waits for its type's jobs to end (Slurm's QOS GrpTRES limit). If the GPUs are
///   taken by best-effort jobs, those are preempted until it fits (Preemptor). A job larger than
///   its whole quota can never be in quota and runs best-effort.
/// - Best-effort: every other job, in two FIFO classes, normal first, then the `low_priority`
///   types (Eval); they start on any idle GPUs (unused quota included), with backfilling: each
///   pass tries up to `max_job_test` of them in order and starts every one that fits. They are
///   the victims when quota needs its GPUs back, low priority first, latest start first; a
///   preempted job keeps its progress and pays `restart_overhead_s`.
/// - An in-quota job that cannot be placed even after preemption (fragments, CPUs, or
///   preemption off) gets a reservation: the earliest time the running jobs' advertised ends
///   free enough GPUs for it (easy-backfill's shadow time). Best-effort jobs then start only if
///   they end by their recorded duration before it or use only the GPUs it leaves spare then
///   (the EASY rule, [Slurm sched_backfill]), so they never delay it.
/// Nothing here singles out evaluation beyond its class: its long waits [Acme Fig 6] must come from
/// the reservation and the priority order.
/// Cost per pass: O(k) to refresh the k in-quota running jobs (a few dozen pretraining jobs) if a
/// job has left since the last pass, O(log q) per quota start, O(v) per v victims, O(r) for a
/// reservation over the r running jobs that end before its shadow time, O(max_job_test)
/// look-ahead over SubmitOrderQueue's contiguous entries, mostly answered by FitMemo (O(1) per
/// job once its shape's answer is known).
class Acme final : public Scheduler {
 public:
  explicit Acme(const PolicyArgs& args)
      : preemptor_{args},
        // Slurm's bf_max_job_test (slurm.conf; 500 in current releases).
        max_job_test_{args.whole("max_job_test", 500, Range::at_least(1),
                                 "best-effort jobs tried per pass (Slurm's bf_max_job_test)")},
        // false: a quota job waits for best-effort jobs to end instead of preempting them
        // (the generator uses it so every recorded job runs once, end = start + duration).
        preemption_{args.flag("preemption", true, "quota jobs preempt best-effort jobs (false: they wait)")},
        quota_{args} {}

  void enqueue(const JobSpec& job) override {
    pending_.push_back(job.id);  // classified at the next pass, once the cluster size is known
  }

  void select(SchedulingPass& pass) override {
    if (!quota_.resolved()) quota_.resolve(pass.cluster());
    for (JobId id : pending_) classify(pass.job(id));
    pending_.clear();
    quota_.refresh(pass);

    std::optional<Reservation> reservation;
    while (!quota_queue_.empty()) {
      const JobId head = quota_queue_.begin()->second;
      const JobSpec& spec = pass.job(head);
      if (!quota_.has_room(spec)) break;  // waits for its own type's jobs
      auto where = pass.fit(head);
      if (!where && preemption_) where = preemptor_.make_room(pass, head, quota_.releases());
      if (!where) {
        reservation = reserve_gpus_by_advertised_ends(pass, spec.demand.gpus);
        break;
      }
      pass.start(head, *where);
      quota_queue_.erase(quota_queue_.begin());
      quota_.started(pass, head);
    }

    memo_.clear();
    const SimTime now = pass.now();
    int tested = 0;
    for (int cls = 0; cls < 2; ++cls) {
      tested += best_effort_[static_cast<std::size_t>(cls)]
                    .walk(0, max_job_test_ - tested,
                          [&](const BestEffortQueue::Entry& e) {
                            const LookAhead& q = e.info;
                            if (reservation && !reservation->admits(now, q.estimate, q.gpus)) return false;
                            auto where = memo_.fit(pass, e.job, q.shape);
                            if (!where) return false;
                            pass.start(e.job, *where);
                            if (reservation) reservation->took(now, q.estimate, q.gpus);
                            preemptor_.started(pass, e.job, cls == 1);
                            return true;
                          })
                    .visited;
    }
  }

 private:
  void classify(const JobSpec& job) {
    if (quota_.in_quota(job))
      quota_queue_.insert({job.submitted, job.id});
    else
      best_effort_[quota_.low(job.type) ? 1 : 0].push(
          job.submitted, job.id, LookAhead{shapes_.numbered(job.demand), job.demand.gpus, job.runtime});
  }

  /// A best-effort job's estimate in the EASY rule is its recorded duration.
  using BestEffortQueue = SubmitOrderQueue<LookAhead>;

  Preemptor preemptor_;
  int max_job_test_;
  bool preemption_;
  QuotaBook quota_;
  std::vector<JobId> pending_;
  std::set<std::pair<SimTime, JobId>> quota_queue_;
  std::array<BestEffortQueue, 2> best_effort_;  // normal, low priority
  ShapeNumbers shapes_;                         // of the best-effort jobs' demands
  FitMemo memo_;                                // demands that did not fit in this pass
};

}  // namespace

std::unique_ptr<Scheduler> make_acme(const PolicyArgs& args) { return std::make_unique<Acme>(args); }

}  // namespace acmesim::policies
