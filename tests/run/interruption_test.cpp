#include <catch2/catch.hpp>
#include <deque>
#include <map>

#include "policies/catalog.hpp"
#include "sim/run/simulation.hpp"
#include "tests/support.hpp"

using namespace acmesim;
using namespace acmesim::testing;

namespace {

/// FIFO's pass: starts jobs from the front while the first fits.
void start_from_front(SchedulingPass& pass, std::deque<JobId>& queue) {
  while (!queue.empty()) {
    auto where = pass.fit(queue.front());
    if (!where) return;
    pass.start(queue.front(), *where);
    queue.pop_front();
  }
}

/// FIFO that also interrupts given jobs at given times: drives the engine's interruption path
/// the way preemptive schedulers and failure models do.
class ScriptedScheduler final : public Scheduler {
 public:
  explicit ScriptedScheduler(std::multimap<std::int64_t, std::pair<JobId, Interruption>> script)
      : script_{std::move(script)} {}
  void enqueue(const JobSpec& job) override { queue_.push_back(job.id); }
  void requeue(const JobSpec& job, const JobView&) override { queue_.push_front(job.id); }
  void select(SchedulingPass& pass) override {
    const std::int64_t now_s = pass.now().time_since_epoch().count() / 1000;
    for (auto it = script_.begin(); it != script_.end() && it->first <= now_s;) {
      if (pass.status(it->second.first).phase == JobPhase::Running) pass.preempt(it->second.first, it->second.second);
      it = script_.erase(it);
    }
    start_from_front(pass, queue_);
    if (!script_.empty()) pass.wake_at(SimTime{seconds(script_.begin()->first)});
  }

 private:
  std::multimap<std::int64_t, std::pair<JobId, Interruption>> script_;
  std::deque<JobId> queue_;
};

RunResult run_script(const std::vector<JobSpec>& jobs, std::multimap<std::int64_t, std::pair<JobId, Interruption>> s) {
  const Catalog catalog = builtin_catalog();
  Simulation sim{ClusterSpec{1, 8, 0, 0, 0}, jobs,
                 core_policies(catalog, std::make_unique<ScriptedScheduler>(std::move(s)),
                               catalog.placements.make(PolicyArgs::named("placement", "pack")))};
  return sim.run();
}

Interruption keep(Duration at_most, Duration overhead, Duration requeue_after = Duration{0}) {
  return Interruption{InterruptCause::Preempted, at_most, overhead, requeue_after};
}

}  // namespace

