#include "sim/simulation.hpp"

#include <fmt/format.h>

#include "sim/config/scenario.hpp"
#include "sim/core/error.hpp"

namespace acmesim {

/// The scheduler's window on the simulation during one pass.
class Simulation::Pass final : public SchedulingPass {
public:
  explicit Pass(Simulation& sim) : sim_{sim} {}
  SimTime now() const override { return sim_.engine_.now(); }
  const Cluster& cluster() const override { return sim_.cluster_; }
  const JobSpec& job(JobId id) const override { return sim_.spec(id); }
  std::optional<Allocation> fit(JobId id) const override {
    return sim_.placement_->place(sim_.cluster_, sim_.spec(id).demand);
  }
  void start(JobId id, const Allocation& where) override { sim_.start(id, where); }
  void preempt(JobId id, const Interruption& how) override {
    Interruption preemption = how;
    preemption.cause = InterruptCause::Preempted;
    sim_.interrupt(id, preemption);
  }
  const JobStatus& status(JobId id) const override { return sim_.result_.jobs[id.value()]; }
  void wake_at(SimTime at) override {
    if (at <= now()) {
      throw SimulationError(fmt::format("a scheduler asked to wake at t={:.3f}s, not after now {}", to_seconds(at),
                                        sim_.engine_.where()));
    }
    sim_.request_pass(at);
  }
  void report_conflict(JobId id, SimTime wanted) override {
    ++sim_.result_.conflicts;
    if (sim_.result_.first_conflicts.size() < RunResult::kKeptConflicts) {
      sim_.result_.first_conflicts.push_back(Conflict{id, wanted});
    }
  }

private:
  Simulation& sim_;
};

/// What a JobHook may do: spawn jobs (ids after the trace's) and ask for a call back.
class Simulation::Hooks final : public HookContext {
public:
  explicit Hooks(Simulation& sim) : sim_{sim} {}
  SimTime now() const override { return std::max(sim_.engine_.now(), sim_.result_.first_submit); }
  JobId spawn(JobSpec spec) override {
    spec.id = JobId{static_cast<std::uint32_t>(sim_.total_jobs())};
    spec.submitted = now();
    sim_.spawned_.push_back(std::move(spec));
    sim_.result_.jobs.emplace_back();
    sim_.allocations_.emplace_back();
    sim_.engine_.schedule(now(), JobSubmitted{sim_.spawned_.back().id});
    return sim_.spawned_.back().id;
  }
  void call_at(SimTime at, std::uint64_t token) override {
    if (at < now()) {
      throw SimulationError(fmt::format("a job hook asked for a call back in the past, at t={:.3f}s",
                                        to_seconds(at)));
    }
    sim_.engine_.schedule(at, HookDue{token});
  }

private:
  Simulation& sim_;
};

const JobSpec& Simulation::spec(JobId id) const {
  return id.value() < jobs_.size() ? jobs_[id.value()] : spawned_[id.value() - jobs_.size()];
}

void Simulation::on(const HookDue& e) {
  Hooks hooks{*this};
  options_.hook->on_due(e.token, hooks);
}

Simulation::Simulation(const ClusterSpec& cluster, const std::vector<JobSpec>& jobs,
                       std::unique_ptr<Scheduler> scheduler, std::unique_ptr<Placement> placement,
                       SimulationOptions options)
    : jobs_{jobs},
      cluster_{cluster},
      scheduler_{std::move(scheduler)},
      placement_{std::move(placement)},
      options_{std::move(options)},
      allocations_(jobs.size()) {
  result_.jobs.resize(jobs.size());
}

Simulation::Simulation(const Scenario& scenario, const std::vector<JobSpec>& jobs, const Catalog& catalog,
                       SimulationOptions options)
    : Simulation(scenario.cluster, jobs, catalog.schedulers.make(scenario.scheduler),
                 catalog.placements.make(scenario.placement), std::move(options)) {}

Simulation::~Simulation() = default;

RunResult Simulation::run() {
  const auto wall_start = std::chrono::steady_clock::now();
  last_progress_ = wall_start;
  if (!jobs_.empty()) {
    result_.first_submit = jobs_.front().submitted;
    last_accounted_ = result_.first_submit;
    engine_.schedule(jobs_.front().submitted, JobSubmitted{jobs_.front().id});
    engine_.schedule(jobs_.front().submitted, SampleDue{});
  }
  if (options_.hook) {
    Hooks hooks{*this};
    options_.hook->on_run_start(hooks);
  }
  try {
    while (auto event = engine_.next()) {
      std::visit([this](const auto& e) { on(e); }, event->body);
      if ((engine_.processed() & 0xffff) == 0) report_progress(wall_start, false);
    }
  } catch (const SimulationError& e) {
    const std::string what = e.what();
    if (what.find("-- at t=") != std::string::npos) throw;
    throw SimulationError(fmt::format("{} {}", what, engine_.where()));
  }
  for (const JobStatus& status : result_.jobs) {
    if (status.phase == JobPhase::Queued) ++result_.unstarted;
  }
  result_.events = engine_.processed();
  result_.fingerprint = engine_.fingerprint().hex();
  result_.spawned.assign(spawned_.begin(), spawned_.end());
  result_.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  check_conservation();
  report_progress(wall_start, true);
  return std::move(result_);
}

void Simulation::report_progress(std::chrono::steady_clock::time_point wall_start, bool force) {
  if (!options_.on_progress) return;
  const auto now = std::chrono::steady_clock::now();
  // Short runs print no progress at all; long ones a line every two seconds and a last one.
  if (now - (force ? wall_start : last_progress_) < std::chrono::seconds(2)) return;
  last_progress_ = now;
  const double done = total_jobs() == 0 ? 1.0 : static_cast<double>(settled_) / static_cast<double>(total_jobs());
  options_.on_progress(Progress{done, engine_.now(), engine_.processed(),
                                std::chrono::duration<double>(now - wall_start).count()});
}

void Simulation::on(const JobSubmitted& e) {
  const std::size_t index = e.job.value();
  // Submissions are fed one at a time, so the event heap holds O(running jobs), not the trace.
  if (index + 1 < jobs_.size()) engine_.schedule(jobs_[index + 1].submitted, JobSubmitted{jobs_[index + 1].id});
  const JobSpec& spec = this->spec(e.job);
  JobStatus& status = result_.jobs[index];
  if (auto reason = cluster_.never_fits(spec.demand)) {
    status.phase = JobPhase::Unschedulable;
    result_.unschedulable.push_back(Unschedulable{spec.id, std::move(*reason)});
    ++settled_;
    return;
  }
  status.phase = JobPhase::Queued;
  ++queued_;
  scheduler_->enqueue(spec);
  request_pass(engine_.now());
}

void Simulation::on(const JobEnded& e) {
  JobStatus& status = result_.jobs[e.job.value()];
  if (status.phase != JobPhase::Running || status.attempt != e.attempt) return;  // stale
  close_attempt(e.job);
  status.phase = JobPhase::Ended;
  status.ended = engine_.now();
  status.state = spec(e.job).recorded_state;
  result_.last_end = std::max(result_.last_end, engine_.now());
  ++settled_;
  if (options_.hook) {
    Hooks hooks{*this};
    options_.hook->on_job_ended(spec(e.job), hooks);
  }
}

void Simulation::on(const JobRequeued& e) {
  JobStatus& status = result_.jobs[e.job.value()];
  if (status.phase != JobPhase::Waiting || status.attempt != e.attempt) return;  // stale
  status.phase = JobPhase::Queued;
  ++queued_;
  scheduler_->requeue(spec(e.job), status);
  request_pass(engine_.now());
}

Duration Simulation::close_attempt(JobId id) {
  const JobSpec& spec = this->spec(id);
  JobStatus& status = result_.jobs[id.value()];
  account_allocation();
  cluster_.give_back(allocations_[id.value()]);
  allocations_[id.value()].clear();
  --running_;
  request_pass(engine_.now());
  const Duration held = engine_.now() - status.attempt_started;
  const Duration overhead = std::min(held, status.attempt_overhead);  // cut short if interrupted during it
  status.held_gpu_ms += std::int64_t{spec.demand.gpus} * held.count();
  status.overhead_gpu_ms += std::int64_t{spec.demand.gpus} * overhead.count();
  return held - overhead;
}

void Simulation::interrupt(JobId id, const Interruption& how) {
  const JobSpec& spec = this->spec(id);
  JobStatus& status = result_.jobs[id.value()];
  if (status.phase != JobPhase::Running) {
    throw SimulationError(fmt::format("job {} (line {}) was interrupted while not running", spec.trace_id,
                                      spec.source_line));
  }
  const Duration progress = close_attempt(id);
  const Duration kept = std::min(progress, how.keep_at_most);
  status.done += kept;
  status.lost_gpu_ms += std::int64_t{spec.demand.gpus} * (progress - kept).count();
  status.next_overhead = how.restart_overhead;
  (how.cause == InterruptCause::Preempted ? status.preemptions : status.failures) += 1;
  status.phase = JobPhase::Waiting;
  engine_.schedule(engine_.now() + how.requeue_after, JobRequeued{id, status.attempt});
}

void Simulation::on(const SchedulingDue&) {
  pending_passes_.erase(engine_.now());
  Pass pass{*this};
  scheduler_->select(pass);
}

void Simulation::on(const SampleDue&) {
  result_.timeline.push_back(TimelineSample{engine_.now(), cluster_.allocated_gpus(), cluster_.allocated_cpus(),
                                            running_, queued_});
  // Stop sampling once every job is settled, or when nothing else can ever happen.
  if (settled_ < total_jobs() && !engine_.idle()) {
    engine_.schedule(engine_.now() + options_.timeline_interval, SampleDue{});
  }
}

void Simulation::request_pass(SimTime at) {
  if (pending_passes_.insert(at).second) engine_.schedule(at, SchedulingDue{});
}

void Simulation::start(JobId id, const Allocation& where) {
  const JobSpec& spec = this->spec(id);
  JobStatus& status = result_.jobs[id.value()];
  if (status.phase != JobPhase::Queued) {
    throw SimulationError(fmt::format("the scheduler started job {} (line {}), which is not queued", spec.trace_id,
                                      spec.source_line));
  }
  // The placement contract, checked once per start: O(nodes of the job).
  int gpus = 0;
  int cpus = 0;
  for (const Slice& s : where) {
    gpus += s.gpus;
    cpus += s.cpus;
  }
  const bool nodes_ok = spec.demand.cpu_only() ? true : static_cast<int>(where.size()) == spec.demand.nodes;
  if (gpus != spec.demand.gpus || !nodes_ok || (cluster_.cpus_modelled() && cpus != spec.demand.cpus)) {
    throw SimulationError(fmt::format(
        "placement gave job {} {} GPUs and {} CPUs on {} nodes; it asked for {} GPUs and {} CPUs on {} nodes",
        spec.trace_id, gpus, cpus, where.size(), spec.demand.gpus, spec.demand.cpus, spec.demand.nodes));
  }
  account_allocation();
  cluster_.take(where);
  allocations_[id.value()] = where;
  status.phase = JobPhase::Running;
  if (!status.started) status.started = engine_.now();
  ++status.attempt;
  status.attempt_started = engine_.now();
  status.attempt_overhead = status.next_overhead;
  status.next_overhead = Duration{0};
  --queued_;
  ++running_;
  const Duration remaining = spec.runtime - status.done;
  engine_.schedule(engine_.now() + status.attempt_overhead + remaining, JobEnded{id, status.attempt});
  if (options_.hook) {
    Hooks hooks{*this};
    options_.hook->on_job_started(spec, hooks);
  }
}

void Simulation::account_allocation() {
  result_.allocated_gpu_ms += std::int64_t{cluster_.allocated_gpus()} * (engine_.now() - last_accounted_).count();
  last_accounted_ = engine_.now();
}

void Simulation::check_conservation() const {
  std::int64_t held = 0;
  for (std::size_t i = 0; i < total_jobs(); ++i) {
    const JobStatus& s = result_.jobs[i];
    const JobSpec& spec = this->spec(JobId{static_cast<std::uint32_t>(i)});
    held += s.held_gpu_ms;
    if (s.phase == JobPhase::Ended) {
      // The last attempt did the rest of the work after its overhead; every GPU-ms held was
      // useful work, lost work or overhead.
      const Duration last = *s.ended - s.attempt_started - s.attempt_overhead;
      const std::int64_t useful = std::int64_t{spec.demand.gpus} * spec.runtime.count();
      if (s.attempt < 1 || s.done + last != spec.runtime ||
          s.held_gpu_ms != useful + s.lost_gpu_ms + s.overhead_gpu_ms) {
        throw SimulationError(fmt::format("job {} (line {}) did not do exactly its work: {} attempts, {} ms kept, "
                                          "{} ms in the last attempt, runtime {} ms",
                                          spec.trace_id, spec.source_line, s.attempt, s.done.count(), last.count(),
                                          spec.runtime.count()));
      }
    } else if (s.phase == JobPhase::Running || s.phase == JobPhase::Pending || s.phase == JobPhase::Waiting) {
      throw SimulationError(fmt::format("job {} (line {}) never ended", spec.trace_id, spec.source_line));
    }
  }
  if (held != result_.allocated_gpu_ms) {
    throw SimulationError(fmt::format("GPU time does not add up: jobs held {} GPU-ms, the cluster lent {} GPU-ms",
                                      held, result_.allocated_gpu_ms));
  }
  if (cluster_.allocated_gpus() != 0 || cluster_.allocated_cpus() != 0) {
    throw SimulationError("resources are still allocated after every job ended");
  }
}

}  // namespace acmesim
