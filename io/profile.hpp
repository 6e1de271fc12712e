#pragma once
/// A workload profile: every parameter of the Acme-style generator (docs/workload.md), read
/// strictly from YAML (configs/profiles/*.yaml). Unknown keys and malformed values are
/// InputErrors naming file:line:col, the key, what was expected and what was found.
#include <yaml-cpp/yaml.h>

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "io/acme_trace.hpp"
#include "sim/model/cluster.hpp"
#include "sim/model/job.hpp"
#include "sim/model/point_cdf.hpp"
#include "sim/policy_api/policy_args.hpp"

namespace acmesim {

namespace yaml {
class Node;
}

/// Final-state shares as a function of the job's duration quantile u (0 = shortest of its type,
/// 1 = longest): linear between rows. Couples states to duration (script failures are short,
/// cancelled pretraining runs long).
struct StateRow {
  double u = 0;
  std::array<double, 3> percent{};  // completed, cancelled, failed (failed includes TIMEOUT, NODE_FAIL)
};

struct JobClassProfile {
  JobType type = JobType::Other;
  double share = 0;                            // percent of GPU jobs (GPU types) ; unused for CPU jobs
  std::vector<std::pair<int, double>> demand;  // (GPUs, or CPUs for CPU jobs; weight)
  PointCdf duration;                           // seconds
  std::vector<StateRow> states;
  double burst_mean_size = 1;  // jobs submitted together (evaluation per checkpoint); 1 = no bursts
  double burst_gap_s = 0;      // mean gap between submissions inside a burst
  /// Share of jobs whose duration quantile is tied to their size quantile (bigger jobs of a type
  /// run longer); the rest draw it independently. A mixture of uniforms, so the type's duration
  /// CDF and size distribution are both kept exactly.
  double size_duration_coupling = 0;
  /// Campaigns (docs/workload.md "Campaigns"): > 0, this type's jobs come as campaigns of about
  /// this many runs of one size, each run submitted when the one before ended plus a restart gap,
  /// campaigns starting only while all campaigns together stay within the profile's budget.
  double campaign_runs_mean = 0;
  double campaign_gap_min = 0;  // mean minutes between the end of a run and the next submission
};

struct WorkloadProfile {
  std::string name;
  std::string source;  // the file
  TraceSchema schema = TraceSchema::Seren;
  int utc_offset_minutes = 0;        // written in the trace
  std::int64_t start_unix = 0;       // first possible submission
  double days = 1;                   // default span
  double jobs = 0;                   // jobs over `days` at load 1
  double cpu_job_share = 0;          // of all jobs
  double campaign_budget_share = 1;  // of the cluster's GPUs, that campaigns together never exceed
  ClusterSpec cluster;
  std::string scheduler = "fifo";
  ParamValue scheduler_params;                 // `scheduler: {name: acme, ...}`: its parameters
  std::string scheduler_where = "<built-in>";  // file:line:col of the block, for messages
  std::string placement = "pack";
  PointCdf admission_latency;  // seconds, submission to scheduler (Kubernetes); empty: none (Slurm)
  double max_duration_s = 0;   // cap; a failed job reaching it ends TIMEOUT
  double node_fail_share = 0;  // of failed multi-node jobs, written NODE_FAIL
  int cpus_per_gpu = 16;
  int mem_gb_per_gpu = 0;  // Kalos mem_per_pod_GB per GPU of the pod (0: not recorded)
  int cpu_job_mem_gb = 0;
  double shared_mem_gb = 0;  // Kalos shared_mem_per_pod
  int users = 100;
  double user_zipf = 1.0;
  int arrival_utc_offset_minutes = 0;  // the users' local time, for the daily and weekly cycle
  std::array<double, 24> hourly{};
  std::array<double, 7> weekly{};  // Monday first
  std::vector<JobClassProfile> gpu_types;
  JobClassProfile cpu_jobs;
};

WorkloadProfile load_profile(const std::string& path);
/// `{x: percent, ...}` as a PointCdf (x > 0 increasing, percents non-decreasing, ending at 100);
/// InputError at the node's place otherwise. The scenario reader uses it for launch latency.
PointCdf read_point_cdf(const yaml::Node& node);
WorkloadProfile parse_profile(const std::string& name, const std::string& yaml_text);

/// "seren" and "kalos" name the bundled profiles in `profile_dir`; anything else is a path.
std::string resolve_profile(const std::string& name_or_path, const std::string& profile_dir);

}  // namespace acmesim
