#include <set>

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
/// estimated end comes first; O(max_job_test) look-ahead, most of it answered by FitMemo.
class EasyBackfill final : public Scheduler {
 public:
  explicit EasyBackfill(const PolicyArgs& args)
      : estimate_{args},
        // Slurm's bf_max_job_test (slurm.conf; 500 in current releases).
        max_job_test_{args.whole("max_job_test", 500, Range::at_least(1),
                                 "queued jobs examined per pass (Slurm's bf_max_job_test)")} {}

  void enqueue(const JobSpec& job) override { queue_.insert({job.submitted, job.id}); }

  void select(SchedulingPass& pass) override {
    while (!queue_.empty()) {
      const JobId head = queue_.begin()->second;
      auto where = pass.fit(head);
      if (!where) break;
      start(pass, head, *where);
      queue_.erase(queue_.begin());
    }
    if (queue_.empty()) return;
    const JobId head = queue_.begin()->second;
    Reservation reservation =
        reserve_gpus(pass, pass.job(head).demand.gpus, [&](auto f) { running_.for_each_live(pass, f); });
    FitMemo memo;
    int tested = 0;
    for (auto it = std::next(queue_.begin()); it != queue_.end() && tested < max_job_test_; ++tested) {
      const JobId job = it->second;
      const int gpus = pass.job(job).demand.gpus;
      const Duration estimate = estimate_.of(pass.job(job));
      if (reservation.admits(pass.now(), estimate, gpus)) {
        if (auto where = memo.fit(pass, job)) {
          start(pass, job, *where);
          reservation.took(pass.now(), estimate, gpus);
          it = queue_.erase(it);
          continue;
        }
      }
      ++it;
    }
  }

 private:
  void start(SchedulingPass& pass, JobId job, const Allocation& where) {
    pass.start(job, where);
    running_.add(pass, estimate_.end_of(pass, job), job);
  }

  RuntimeEstimate estimate_;
  int max_job_test_;
  std::set<std::pair<SimTime, JobId>> queue_;
  TrackedRunning<SimTime> running_;
};

}  // namespace

std::unique_ptr<Scheduler> make_easy_backfill(const PolicyArgs& args) { return std::make_unique<EasyBackfill>(args); }

}  // namespace acmesim::policies
