#include "policies/scheduling/queue_tools.hpp"
#include "policies/scheduling/runtime_estimate.hpp"
#include "sim/policy_api/policy_args.hpp"
#include "sim/policy_api/scheduler.hpp"

namespace acmesim::policies {

namespace {

/// `easy-backfill`: FIFO with EASY backfilling (Lifka, "The ANL/IBM SP scheduling system",
/// JSSPP 1995; Mu'alem and Feitelson, IEEE TPDS 2001). Jobs start in submission order while
/// they fit. When the first does not, it gets a reservation: the *shadow time* at which enough
/// GPUs will be free for it, from the running jobs' estimated ends (RuntimeEstimate), and the
/// *extra* GPUs it will leave free then. A later job may jump ahead if it fits now and either
/// ends (by its estimate) before the shadow time or uses only extra GPUs. At most
/// `max_job_test` queued jobs are examined per pass, as Slurm's bf_max_job_test bounds its
/// backfill. The reservation counts GPUs, not nodes: a multi-node head may still find its GPUs
/// fragmented at the shadow time (Slurm plans per node; the difference is documented).
/// Cost per pass: O(log q) per start; O(k) to find the shadow time, k = running jobs whose
/// estimated end comes first; O(max_job_test) look-ahead over SubmitOrderQueue's contiguous
/// entries, most of it answered by FitMemo without asking the placement.
class EasyBackfill final : public Scheduler {
 public:
  explicit EasyBackfill(const PolicyArgs& args)
      : estimate_{args},
        // Slurm's bf_max_job_test (slurm.conf; 500 in current releases).
        max_job_test_{args.whole("max_job_test", 500, Range::at_least(1),
                                 "queued jobs examined per pass (Slurm's bf_max_job_test)")},
        // false: walk the whole window at every pass (the reference the resumed walk is tested
        // against).
        resume_walk_{args.flag("resume_walk", true,
                               "skip the jobs the last pass found unable to start while nothing has freed resources")} {
  }

  void enqueue(const JobSpec& job) override {
    const bool appended =
        queue_.push(job.submitted, job.id, LookAhead{shapes_.numbered(job.demand), job.demand.gpus, estimate_.of(job)});
    if (!appended) reordered_ = true;
  }

  void select(SchedulingPass& pass) override {
    // Nothing freed resources since the last pass (no job left, no node came back: the running
    // jobs and idle GPUs are as that pass left them) and no job landed inside the queue.
    const bool unchanged =
        !reordered_ && pass.running_count() == running_after_ && pass.cluster().idle_gpus() == idle_after_;
    while (!queue_.empty()) {
      const JobId head = queue_.front().job;
      auto where = pass.fit(head);
      if (!where) break;
      start(pass, head, *where);
      queue_.pop_front();
    }
    if (!queue_.empty()) look_ahead(pass, unchanged && resume_walk_ && queue_.front().job == walked_head_);
    reordered_ = false;
    running_after_ = pass.running_count();
    idle_after_ = pass.cluster().idle_gpus();
  }

 private:
  /// Backfills behind the blocked head. With `resume`, the head and its reservation are those of
  /// the last pass and the cluster has only lost resources since, so every job that pass's walk
  /// left in the queue would fail again (it did not fit, or it would delay the head, which a
  /// later `now` makes no less true): the walk goes on after the last job it saw, over the jobs
  /// that entered the window, with the same memo of demands that do not fit.
  void look_ahead(SchedulingPass& pass, bool resume) {
    const Queue::Entry& blocked = queue_.front();
    walked_head_ = blocked.job;
    Reservation reservation = reserve_gpus(pass, blocked.info.gpus, [&](auto f) { running_.for_each_live(pass, f); });
    const SimTime now = pass.now();
    int started = 0;
    auto visit = [&](const Queue::Entry& e) {
      const LookAhead& q = e.info;
      if (!reservation.admits(now, q.estimate, q.gpus)) return false;
      auto where = memo_.fit(pass, e.job, q.shape);
      if (!where) return false;
      start(pass, e.job, *where);
      reservation.took(now, q.estimate, q.gpus);
      ++started;
      return true;
    };
    // The reservation must be the one the last walk ended with. It is computed afresh from the
    // running jobs' estimated ends, which the jobs started since can change: one that ends
    // exactly at the shadow time changes which ends are counted before enough GPUs are free,
    // and so the extra GPUs (the test's trace has tied ends for this).
    resume =
        resume && walked_.visited > 0 && reservation.shadow == reserved_.shadow && reservation.extra == reserved_.extra;
    if (!resume) {
      memo_.clear();
      walked_ = queue_.walk(1, max_job_test_, visit);
      in_window_ = walked_.visited - started;
    } else {
      const Queue::Walked more = queue_.walk_after(walked_.submitted, walked_.job, max_job_test_ - in_window_, visit);
      in_window_ += more.visited - started;
      if (more.visited > 0) walked_ = more;
    }
    reserved_ = reservation;
  }

  void start(SchedulingPass& pass, JobId job, const Allocation& where) {
    pass.start(job, where);
    running_.add(pass, estimate_.end_of(pass, job), job);
  }

  /// What the look-ahead asks of a queued job, kept beside it.
  using Queue = SubmitOrderQueue<LookAhead>;

  RuntimeEstimate estimate_;
  int max_job_test_;
  bool resume_walk_;
  Queue queue_;
  ShapeNumbers shapes_;            // of the queued jobs' demands
  FitMemo memo_;                   // demands that did not fit since the last full walk
  Queue::Walked walked_;           // where the last walk stopped
  Reservation reserved_;           // the head's reservation when it stopped
  int in_window_ = 0;              // jobs behind the head that the walks saw and left queued
  JobId walked_head_{0};           // the blocked head of the last walk
  bool reordered_ = false;         // a job landed inside the queue since the last pass
  std::size_t running_after_ = 0;  // running jobs when the last pass ended
  int idle_after_ = -1;            // idle GPUs when the last pass ended
  TrackedRunning<SimTime> running_;
};

}  // namespace

std::unique_ptr<Scheduler> make_easy_backfill(const PolicyArgs& args) { return std::make_unique<EasyBackfill>(args); }

}  // namespace acmesim::policies
