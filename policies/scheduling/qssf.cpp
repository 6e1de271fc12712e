#include <queue>
#include <set>
#include <tuple>
#include <vector>

#include "policies/scheduling/duration_predictor.hpp"
#include "policies/scheduling/queue_tools.hpp"
#include "sim/policy_api/policy_args.hpp"
#include "sim/policy_api/scheduler.hpp"

namespace acmesim::policies {

namespace {

/// `qssf`: Helios' quasi-shortest-service-first (Hu et al., SC'21): queued jobs ordered by
/// predicted GPU service, GPUs x predicted duration, where the prediction uses only what was
/// known at submission: the durations of jobs that had ended by then (DurationPredictor).
/// Non-preemptive and strict like `sjf` (the first job blocks the rest); CPU-only jobs have
/// zero GPU service and go first. The predictor learns a job's duration at the instant it
/// ends (the scheduler times that from the end it could not otherwise see, and uses nothing
/// else of it). Cost per pass: O(log q) per start and per job learned, q = queued jobs.
class Qssf final : public Scheduler {
 public:
  explicit Qssf(const PolicyArgs& args)
      : predictor_{args.whole("history", 5, Range::at_least(1), "a user's last ended jobs the prediction averages"),
                   // our model, not from the paper: one hour until any job has ended
                   from_seconds(args.number("default_duration_s", 3600.0, Range::duration(0, 1),
                                            "predicted seconds before any job has ended"))} {}

  void enqueue(const JobSpec& job) override { insert(job, Duration{0}); }
  void requeue(const JobSpec& job, const JobView& status) override { insert(job, status.done); }

  void select(SchedulingPass& pass) override {
    learn_ended(pass);
    start_in_order(pass, queue_, [&](JobId head) {
      const JobView s = pass.status(head);
      reveal_.push({pass.now() + s.attempt_overhead + (pass.job(head).runtime - s.done), head, s.attempt});
    });
  }

 private:
  void insert(const JobSpec& job, Duration done) {
    const Duration left = std::max(Duration{0}, predictor_.predict(job) - done);
    const auto service = static_cast<double>(job.demand.gpus) * static_cast<double>(left.count());
    queue_.insert({service, job.submitted, job.id});
  }
  void learn_ended(SchedulingPass& pass) {
    while (!reveal_.empty() && std::get<0>(reveal_.top()) <= pass.now()) {
      const auto [at, job, attempt] = reveal_.top();
      reveal_.pop();
      const JobView s = pass.status(job);
      // An interrupted attempt is dropped here; its restart pushes a new entry.
      if (s.phase == JobPhase::Ended && s.attempt == attempt) predictor_.learn(pass.job(job), pass.job(job).runtime);
    }
  }

  using Reveal = std::tuple<SimTime, JobId, std::uint32_t>;
  DurationPredictor predictor_;
  std::set<std::tuple<double, SimTime, JobId>> queue_;
  std::priority_queue<Reveal, std::vector<Reveal>, std::greater<>> reveal_;
};

}  // namespace

std::unique_ptr<Scheduler> make_qssf(const PolicyArgs& args) { return std::make_unique<Qssf>(args); }

}  // namespace acmesim::policies
