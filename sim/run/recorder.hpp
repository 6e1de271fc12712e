#pragma once
/// What a run records as it goes, apart from the jobs' own statuses: the timeline, the GPU time
/// the cluster lent, node failures and downtime, GPU time lost per failure reason, leaf-switch
/// spans, unschedulable jobs and scheduler conflicts. The event handlers tell it what happened;
/// it keeps the sums and hands them to the RunResult at the end.
///
/// Cost: every call O(1), except placed() O(nodes of the allocation) and sample() amortized O(1).
#include <cstdint>
#include <string>
#include <vector>

#include "sim/model/cluster.hpp"
#include "sim/model/failure.hpp"
#include "sim/run/run_result.hpp"

namespace acmesim {

class Recorder {
 public:
  explicit Recorder(const ClusterSpec& cluster) : nodes_per_switch_{cluster.nodes_per_switch} {
    result_.gpu_nodes = cluster.gpu_nodes;
  }

  /// The first submission: where every integral starts.
  void begin(SimTime first_submit) {
    result_.first_submit = first_submit;
    lent_since_ = first_submit;
    down_since_ = first_submit;
  }
  SimTime first_submit() const { return result_.first_submit; }

  /// Call before the cluster's allocation changes: integrates allocated GPUs up to `now`.
  void lend(const Cluster& cluster, SimTime now) {
    result_.allocated_gpu_ms += std::int64_t{cluster.allocated_gpus()} * (now - lent_since_).count();
    lent_since_ = now;
  }
  std::int64_t lent_gpu_ms() const { return result_.allocated_gpu_ms; }

  /// Records one sample; false (and the result marked truncated) once `max_samples` are recorded.
  bool sample(SimTime now, const Cluster& cluster, std::uint32_t running, std::uint32_t queued,
              const std::array<QueuedOfType, kJobTypeCount>& queued_by_type, std::size_t max_samples) {
    result_.timeline.push_back(TimelineSample{now, cluster.allocated_gpus(), cluster.allocated_cpus(), running, queued,
                                              down_nodes_, queued_by_type});
    if (result_.timeline.size() < max_samples) return true;
    result_.timeline_truncated = true;
    return false;
  }

  /// The most leaf-switch groups one attempt of the job spanned (when the cluster models them).
  void placed(JobStatus& status, const Allocation& where) const;

  void unschedulable(JobId job, std::string reason) { result_.unschedulable.push_back({job, std::move(reason)}); }
  void conflict(JobId job, SimTime wanted) {
    ++result_.conflicts;
    if (result_.first_conflicts.size() < RunResult::kKeptConflicts) result_.first_conflicts.push_back({job, wanted});
  }

  // Node failures and downtime.
  void node_failed(FailureReason reason, bool already_down, bool transient) {
    ++result_.node_failures;
    if (transient) ++result_.transient_failures;
    ++result_.node_failures_by_reason[static_cast<std::size_t>(reason)];
    if (already_down) ++result_.node_failures_while_down;
  }
  void node_repaired() { ++result_.node_repairs; }
  void configured(const ConfiguredRates& rates) { result_.configured_rates = rates; }
  /// Call when a node goes down (+1) or comes up (-1) at `now`.
  void down_nodes_change(SimTime now, int change) {
    account_down(now);
    down_nodes_ += change;
  }
  int down_nodes() const { return down_nodes_; }

  // Losses.
  void lost(FailureReason reason, std::int64_t gpu_ms) {
    result_.lost_gpu_ms_by_reason[static_cast<std::size_t>(reason)] += gpu_ms;
  }
  void job_killed() { ++result_.jobs_killed; }
  void job_ended(SimTime now) { result_.last_end = std::max(result_.last_end, now); }

  /// The recordings, closed at the last end; the caller adds the jobs and the engine's figures.
  RunResult finish() &&;

 private:
  void account_down(SimTime now) {
    result_.down_node_ms += std::int64_t{down_nodes_} * (now - down_since_).count();
    down_since_ = now;
  }

  int nodes_per_switch_;
  RunResult result_;
  SimTime lent_since_{};
  SimTime down_since_{};
  int down_nodes_ = 0;
};

}  // namespace acmesim
