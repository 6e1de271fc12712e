// The index of every policy acmesim ships: adding one is a new file, its factory declared and
// listed here, its line in CMakeLists.txt and its section of docs/policies.md.
#include "policies/catalog.hpp"

#include <memory>

#include "sim/policy_api/evaluation.hpp"
#include "sim/policy_api/failure_model.hpp"
#include "sim/policy_api/outcome.hpp"
#include "sim/policy_api/placement.hpp"
#include "sim/policy_api/policy_args.hpp"
#include "sim/policy_api/recovery.hpp"
#include "sim/policy_api/scheduler.hpp"

namespace acmesim {

// The factory of every built-in policy, defined in its own file (policies/<slot>/<name>.cpp).
namespace policies {
std::unique_ptr<Scheduler> make_fifo(const PolicyArgs& args);
std::unique_ptr<Scheduler> make_replay(const PolicyArgs& args);
std::unique_ptr<Scheduler> make_sjf(const PolicyArgs& args);
std::unique_ptr<Scheduler> make_srtf(const PolicyArgs& args);
std::unique_ptr<Scheduler> make_qssf(const PolicyArgs& args);
std::unique_ptr<Scheduler> make_las(const PolicyArgs& args);
std::unique_ptr<Scheduler> make_easy_backfill(const PolicyArgs& args);
std::unique_ptr<Scheduler> make_conservative_backfill(const PolicyArgs& args);
std::unique_ptr<Scheduler> make_fair_share(const PolicyArgs& args);
std::unique_ptr<Scheduler> make_acme(const PolicyArgs& args);
std::unique_ptr<Scheduler> make_slurm(const PolicyArgs& args);

std::unique_ptr<Placement> make_pack(const PolicyArgs& args);
std::unique_ptr<Placement> make_spread(const PolicyArgs& args);
std::unique_ptr<Placement> make_first_fit(const PolicyArgs& args);
std::unique_ptr<Placement> make_topology(const PolicyArgs& args);

std::unique_ptr<EvaluationPolicy> make_coupled(const PolicyArgs& args);
std::unique_ptr<EvaluationPolicy> make_decoupled(const PolicyArgs& args);
std::unique_ptr<OutcomeModel> make_trace_outcomes(const PolicyArgs& args);
std::unique_ptr<OutcomeModel> make_all_complete(const PolicyArgs& args);
std::unique_ptr<OutcomeModel> make_taxonomy(const PolicyArgs& args);
std::unique_ptr<OutcomeModel> make_trace_reasons(const PolicyArgs& args);

std::unique_ptr<FailureModel> make_no_failures(const PolicyArgs& args);
std::unique_ptr<FailureModel> make_node_mtbf(const PolicyArgs& args);
std::unique_ptr<FailureModel> make_replay_failures(const PolicyArgs& args);

std::unique_ptr<RecoveryPolicy> make_no_recovery(const PolicyArgs& args);
std::unique_ptr<RecoveryPolicy> make_manual_recovery(const PolicyArgs& args);
std::unique_ptr<RecoveryPolicy> make_auto_recovery(const PolicyArgs& args);
}  // namespace policies

Catalog builtin_catalog() {
  using namespace policies;
  Catalog c;
  c.schedulers.add("fifo", "First come, first served; the head job blocks the queue.", make_fifo);
  c.schedulers.add("replay", "Start each job at its recorded start_time; report where the trace does not fit.",
                   make_replay);
  c.schedulers.add("sjf", "Shortest job first on the true duration (oracle), non-preemptive; the shortest blocks.",
                   make_sjf);
  c.schedulers.add("srtf", "Preemptive shortest remaining time first on the true duration (oracle).", make_srtf);
  c.schedulers.add("qssf", "Helios' quasi-shortest-service-first: GPUs x duration predicted from the user's history.",
                   make_qssf);
  c.schedulers.add("las", "Tiresias' discretized 2D least-attained-service (GPU-time queues) with preemption.",
                   make_las);
  c.schedulers.add("easy-backfill", "FIFO with EASY backfilling: later jobs may pass if they do not delay the first.",
                   make_easy_backfill);
  c.schedulers.add("conservative-backfill",
                   "FIFO with conservative backfilling: later jobs may pass if they delay no reservation.",
                   make_conservative_backfill);
  c.schedulers.add("fair-share", "Per-user fair share of GPUs by Slurm-style decayed usage.", make_fair_share);
  c.schedulers.add("acme", "Acme's policy: GPU quota for pretraining; others best-effort, preemptible; eval lowest.",
                   make_acme);
  c.schedulers.add("slurm",
                   "Slurm as on Seren: CPU and GPU partitions, pretraining quota + best-effort, multifactor "
                   "priority, EASY backfill.",
                   make_slurm);

  c.placements.add("pack", "Fullest node that fits (best fit); multi-node jobs land on whole idle nodes.", make_pack);
  c.placements.add("spread", "Emptiest node that fits (worst fit); spreads load across nodes.", make_spread);
  c.placements.add("first-fit", "Lowest-numbered nodes that fit, whatever their load.", make_first_fit);
  c.placements.add("topology", "Keeps a multi-node job under one leaf switch (cluster.nodes_per_switch) when it can.",
                   make_topology);

  c.evaluations.add("coupled",
                    "OpenCompass SizePartitioner tasks as trials; each loads the model remotely and computes metrics "
                    "on its GPU.",
                    make_coupled);
  c.evaluations.add(
      "decoupled", "Acme's trial coordinator: staged model, CPU metrics, prior-based elastic trials (each switchable).",
      make_decoupled);
  c.outcomes.add("trace", "Each job ends in its recorded state after its recorded runtime (the default).",
                 make_trace_outcomes);
  c.outcomes.add("all-complete", "What-if: nothing fails, nobody cancels; every job completes its recorded runtime.",
                 make_all_complete);
  c.outcomes.add("trace-reasons",
                 "As recorded (the workload is the trace's); each FAILED GPU job gets a Table 3 reason, by size, "
                 "runtime and type, so Table 3's shares come out.",
                 make_trace_reasons);
  c.outcomes.add("taxonomy",
                 "What-if: job failures drawn from Table 3's causes (script/framework near the start, "
                 "infrastructure mid-run by node-hours); changes who fails.",
                 make_taxonomy);

  c.failures.add("none", "Nodes never fail (the default).", make_no_failures);
  c.failures.add("node-mtbf",
                 "Independent node (or GPU) failures, exponential or Weibull, with repair times; "
                 "kills the jobs on the node.",
                 make_node_mtbf);
  c.failures.add("replay", "Node failures and repairs from a CSV incident log (time_s,node,event,reason).",
                 make_replay_failures);

  c.recoveries.add("none", "No checkpoints; a node failure ends the jobs on it (NODE_FAIL) (the default).",
                   make_no_recovery);
  c.recoveries.add("manual",
                   "Pretraining jobs checkpoint (mode: sync or async); a person restarts them from the last "
                   "checkpoint, slower at night.",
                   make_manual_recovery);
  c.recoveries.add("auto",
                   "Acme's FT system (with mode: async): diagnosis + two-round NCCL test, automatic restart; "
                   "a share still needs a person.",
                   make_auto_recovery);
  return c;
}

}  // namespace acmesim
