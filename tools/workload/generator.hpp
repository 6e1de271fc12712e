#pragma once
/// The Acme-style workload generator behind `acmesim synth` (docs/workload.md).
///
/// Two steps. generate_submissions draws what users submit: arrival times from a daily and
/// weekly cycle, users with Zipf-distributed activity, CPU-only jobs and GPU jobs of each type
/// with the type's GPU demand, duration (inverse of the paper's per-type CDF) and final state
/// (coupled to the duration quantile); evaluation jobs arrive in bursts, one per checkpoint.
/// schedule_submissions then runs them through the Simulation on the profile's cluster under
/// the profile's scheduler and placement, so start, end and queue are a schedule that fits the
/// cluster. A launch latency (Kalos: Kubernetes pod start) is the cluster model's, as in `run`
/// (sim/run LaunchLatency): the first part of the drawn duration, so it adds no time to a
/// recorded job and replaying the recorded starts fits the same cluster.
///
/// Cost: O(n log n) in jobs for generation (one sort), plus the simulation.
/// Determinism: every draw comes from Rng{seed, "synth/..."} streams; same profile, options and
/// seed give byte-identical traces.
#include <cstdint>
#include <optional>
#include <string>

#include "io/acme_trace.hpp"
#include "io/profile.hpp"
#include "io/trace_writer.hpp"
#include "sim/policy_api/catalog.hpp"
#include "sim/run/simulation.hpp"

namespace acmesim {

/// The most jobs one generated trace holds (~15 GB of JobSpecs in memory, 100 times the paper's
/// Seren trace): beyond it, `synth` refuses rather than exhausting memory.
inline constexpr std::uint64_t kMaxSynthJobs = 100'000'000;
/// The longest span of submissions `synth` generates, in days (ten years).
inline constexpr double kMaxSynthDays = 3650.0;

struct SynthOptions {
  std::optional<double> days;         // span of submissions; default: the profile's (or jobs / rate)
  std::optional<std::uint64_t> jobs;  // total jobs; default: the profile's rate x days x load
  double load = 1.0;                  // arrival-rate multiplier (with --days) or span divisor (with --jobs)
  std::uint64_t seed = 1;
};

/// Jobs sorted by submission (id == index), no starts yet. Span and count follow SynthOptions:
/// days only -> rate x days x load jobs; jobs only -> over jobs / (rate x load) days; both -> both.
Trace generate_submissions(const WorkloadProfile& profile, const SynthOptions& options);

struct ScheduleReport {
  RunResult result;
};

/// Fills every job's recorded_start by simulating the profile's cluster and policies (taken from
/// `catalog` by name). Jobs that can never fit the cluster are an InputError naming the profile.
ScheduleReport schedule_submissions(Trace& trace, const WorkloadProfile& profile, const Catalog& catalog,
                                    std::uint64_t seed);

/// Writes `trace` (recorded starts set) in the profile's AcmeTrace schema (io/trace_writer.hpp).
inline void write_acme_trace(const std::string& path, const Trace& trace, const WorkloadProfile& profile) {
  write_acme_trace(path, trace, profile.schema, profile.shared_mem_gb);
}

}  // namespace acmesim
