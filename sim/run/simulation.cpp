#include "sim/run/simulation.hpp"

#include <algorithm>

#include <fmt/format.h>

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
    return sim_.policies_.placement->place(sim_.cluster_, sim_.spec(id).demand);
  }
  void start(JobId id, const Allocation& where) override { sim_.start(id, where); }
  void preempt(JobId id, const Interruption& how) override {
    Interruption preemption = how;
    preemption.cause = InterruptCause::Preempted;
    sim_.interrupt(id, preemption);
  }
  const JobStatus& status(JobId id) const override { return sim_.result_.jobs[id.value()]; }
  const RunningJobs& running() const override { return sim_.running_jobs_; }
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
    sim_.checkpoints_.emplace_back();
    sim_.covered_.push_back(0);
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

Simulation::Simulation(const ClusterSpec& cluster, const std::vector<JobSpec>& jobs, Policies policies,
                       SimulationOptions options)
    : jobs_{jobs},
      cluster_{cluster},
      policies_{std::move(policies)},
      options_{std::move(options)},
      allocations_(jobs.size()),
      checkpoints_(jobs.size()),
      covered_(jobs.size(), 0),
      jobs_on_node_(cluster_.node_count()) {
  if (!policies_.scheduler || !policies_.placement || !policies_.outcomes || !policies_.failures ||
      !policies_.recovery) {
    throw SimulationError("a simulation needs a policy in every slot (the `none` policies stand for no failures)");
  }
  result_.jobs.resize(jobs.size());
  result_.gpu_nodes = cluster.gpu_nodes;
}

Simulation::~Simulation() = default;