TEST_CASE("a preempted job keeps its progress, pays its restart overhead and ends late by exactly that") {
  // A (8 GPUs, 100 s) runs 0-30, is preempted with all progress kept and a 10 s overhead; B runs
  // 30-50; A restarts at 50, pays 10 s, does its remaining 70 s: ends at 130.
  const auto jobs = make_jobs({{0, 8, 100}, {30, 8, 20}});
  const RunResult r = run_script(jobs, {{30, {JobId{0}, keep(Duration::max(), seconds(10))}}});
  CHECK(end_seconds(r) == std::vector<std::int64_t>{130, 50});
  const JobStatus& a = r.jobs[0];
  CHECK(a.attempt == 2);
  CHECK(a.preemptions == 1);
  CHECK(*a.started == SimTime{seconds(0)});
  CHECK(a.held_gpu_ms == 8 * 110'000);
  CHECK(a.lost_gpu_ms == 0);
  CHECK(a.overhead_gpu_ms == 8 * 10'000);
}

TEST_CASE("an interruption loses exactly the work since the last point it may keep") {
  // Progress 30 s, at most 20 s kept (a checkpoint at 20 s): 10 s of 8 GPUs lost and redone.
  const auto jobs = make_jobs({{0, 8, 100}, {30, 8, 20}});
  const RunResult r = run_script(jobs, {{30, {JobId{0}, keep(seconds(20), seconds(10))}}});
  CHECK(end_seconds(r)[0] == 50 + 10 + 80);
  CHECK(r.jobs[0].lost_gpu_ms == 8 * 10'000);
  CHECK(r.jobs[0].done == seconds(20));
}

TEST_CASE("an interruption during the restart overhead keeps nothing of that attempt and counts the overhead paid") {
  // Preempted at 30 (kept 30 s), restarts at 30 with a 10 s overhead, preempted again at 35.
  const auto jobs = make_jobs({{0, 8, 100}});
  const RunResult r = run_script(jobs, {{30, {JobId{0}, keep(Duration::max(), seconds(10))}},
                                        {35, {JobId{0}, keep(Duration::max(), seconds(10))}}});
  const JobStatus& a = r.jobs[0];
  CHECK(a.attempt == 3);
  CHECK(a.overhead_gpu_ms == 8 * (5'000 + 10'000));
  CHECK(a.done == seconds(30));
  CHECK(end_seconds(r)[0] == 35 + 10 + 70);
}

TEST_CASE("a job requeued after a delay waits out of the queue and others use its GPUs meanwhile") {
  const auto jobs = make_jobs({{0, 8, 100}, {40, 8, 30}});
  const RunResult r = run_script(jobs, {{20, {JobId{0}, keep(Duration::max(), Duration{0}, seconds(60))}}});
  // A waits 20-80; B takes the node at 40 and ends at 70; A restarts at 80 and ends at 160.
  CHECK(start_seconds(r) == std::vector<std::int64_t>{0, 40});
  CHECK(end_seconds(r) == std::vector<std::int64_t>{160, 70});
}

TEST_CASE("a job's end at the instant it is interrupted wins, by the phase order") {
  // A ends at 30 (Release phase) before the pass at 30 that would preempt it.
  const auto jobs = make_jobs({{0, 8, 30}});
  const RunResult r = run_script(jobs, {{30, {JobId{0}, keep(Duration::max(), seconds(10))}}});
  CHECK(r.jobs[0].preemptions == 0);
  CHECK(end_seconds(r)[0] == 30);
}

namespace {

/// FIFO that asks for the running jobs only from simulated second `from_s` on, and records at
/// every pass from then what it saw (and whether it matched running_count()).
class LateLooker final : public Scheduler {
 public:
  explicit LateLooker(std::int64_t from_s, std::vector<std::vector<RunningJob>>& seen, bool& counts_agree)
      : from_s_{from_s}, seen_{seen}, counts_agree_{counts_agree} {}
  void enqueue(const JobSpec& job) override { queue_.push_back(job.id); }
  void requeue(const JobSpec& job, const JobView&) override { queue_.push_front(job.id); }
  void select(SchedulingPass& pass) override {
    start_from_front(pass, queue_);
    if (pass.now() < SimTime{seconds(from_s_)}) return;
    const RunningJobs& running = pass.running();
    seen_.emplace_back(running.begin(), running.end());
    if (running.size() != pass.running_count()) counts_agree_ = false;
  }

 private:
  std::int64_t from_s_;
  std::vector<std::vector<RunningJob>>& seen_;
  bool& counts_agree_;
  std::deque<JobId> queue_;
};

}  // namespace

TEST_CASE("the running jobs a scheduler first asks for in the middle of a run are those it would see from the start") {
  // Jobs on two nodes that overlap in every way; a scheduler asking from the first pass on and
  // one asking from second 150 on must see the same sets from 150 on.
  const auto jobs = make_jobs({{0, 8, 100},
                               {0, 4, 300},
                               {10, 4, 50},
                               {60, 8, 400},
                               {120, 2, 30},
                               {150, 2, 500},
                               {155, 4, 20},
                               {200, 8, 10},
                               {210, 1, 1000}});
  const Catalog catalog = builtin_catalog();
  const auto run = [&](std::int64_t from_s, std::vector<std::vector<RunningJob>>& seen, bool& agree) {
    Simulation sim{ClusterSpec{2, 8, 0, 0, 0}, jobs,
                   core_policies(catalog, std::make_unique<LateLooker>(from_s, seen, agree),
                                 catalog.placements.make(PolicyArgs::named("placement", "pack")))};
    return sim.run();
  };
  std::vector<std::vector<RunningJob>> always, late;
  bool always_agree = true;
  bool late_agree = true;
  run(0, always, always_agree);
  run(150, late, late_agree);
  CHECK(always_agree);
  CHECK(late_agree);
  REQUIRE(late.size() >= 4);
  REQUIRE(always.size() > late.size());
  // The passes from 150 on are the last ones of `always`.
  const std::vector<std::vector<RunningJob>> tail(always.end() - static_cast<std::ptrdiff_t>(late.size()),
                                                  always.end());
  CHECK(late == tail);
  CHECK(std::any_of(late.begin(), late.end(), [](const auto& s) { return s.size() >= 2; }));
}
