#include "sim/run/simulation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/random/uniform_real_distribution.hpp>
#include <cmath>
#include <functional>

#include "sim/core/error.hpp"

namespace acmesim {

namespace {

JobView view_of(const JobStatus& s) {
  return JobView{s.phase, s.attempt,     s.started,     s.attempt_started, s.attempt_overhead,
                 s.done,  s.held_gpu_ms, s.preemptions, s.failures};
}

}  // namespace

/// The scheduler's window on the simulation during one pass.
class Simulation::Pass final : public SchedulingPass {
 public:
  explicit Pass(Simulation& sim) : sim_{sim} {}
  SimTime now() const override { return sim_.engine_.now(); }
  const Cluster& cluster() const override { return sim_.cluster_; }
  const JobSpec& job(JobId id) const override { return sim_.jobs_.spec(id); }
  std::optional<Allocation> fit(JobId id) const override {
    return sim_.policies_.placement->place(sim_.cluster_, sim_.jobs_.spec(id).demand);
  }
  void start(JobId id, const Allocation& where) override { sim_.start(id, where); }
  void preempt(JobId id, const Interruption& how) override {
    Interruption preemption = how;
    preemption.cause = InterruptCause::Preempted;
    sim_.interrupt(id, preemption);
  }
  JobView status(JobId id) const override { return view_of(sim_.jobs_.status(id)); }
  const RunningJobs& running() const override {
    if (!sim_.running_jobs_kept_) sim_.keep_running_jobs();
    return sim_.running_jobs_;
  }
  std::size_t running_count() const override { return sim_.jobs_.count(JobPhase::Running); }
  std::uint64_t departures() const override { return sim_.jobs_.departures(); }
  void wake_at(SimTime at) override {
    if (at <= now()) {
      throw SimulationError(fmt::format("a scheduler asked to wake at t={:.3f}s, not after now {}", to_seconds(at),
                                        sim_.engine_.where()));
    }
    sim_.request_pass(at);
  }
  void report_conflict(JobId id, SimTime wanted) override { sim_.recorder_.conflict(id, wanted); }

 private:
  Simulation& sim_;
};

/// What a JobHook may do: spawn jobs (ids after the trace's) and ask for a call back.
class Simulation::Hooks final : public HookContext {
 public:
  explicit Hooks(Simulation& sim) : sim_{sim} {}
  SimTime now() const override { return std::max(sim_.engine_.now(), sim_.recorder_.first_submit()); }
  JobId spawn(JobSpec spec) override {
    spec.submitted = now();
    const JobId id = sim_.jobs_.add(std::move(spec));
    sim_.slot_of_.push_back(0);
    sim_.attempts_.add_job();
    sim_.engine_.schedule(now(), JobSubmitted{id});
    return id;
  }
  void call_at(SimTime at, std::uint64_t token) override {
    if (at < now()) {
      throw SimulationError(fmt::format("a job hook asked for a call back in the past, at t={:.3f}s", to_seconds(at)));
    }
    sim_.engine_.schedule(at, HookDue{token});
  }