RunResult Simulation::run() {
  const auto wall_start = std::chrono::steady_clock::now();
  last_progress_ = wall_start;
  if (!jobs_.empty()) {
    result_.first_submit = jobs_.front().submitted;
    last_accounted_ = result_.first_submit;
    nodes_accounted_ = result_.first_submit;
    engine_.schedule(jobs_.front().submitted, JobSubmitted{jobs_.front().id});
    engine_.schedule(jobs_.front().submitted, SampleDue{});
    policies_.outcomes->prepare(jobs_);
    result_.outcome_note = policies_.outcomes->note();
    policies_.failures->start(cluster_.spec(), result_.first_submit);
    schedule_next_node_event();
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
  if (result_.last_end > nodes_accounted_) {
    result_.down_node_ms += std::int64_t{down_nodes_} * (result_.last_end - nodes_accounted_).count();
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
  ++submitted_;
  if (auto reason = cluster_.never_fits(spec.demand)) {
    status.phase = JobPhase::Unschedulable;
    result_.unschedulable.push_back(Unschedulable{spec.id, std::move(*reason)});
    ++settled_;
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
    covered_[index] = 1;
    checkpoints_[index] = policies_.recovery->checkpointing(spec);
  }
  status.phase = JobPhase::Queued;
  ++queued_;
  policies_.scheduler->enqueue(spec);
  request_pass(engine_.now());
}

void Simulation::on(const JobEnded& e) {
  JobStatus& status = result_.jobs[e.job.value()];
  if (status.phase != JobPhase::Running || status.attempt != e.attempt) return;  // stale
  const std::int64_t attempt_gpu_ms =
      std::int64_t{spec(e.job).demand.gpus} * (engine_.now() - status.attempt_started).count();
  close_attempt(e.job);
  status.phase = JobPhase::Ended;
  status.ended = engine_.now();
  // status.state was decided at submission. A failed end is a failure too (Table 3 counts it).
  if (status.state == FinalState::Failed || status.state == FinalState::Timeout ||
      status.state == FinalState::NodeFail) {
    status.failure_log.push_back(FailureRecord{
        status.end_reason == FailureReason::None ? FailureReason::Unknown : status.end_reason, attempt_gpu_ms});
  }
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
  --waiting_;
  status.phase = JobPhase::Queued;
  ++queued_;
  policies_.scheduler->requeue(spec(e.job), status);
  request_pass(engine_.now());
}

AttemptSplit Simulation::current_split(JobId id) const {
  const JobStatus& status = result_.jobs[id.value()];
  const Duration held = engine_.now() - status.attempt_started;
  const Duration overhead = std::min(held, status.attempt_overhead);  // cut short if interrupted during it
  return split_attempt(checkpoints_[id.value()], status.done, status.work, held - overhead);
}

AttemptSplit Simulation::close_attempt(JobId id) {
  const JobSpec& spec = this->spec(id);
  JobStatus& status = result_.jobs[id.value()];
  account_allocation();
  running_jobs_.erase(RunningJob{expected_end(id), id});
  cluster_.give_back(allocations_[id.value()]);
  for (const Slice& slice : allocations_[id.value()]) {
    auto& on_node = jobs_on_node_[slice.node.value()];
    on_node.erase(std::remove(on_node.begin(), on_node.end(), id), on_node.end());
  }
  allocations_[id.value()].clear();
  --running_;
  request_pass(engine_.now());
  const std::int64_t gpus = spec.demand.gpus;
  const Duration held = engine_.now() - status.attempt_started;
  const Duration overhead = std::min(held, status.attempt_overhead);
  const AttemptSplit split = current_split(id);
  status.held_gpu_ms += gpus * held.count();
  status.overhead_gpu_ms += gpus * overhead.count();
  status.checkpoint_gpu_ms += gpus * split.stall.count();
  status.attempt_work = split.work;
  if (status.last_failure != FailureReason::None) {
    // The restart overhead of this attempt was caused by the failure before it.
    result_.lost_gpu_ms_by_reason[static_cast<std::size_t>(status.last_failure)] += gpus * overhead.count();
    status.last_failure = FailureReason::None;
  }
  return split;
}

void Simulation::interrupt(JobId id, const Interruption& how) {
  const JobSpec& spec = this->spec(id);
  JobStatus& status = result_.jobs[id.value()];
  if (status.phase != JobPhase::Running) {
    throw SimulationError(fmt::format("job {} (line {}) was interrupted while not running", spec.trace_id,
                                      spec.source_line));
  }
  const std::int64_t attempt_gpu_ms = std::int64_t{spec.demand.gpus} * (engine_.now() - status.attempt_started).count();
  const Duration progress = close_attempt(id).work;
  const Duration kept = std::min(progress, how.keep_at_most);
  const std::int64_t lost = std::int64_t{spec.demand.gpus} * (progress - kept).count();
  status.done += kept;
  status.lost_gpu_ms += lost;
  status.next_overhead = how.restart_overhead;
  (how.cause == InterruptCause::Preempted ? status.preemptions : status.failures) += 1;
  if (how.cause == InterruptCause::Failed) {
    const FailureReason reason = how.reason == FailureReason::None ? FailureReason::Unknown : how.reason;
    result_.lost_gpu_ms_by_reason[static_cast<std::size_t>(reason)] += lost;
    status.last_failure = reason;
    status.failure_log.push_back(FailureRecord{reason, attempt_gpu_ms});
    status.recovery_wait += how.requeue_after;
  }
  status.phase = JobPhase::Waiting;
  ++waiting_;
  engine_.schedule(engine_.now() + how.requeue_after, JobRequeued{id, status.attempt});
}

void Simulation::on(const SchedulingDue&) {
  pending_passes_.erase(engine_.now());
  Pass pass{*this};
  policies_.scheduler->select(pass);
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
  for (const Slice& slice : where) {
    if (slice.gpus > 0) jobs_on_node_[slice.node.value()].push_back(id);
  }
  if (cluster_.spec().nodes_per_switch > 0 && !where.empty()) {
    // Leaf-switch groups spanned: O(nodes of the job), the allocation is short.
    boost::container::small_vector<std::uint32_t, 8> groups;
    for (const Slice& s : where) {
      groups.push_back(s.node.value() / static_cast<std::uint32_t>(cluster_.spec().nodes_per_switch));
    }
    std::sort(groups.begin(), groups.end());
    const auto spanned = static_cast<std::uint16_t>(std::unique(groups.begin(), groups.end()) - groups.begin());
    status.switch_groups = std::max(status.switch_groups, spanned);
  }
  running_jobs_.insert(RunningJob{expected_end(id), id});
  engine_.schedule(expected_end(id), JobEnded{id, status.attempt});
  if (options_.hook) {
    Hooks hooks{*this};
    options_.hook->on_job_started(spec, hooks);
  }
}

void Simulation::schedule_next_node_event() {
  if (settled_ == total_jobs()) return;
  // Nothing left that a node event could change: no running or recovering job, every job
  // submitted, every node up. The run then ends as it would without failures.
  if (running_ == 0 && waiting_ == 0 && submitted_ == total_jobs() && down_nodes_ == 0) return;
  const std::optional<NodeEvent> next = policies_.failures->next();
  if (!next) return;
  if (next->node.value() >= static_cast<std::uint32_t>(cluster_.spec().gpu_nodes)) {
    throw SimulationError(fmt::format("the failure model named node {}; GPU nodes are 0..{}", next->node.value(),
                                      cluster_.spec().gpu_nodes - 1));
  }
  if (next->up) {
    engine_.schedule(next->at, NodeRepaired{next->node});
  } else {
    engine_.schedule(next->at, NodeFailed{next->node, static_cast<std::uint8_t>(next->reason)});
  }
}

void Simulation::account_nodes() {
  result_.down_node_ms += std::int64_t{down_nodes_} * (engine_.now() - nodes_accounted_).count();
  nodes_accounted_ = engine_.now();
}

void Simulation::on(const NodeFailed& e) {
  if (settled_ == total_jobs()) return;  // after the last job: nothing to fail any more
  const auto reason = static_cast<FailureReason>(e.reason);
  ++result_.node_failures;
  ++result_.node_failures_by_reason[static_cast<std::size_t>(reason)];
  if (!cluster_.node(e.node).up) {
    ++result_.node_failures_while_down;  // already being repaired: it stays down, nothing runs there
  } else {
    // Copy: interrupting a job removes it from the node's list.
    const auto victims = jobs_on_node_[e.node.value()];
    const Duration day = seconds(86400);
    const Duration time_of_day{((options_.local_clock_offset + engine_.now().time_since_epoch()) % day + day) % day};
    for (const JobId id : victims) {
      if (covered_[id.value()]) {
        const RecoveryPlan plan = policies_.recovery->recover(spec(id), FailureContext{reason, time_of_day});
        if (plan.requeue_after < Duration{0} || plan.restart_overhead < Duration{0}) {
          throw SimulationError("a recovery policy returned a negative delay");
        }
        if (plan.manual) ++result_.jobs[id.value()].manual_interventions;
        interrupt(id, Interruption{InterruptCause::Failed, current_split(id).kept, plan.restart_overhead,
                                   plan.requeue_after, reason});
      } else {
        end_now(id, FinalState::NodeFail, reason);
      }
    }
    account_nodes();
    cluster_.set_up(e.node, false);
    ++down_nodes_;
  }
  schedule_next_node_event();
}

void Simulation::on(const NodeRepaired& e) {
  if (settled_ == total_jobs()) return;
  ++result_.node_repairs;
  if (!cluster_.node(e.node).up) {
    account_nodes();
    cluster_.set_up(e.node, true);
    --down_nodes_;
    request_pass(engine_.now());
  }
  schedule_next_node_event();
}

void Simulation::end_now(JobId id, FinalState state, FailureReason reason) {
  const JobSpec& spec = this->spec(id);
  JobStatus& status = result_.jobs[id.value()];
  const std::int64_t attempt_gpu_ms = std::int64_t{spec.demand.gpus} * (engine_.now() - status.attempt_started).count();
  const AttemptSplit split = close_attempt(id);
  // The job did less than it would have: what it did is its work now (conservation stays exact).
  status.work = status.done + split.work;
  status.phase = JobPhase::Ended;
  status.ended = engine_.now();
  status.state = state;
  status.end_reason = reason;
  ++status.failures;
  status.failure_log.push_back(FailureRecord{reason, attempt_gpu_ms});
  result_.lost_gpu_ms_by_reason[static_cast<std::size_t>(reason)] += attempt_gpu_ms;
  ++result_.jobs_killed;
  result_.last_end = std::max(result_.last_end, engine_.now());
  ++settled_;
  if (options_.hook) {
    Hooks hooks{*this};
    options_.hook->on_job_ended(spec, hooks);
  }
}

SimTime Simulation::expected_end(JobId id) const {
  const JobStatus& status = result_.jobs[id.value()];
  // The work left, stretched by the checkpoint stalls it will pay (sim/model/checkpoint.hpp).
  return status.attempt_started + status.attempt_overhead +
         checkpoint_wall_time(checkpoints_[id.value()], status.done, status.work, status.work);
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
      // The last attempt did the rest of the work after its overhead and checkpoint stalls; every
      // GPU-ms held was useful work, lost work, restart overhead or checkpoint stall.
      const Duration last = s.attempt_work;
      const Duration wall = *s.ended - s.attempt_started;
      const Duration last_overhead = std::min(wall, s.attempt_overhead);
      const std::int64_t useful = std::int64_t{spec.demand.gpus} * s.work.count();
      if (s.attempt < 1 || s.done + last != s.work || last > wall - last_overhead ||
          s.held_gpu_ms != useful + s.lost_gpu_ms + s.overhead_gpu_ms + s.checkpoint_gpu_ms) {
        throw SimulationError(fmt::format("job {} (line {}) did not do exactly its work: {} attempts, {} ms kept, "
                                          "{} ms in the last attempt, work {} ms",
                                          spec.trace_id, spec.source_line, s.attempt, s.done.count(), last.count(),
                                          s.work.count()));
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
