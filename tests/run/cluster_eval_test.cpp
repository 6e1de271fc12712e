// Checkpoint evaluation inside the cluster simulation: hand-computed latencies, queueing behind
// the scheduler, agreement with the evaluation model on an empty cluster.
#include "sim/run/cluster_eval.hpp"

#include <catch2/catch.hpp>

#include "io/eval_suite.hpp"
#include "io/policy_yaml.hpp"
#include "policies/catalog.hpp"
#include "sim/run/simulation.hpp"

using namespace acmesim;

namespace {

EvalSuite two_datasets() {
  EvalSuite s;
  s.name = "two";
  s.reference_checkpoint_bytes = 3'125'000'000;  // 1 s through an unshared 25 Gb/s NIC
  s.model_init = seconds(10);
  s.datasets.push_back(EvalDataset{"d0", 1000, seconds(100), seconds(5), seconds(20)});
  s.datasets.push_back(EvalDataset{"d1", 1000, seconds(50), seconds(5), seconds(10)});
  return s;
}

const std::string kPerDataset = "{name: coupled, max_task_size: 0}";

struct Outcome {
  std::vector<CheckpointRecord> checkpoints;
  std::int64_t eval_gpu_ms;
  RunResult run;
};

/// One pretraining job of `gpus` GPUs for `hours` at t=0 on `nodes` x 8 GPUs, checkpoints every 4 h.
/// `policy` is an evaluation policy block: "coupled" or "{name: coupled, max_task_size: 0}".
Outcome run_week(int nodes, int gpus, std::int64_t hours, const std::string& policy, const EvalSuite& suite) {
  JobSpec pretrain;
  pretrain.trace_id = "pretrain";
  pretrain.type = JobType::Pretrain;
  pretrain.demand = Demand{1, gpus, 0, 0};
  pretrain.runtime = seconds(hours * 3600);
  const std::vector<JobSpec> jobs{pretrain};
  const Catalog catalog = builtin_catalog();
  const auto eval_policy = catalog.evaluations.make(policy_from_text("evaluation", policy, "<test>", 1));
  ClusterEvalConfig config;
  config.checkpoint_interval = seconds(4 * 3600);
  config.min_pretrain_gpus = 8;
  config.checkpoint_bytes = suite.reference_checkpoint_bytes;
  config.suite = &suite;
  config.policy = eval_policy.get();
  config.plan_resources = EvalResources{1, 8};
  config.noise_sigma = 0;
  config.cpus_per_gpu = 0;
  ClusterEvaluation hook{config};
  SimulationOptions options;
  options.hook = &hook;
  Simulation sim{ClusterSpec{nodes, 8, 0, 0, 0}, jobs,
                 core_policies(catalog, catalog.schedulers.make(PolicyArgs::named("scheduler", "fifo")),
                               catalog.placements.make(PolicyArgs::named("placement", "pack"))),
                 options};
  RunResult run = sim.run();
  return Outcome{hook.checkpoints(), hook.eval_gpu_ms(), std::move(run)};
}

}  // namespace

TEST_CASE("a pretraining job checkpoints every interval while it runs and each checkpoint is evaluated") {
  const EvalSuite suite = two_datasets();
  // 10 h job, interval 4 h: checkpoints at 4 h and 8 h (12 h is after its end).
  // coupled with one trial per dataset, idle second node: both trials load together (2 s each at
  // half the NIC), then d0: 2 + 10 + 5 + 100 + 20 = 137 s, d1: 2 + 10 + 5 + 50 + 10 = 77 s.
  const Outcome o = run_week(2, 8, 10, kPerDataset, suite);
  REQUIRE(o.checkpoints.size() == 2);
  CHECK(o.checkpoints[0].written == at_ms(4 * 3600 * 1000));
  CHECK(o.checkpoints[1].written == at_ms(8 * 3600 * 1000));
  for (const CheckpointRecord& c : o.checkpoints) {
    CHECK(c.trials == 2);
    CHECK(c.latency() == seconds(137));
    CHECK(c.gpu_ms == (137 + 77) * 1000);
  }
  CHECK(o.eval_gpu_ms == 2 * (137 + 77) * 1000);
  // The trials are ordinary Eval jobs with ids after the trace's.
  REQUIRE(o.run.spawned.size() == 4);
  CHECK(o.run.spawned[0].id.value() == 1);
  CHECK(o.run.spawned[0].type == JobType::Eval);
  CHECK(o.run.jobs.size() == 5);
}

TEST_CASE("evaluation trials wait in the cluster queue while the pretraining job holds every GPU") {
  const EvalSuite suite = two_datasets();
  // One 8-GPU node held by the 10 h pretraining job: the 4 h checkpoint's trials start at 10 h
  // (latency 6 h + 137 s); the 8 h checkpoint's too, queued behind them (2 h + 137 s).
  const Outcome o = run_week(1, 8, 10, kPerDataset, suite);
  REQUIRE(o.checkpoints.size() == 2);
  CHECK(o.checkpoints[0].first_start == at_ms(10 * 3600 * 1000));
  CHECK(o.checkpoints[0].latency() == seconds(6 * 3600 + 137));
  CHECK(o.checkpoints[1].latency() == seconds(2 * 3600 + 137));
}

TEST_CASE("on an empty cluster a checkpoint's feedback latency equals the evaluation model's makespan") {
  const EvalSuite suite = load_eval_suite(std::string(ACMESIM_SOURCE_DIR) + "/configs/eval/opencompass63.yaml");
  const Catalog catalog = builtin_catalog();
  for (const char* policy : {"coupled", "{name: coupled, max_task_size: 0}", "decoupled"}) {
    // One checkpoint at 4 h; the second node's 8 GPUs are free, as many as the plan is made for.
    // The job runs to 7 h, past every policy's makespan (coupled: ~2.2 h), so no GPU frees up
    // meanwhile (the 186 trials of coupled's default plan start over more than an hour).
    const Outcome o = run_week(2, 8, 7, policy, suite);
    REQUIRE(o.checkpoints.size() == 1);
    const auto eval_policy = catalog.evaluations.make(policy_from_text("evaluation", policy, "<test>", 1));
    const EvalRequest request{suite.reference_checkpoint_bytes, &suite};
    const EvalPlan plan = eval_policy->plan(request, EvalResources{1, 8});
    const EvalResult idle = simulate_evaluation(request, EvalResources{1, 8}, plan, EvalHardware{}, EvalOptions{0, 1});
    // FIFO on 8 free GPUs serves the trials in plan order as the model's shared queue does.
    CHECK(o.checkpoints[0].latency() == idle.makespan);
    CHECK(o.checkpoints[0].gpu_ms == idle.gpu_held_ms);
  }
}
