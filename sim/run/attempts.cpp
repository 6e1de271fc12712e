#include "sim/run/attempts.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sim/core/error.hpp"

namespace acmesim {

void Attempts::open(JobStatus& status, SimTime now, Duration launch, bool launch_in_duration) {
  if (!status.started) status.started = now;
  ++status.attempt;
  status.attempt_started = now;
  status.attempt_overhead = status.next_overhead;
  status.next_overhead = Duration{0};
  if (status.attempt > 1 || !launch_in_duration) status.attempt_overhead += launch;
}

SimTime Attempts::end_of(JobId id, const JobStatus& status, Duration work) const {
  return status.attempt_started + status.attempt_overhead + checkpoint_wall_time(plan(id), status.done, work, work);
}

AttemptSplit Attempts::split(JobId id, const JobStatus& status, SimTime now) const {
  const Duration held = now - status.attempt_started;
  const Duration overhead = std::min(held, status.attempt_overhead);  // cut short if interrupted during it
  return split_attempt(plan(id), status.done, status.work, held - overhead);
}

ClosedAttempt Attempts::close(JobId id, JobStatus& status, int gpus_of_job, SimTime now) const {
  const std::int64_t gpus = gpus_of_job;
  const Duration held = now - status.attempt_started;
  const Duration overhead = std::min(held, status.attempt_overhead);
  const AttemptSplit s = split(id, status, now);
  status.held += held;
  status.held_gpu_ms += gpus * held.count();
  status.overhead_gpu_ms += gpus * overhead.count();
  status.checkpoint_gpu_ms += gpus * s.stall.count();
  return ClosedAttempt{s, gpus * held.count(), gpus * overhead.count()};
}

void Attempts::check_finished(const JobSpec& spec, const JobStatus& s, const ClosedAttempt& last_attempt, SimTime now) {
  // The last attempt did the rest of the work after its overhead and checkpoint stalls.
  const Duration last = last_attempt.split.work;
  const Duration wall = now - s.attempt_started;
  const Duration last_overhead = std::min(wall, s.attempt_overhead);
  const std::int64_t useful = std::int64_t{spec.demand.gpus} * s.work.count();
  if (s.attempt < 1 || s.done + last != s.work || last > wall - last_overhead ||
      s.held_gpu_ms != useful + s.lost_gpu_ms + s.overhead_gpu_ms + s.checkpoint_gpu_ms) {
    throw SimulationError(
        fmt::format("job {} (line {}) did not do exactly its work: {} attempts, {} ms kept, "
                    "{} ms in the last attempt, work {} ms",
                    spec.trace_id, spec.source_line, s.attempt, s.done.count(), last.count(), s.work.count()));
  }
}

void Attempts::check_conservation(const JobTable& jobs, std::int64_t lent_gpu_ms) {
  std::int64_t held = 0;
  for (std::uint32_t i = 0; i < jobs.size(); ++i) {
    const JobStatus& s = jobs.status(JobId{i});
    const JobSpec& spec = jobs.spec(JobId{i});
    held += s.held_gpu_ms;
    if (s.phase == JobPhase::Running || s.phase == JobPhase::Pending || s.phase == JobPhase::Waiting) {
      throw SimulationError(fmt::format("job {} (line {}) never ended", spec.trace_id, spec.source_line));
    }
  }
  if (held != lent_gpu_ms) {
    throw SimulationError(
        fmt::format("GPU time does not add up: jobs held {} GPU-ms, the cluster lent {} GPU-ms", held, lent_gpu_ms));
  }
}

}  // namespace acmesim