 private:
  Simulation& sim_;
};

Simulation::Simulation(const ClusterSpec& cluster, const std::vector<JobSpec>& jobs, Policies policies,
                       SimulationOptions options)
    : cluster_{cluster},
      jobs_{jobs},
      attempts_{jobs.size()},
      recorder_{cluster},
      policies_{std::move(policies)},
      options_{std::move(options)},
      slot_of_(jobs.size(), 0),
      jobs_on_node_(cluster_.node_count()),
      launch_rng_{options_.seed, "cluster/launch"},
      admission_rng_{options_.seed, "cluster/admission"} {
  if (!policies_.scheduler || !policies_.placement || !policies_.outcomes || !policies_.failures ||
      !policies_.recovery) {
    throw SimulationError("a simulation needs a policy in every slot (the `none` policies stand for no failures)");
  }
}

Simulation::~Simulation() = default;

RunResult Simulation::run() {
  const auto wall_start = std::chrono::steady_clock::now();
  last_progress_ = wall_start;
  const std::vector<JobSpec>& trace = jobs_.trace_jobs();
  if (!trace.empty()) {
    recorder_.begin(trace.front().submitted);
    engine_.schedule(trace.front().submitted, JobSubmitted{trace.front().id});
    engine_.schedule(trace.front().submitted, SampleDue{});
    policies_.outcomes->prepare(trace);
    outcome_note_ = policies_.outcomes->note();
    policies_.failures->start(cluster_.spec(), recorder_.first_submit());
    recorder_.configured(policies_.failures->configured_rates());
    schedule_next_node_event();
  }
  if (options_.hook) {
    Hooks hooks{*this};
    options_.hook->on_run_start(hooks);
  }
  try {
    while (auto event = engine_.next()) {
      std::visit([this](const auto& e) { on(e); }, event->body);
      // After the handler, not in it: a job's status is complete only once its event is handled.
      if (jobs_.settled_prefix() != told_settled_) tell_settled();
      if ((engine_.processed() & 0xffff) == 0) report_progress(wall_start, false);
    }
  } catch (const SimulationError& e) {
    const std::string what = e.what();
    if (what.find("-- at t=") != std::string::npos) throw;
    throw SimulationError(fmt::format("{} {}", what, engine_.where()));
  }
  Attempts::check_conservation(jobs_, recorder_.lent_gpu_ms());
  if (cluster_.allocated_gpus() != 0 || cluster_.allocated_cpus() != 0) {
    throw SimulationError("resources are still allocated after every job ended");
  }
  RunResult result = std::move(recorder_).finish();
  result.unstarted = jobs_.count(JobPhase::Queued);
  result.events = engine_.processed();
  result.fingerprint = engine_.fingerprint().hex();
  result.spawned = jobs_.spawned();
  result.outcome_note = outcome_note_;
  report_progress(wall_start, true);
  result.jobs = jobs_.take_statuses();
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return result;
}

void Simulation::report_progress(std::chrono::steady_clock::time_point wall_start, bool force) {
  if (!options_.on_progress) return;
  const auto now = std::chrono::steady_clock::now();
  // Short runs print no progress at all; long ones a line every two seconds and a last one.
  if (now - (force ? wall_start : last_progress_) < std::chrono::seconds(2)) return;
  last_progress_ = now;
  const double done =
      jobs_.size() == 0 ? 1.0 : static_cast<double>(jobs_.settled()) / static_cast<double>(jobs_.size());
  options_.on_progress(
      Progress{done, engine_.now(), engine_.processed(), std::chrono::duration<double>(now - wall_start).count()});
}

void Simulation::tell_settled() {
  const std::size_t prefix = jobs_.settled_prefix();
  if (options_.settled) {
    options_.settled->settled(
        told_settled_, std::span<const JobStatus>{&jobs_.status(JobId{static_cast<std::uint32_t>(told_settled_)}),
                                                  prefix - told_settled_});
  }
  told_settled_ = prefix;
}

void Simulation::on(const HookDue& e) {
  Hooks hooks{*this};
  options_.hook->on_due(e.token, hooks);
}

void Simulation::on(const JobSubmitted& e) {
  const std::vector<JobSpec>& trace = jobs_.trace_jobs();
  const std::size_t index = e.job.value();
  // Trace submissions are fed one at a time: the heap never holds the whole trace.
  if (index + 1 < trace.size()) engine_.schedule(trace[index + 1].submitted, JobSubmitted{trace[index + 1].id});
  const JobSpec& spec = jobs_.spec(e.job);
  JobStatus& status = jobs_.status(e.job);
  if (auto reason = cluster_.never_fits(spec.demand)) {
    jobs_.set_phase(e.job, JobPhase::Unschedulable);
    recorder_.unschedulable(spec.id, std::move(*reason));
    return;
  }
  // How the job will end (the outcome model; by default as recorded), and whether recovery
  // checkpoints and restarts it.
  const JobOutcome outcome = policies_.outcomes->decide(spec);
  if (outcome.work < Duration{0}) {
    throw SimulationError(fmt::format("the outcome model gave job {} a negative work time", spec.trace_id));
  }
  status.work = outcome.work;
  status.state = outcome.state;
  status.end_reason = outcome.reason;
  if (policies_.recovery->covers(spec)) {
    attempts_.set_plan(e.job, policies_.recovery->checkpointing(spec));
  }
  if (!options_.admission.cdf.empty()) {
    const double u = boost::random::uniform_real_distribution<double>{}(admission_rng_);
    const Duration delay = seconds(static_cast<std::int64_t>(std::ceil(options_.admission.cdf.inverse(u) - 1e-9)));
    if (delay > Duration{0}) {
      jobs_.set_phase(e.job, JobPhase::Waiting);
      engine_.schedule(engine_.now() + delay, JobAdmitted{e.job});
      return;
    }
  }
  jobs_.set_phase(e.job, JobPhase::Queued);
  policies_.scheduler->enqueue(spec);
  request_pass(engine_.now());
}

void Simulation::on(const JobAdmitted& e) {
  if (jobs_.status(e.job).phase != JobPhase::Waiting) return;
  jobs_.set_phase(e.job, JobPhase::Queued);
  policies_.scheduler->enqueue(jobs_.spec(e.job));
  request_pass(engine_.now());
}

void Simulation::on(const JobEnded& e) {
  JobStatus& status = jobs_.status(e.job);
  if (status.phase != JobPhase::Running || status.attempt != e.attempt) return;  // stale
  const ClosedAttempt closed = close_attempt(e.job);
  Attempts::check_finished(jobs_.spec(e.job), status, closed, engine_.now());
  const std::int64_t attempt_gpu_ms = closed.held_gpu_ms;
  jobs_.set_phase(e.job, JobPhase::Ended);
  status.ended = engine_.now();
  // status.state was decided at submission. A failed end is a failure too (Table 3 counts it).
  if (status.state == FinalState::Failed || status.state == FinalState::Timeout ||
      status.state == FinalState::NodeFail) {
    status.failure_log.push_back(FailureRecord{
        status.end_reason == FailureReason::None ? FailureReason::Unknown : status.end_reason, attempt_gpu_ms});
  }
  recorder_.job_ended(engine_.now());
  if (options_.hook) {
    Hooks hooks{*this};
    options_.hook->on_job_ended(jobs_.spec(e.job), hooks);
  }
}

void Simulation::on(const JobRequeued& e) {
  const JobStatus& status = jobs_.status(e.job);
  if (status.phase != JobPhase::Waiting || status.attempt != e.attempt) return;  // stale
  jobs_.set_phase(e.job, JobPhase::Queued);
  policies_.scheduler->requeue(jobs_.spec(e.job), view_of(status));
  request_pass(engine_.now());
}

ClosedAttempt Simulation::close_attempt(JobId id) {
  JobStatus& status = jobs_.status(id);
  recorder_.lend(cluster_, engine_.now());
  if (running_jobs_kept_) running_jobs_.erase(RunningJob{advertised_end(id), id});
  const std::uint32_t slot = slot_of_[id.value()];
  Allocation& where = allocations_[slot];
  cluster_.give_back(where);
  for (const Slice& slice : where) {
    auto& on_node = jobs_on_node_[slice.node.value()];
    on_node.erase(std::remove(on_node.begin(), on_node.end(), id), on_node.end());
  }
  where.clear();
  free_slots_.push_back(slot);
  request_pass(engine_.now());
  const ClosedAttempt closed = attempts_.close(id, status, jobs_.spec(id).demand.gpus, engine_.now());
  if (status.last_failure != FailureReason::None) {
    // The restart overhead of this attempt was caused by the failure before it.
    recorder_.lost(status.last_failure, closed.overhead_gpu_ms);
    status.last_failure = FailureReason::None;
  }
  return closed;
}

void Simulation::interrupt(JobId id, const Interruption& how) {
  const JobSpec& spec = jobs_.spec(id);
  JobStatus& status = jobs_.status(id);
  if (status.phase != JobPhase::Running) {
    throw SimulationError(
        fmt::format("job {} (line {}) was interrupted while not running", spec.trace_id, spec.source_line));
  }
  const ClosedAttempt closed = close_attempt(id);
  const std::int64_t attempt_gpu_ms = closed.held_gpu_ms;
  const Duration progress = closed.split.work;
  const Duration kept = std::min(progress, how.keep_at_most);
  const std::int64_t lost = std::int64_t{spec.demand.gpus} * (progress - kept).count();
  status.done += kept;
  status.lost_gpu_ms += lost;
  status.next_overhead = how.restart_overhead;
  (how.cause == InterruptCause::Preempted ? status.preemptions : status.failures) += 1;
  if (how.cause == InterruptCause::Failed) {
    const FailureReason reason = how.reason == FailureReason::None ? FailureReason::Unknown : how.reason;
    recorder_.lost(reason, lost);
    status.last_failure = reason;
    status.failure_log.push_back(FailureRecord{reason, attempt_gpu_ms});
    status.recovery_wait += how.requeue_after;
  }
  jobs_.set_phase(id, JobPhase::Waiting);
  engine_.schedule(engine_.now() + how.requeue_after, JobRequeued{id, status.attempt});
}

void Simulation::on(const SchedulingDue&) {
  // Every pending pass is at or after now, so this one is the last (earliest) entry.
  if (pending_passes_.empty() || pending_passes_.back() != engine_.now()) {
    throw SimulationError("a scheduling pass ran that was not requested");
  }
  pending_passes_.pop_back();
  Pass pass{*this};
  policies_.scheduler->select(pass);
}

void Simulation::on(const SampleDue&) {
  const bool room = recorder_.sample(
      engine_.now(), cluster_, static_cast<std::uint32_t>(jobs_.count(JobPhase::Running)),
      static_cast<std::uint32_t>(jobs_.count(JobPhase::Queued)), jobs_.queued_by_type(), options_.timeline_max_samples);
  // Stop sampling once every job is settled, or when nothing else can ever happen.
  if (room && !jobs_.all_settled() && !engine_.idle()) {
    engine_.schedule(engine_.now() + options_.timeline_interval, SampleDue{});
  }
}

void Simulation::request_pass(SimTime at) {
  // One pass per instant however many events ask for it. Most ask for now, the earliest time,
  // which goes at the back.
  const auto place = std::lower_bound(pending_passes_.begin(), pending_passes_.end(), at, std::greater<>{});
  if (place != pending_passes_.end() && *place == at) return;
  pending_passes_.insert(place, at);
  engine_.schedule(at, SchedulingDue{});
}

void Simulation::start(JobId id, const Allocation& where) {
  const JobSpec& spec = jobs_.spec(id);
  JobStatus& status = jobs_.status(id);
  if (status.phase != JobPhase::Queued) {
    throw SimulationError(
        fmt::format("the scheduler started job {} (line {}), which is not queued", spec.trace_id, spec.source_line));
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
  recorder_.lend(cluster_, engine_.now());
  cluster_.take(where);
  std::uint32_t slot = 0;
  if (free_slots_.empty()) {
    slot = static_cast<std::uint32_t>(allocations_.size());
    allocations_.push_back(where);
  } else {
    slot = free_slots_.back();
    free_slots_.pop_back();
    allocations_[slot] = where;
  }
  slot_of_[id.value()] = slot;
  jobs_.set_phase(id, JobPhase::Running);
  Attempts::open(status, engine_.now(), draw_launch(), options_.launch.in_duration);
  for (const Slice& slice : where) {
    if (slice.gpus > 0) jobs_on_node_[slice.node.value()].push_back(id);
  }
  recorder_.placed(status, where);
  if (running_jobs_kept_) running_jobs_.insert(RunningJob{advertised_end(id), id});
  engine_.schedule(expected_end(id), JobEnded{id, status.attempt});
  if (options_.hook) {
    Hooks hooks{*this};
    options_.hook->on_job_started(spec, hooks);
  }
}

void Simulation::schedule_next_node_event() {
  if (jobs_.all_settled()) return;
  // Nothing left that a node event could change: no running or recovering job, every job
  // submitted, every node up. The run then ends as it would without failures.
  if (jobs_.count(JobPhase::Running) == 0 && jobs_.count(JobPhase::Waiting) == 0 &&
      jobs_.count(JobPhase::Pending) == 0 && recorder_.down_nodes() == 0) {
    return;
  }
  const std::optional<NodeEvent> next = policies_.failures->next();
  if (!next) return;
  if (next->node.value() >= static_cast<std::uint32_t>(cluster_.spec().gpu_nodes)) {
    throw SimulationError(fmt::format("the failure model named node {}; GPU nodes are 0..{}", next->node.value(),
                                      cluster_.spec().gpu_nodes - 1));
  }
  if (next->up) {
    engine_.schedule(next->at, NodeRepaired{next->node});
  } else {
    engine_.schedule(next->at, NodeFailed{next->node, static_cast<std::uint8_t>(next->reason), next->transient});
  }
}

void Simulation::on(const NodeFailed& e) {
  if (jobs_.all_settled()) return;  // after the last job: nothing to fail any more
  const auto reason = static_cast<FailureReason>(e.reason);
  const bool already_down = !cluster_.node(e.node).up;
  recorder_.node_failed(reason, already_down, e.transient);
  if (!already_down) {  // a node being repaired stays down, nothing runs there
    // Copy: interrupting a job removes it from the node's list.
    const auto victims = jobs_on_node_[e.node.value()];
    const Duration day = seconds(86400);
    const Duration time_of_day{((options_.local_clock_offset + engine_.now().time_since_epoch()) % day + day) % day};
    for (const JobId id : victims) {
      if (attempts_.covered(id)) {
        const RecoveryPlan plan = policies_.recovery->recover(jobs_.spec(id), FailureContext{reason, time_of_day});
        if (plan.requeue_after < Duration{0} || plan.restart_overhead < Duration{0}) {
          throw SimulationError("a recovery policy returned a negative delay");
        }
        JobStatus& status = jobs_.status(id);
        if (plan.manual) ++status.manual_interventions;
        interrupt(id, Interruption{InterruptCause::Failed, attempts_.split(id, status, engine_.now()).kept,
                                   plan.restart_overhead, plan.requeue_after, reason});
      } else {
        end_now(id, FinalState::NodeFail, reason);
      }
    }
    recorder_.down_nodes_change(engine_.now(), +1);
    cluster_.set_up(e.node, false);
  }
  schedule_next_node_event();
}

void Simulation::on(const NodeRepaired& e) {
  if (jobs_.all_settled()) return;
  recorder_.node_repaired();
  if (!cluster_.node(e.node).up) {
    recorder_.down_nodes_change(engine_.now(), -1);
    cluster_.set_up(e.node, true);
    request_pass(engine_.now());
  }
  schedule_next_node_event();
}

void Simulation::end_now(JobId id, FinalState state, FailureReason reason) {
  const JobSpec& spec = jobs_.spec(id);
  JobStatus& status = jobs_.status(id);
  const ClosedAttempt closed = close_attempt(id);
  const std::int64_t attempt_gpu_ms = closed.held_gpu_ms;
  const AttemptSplit& split = closed.split;
  // The job did less than it would have: what it did is its work now (conservation stays exact).
  status.work = status.done + split.work;
  Attempts::check_finished(spec, status, closed, engine_.now());
  jobs_.set_phase(id, JobPhase::Ended);
  status.ended = engine_.now();
  status.state = state;
  status.end_reason = reason;
  ++status.failures;
  status.failure_log.push_back(FailureRecord{reason, attempt_gpu_ms});
  recorder_.lost(reason, attempt_gpu_ms);
  recorder_.job_killed();
  recorder_.job_ended(engine_.now());
  if (options_.hook) {
    Hooks hooks{*this};
    options_.hook->on_job_ended(spec, hooks);
  }
}

void Simulation::keep_running_jobs() {
  for (std::size_t i = 0; i < jobs_.size(); ++i) {
    const JobId id{static_cast<std::uint32_t>(i)};
    if (jobs_.status(id).phase == JobPhase::Running) running_jobs_.insert(RunningJob{advertised_end(id), id});
  }
  running_jobs_kept_ = true;
}

SimTime Simulation::expected_end(JobId id) const {
  const JobStatus& status = jobs_.status(id);
  return attempts_.end_of(id, status, status.work);
}

Duration Simulation::draw_launch() {
  if (options_.launch.cdf.empty()) return Duration{0};
  const double u = boost::random::uniform_real_distribution<double>{}(launch_rng_);
  // Whole seconds, rounded up, as the trace records times (1e-9: a grid point stays itself).
  return seconds(static_cast<std::int64_t>(std::ceil(options_.launch.cdf.inverse(u) - 1e-9)));
}

SimTime Simulation::advertised_end(JobId id) const {
  return attempts_.end_of(id, jobs_.status(id), jobs_.spec(id).runtime);
}

}  // namespace acmesim
