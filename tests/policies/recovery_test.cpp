// The checkpoint cost model and the interruption model of the recovery and failure policies,
// against hand-computed figures (docs/failures.md "Checkpoint stalls", "node-mtbf").
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <cmath>

#include "io/policy_yaml.hpp"
#include "policies/catalog.hpp"
#include "policies/recovery/common.hpp"
#include "sim/core/error.hpp"

using namespace acmesim;
using acmesim::policies::CheckpointModel;

namespace {

PolicyArgs recovery_args(const std::string& yaml) {
  YAML::Node block = YAML::Load(yaml);
  block["name"] = "auto";
  return policy_args_from_yaml(block, "recovery", "auto", YamlOrigin{"<test>", {}}, 1);
}

JobSpec pretrain_job(int gpus) {
  JobSpec job;
  job.type = JobType::Pretrain;
  job.demand = Demand{std::max(1, gpus / 8), gpus, gpus * 16, 0};
  return job;
}

double stall_of(const CheckpointModel& model, const JobSpec& job) { return to_seconds(model.plan(job).stall); }

}  // namespace

TEST_CASE("a sync checkpoint of the 123B model stalls 43 % of a 30-minute interval, an async one about 12 s") {
  // 123B x 14 B = 1,722 GB; 128 nodes reach storage at 400 GB/s, the back end gives 2.2 GB/s.
  const JobSpec job = pretrain_job(1024);
  const CheckpointModel sync{recovery_args("{model_b: 123}")};
  CHECK(sync.size_gb(job) == Approx(1722.0));
  CHECK(sync.storage_gbps(job) == Approx(2.2));
  CHECK(stall_of(sync, job) == Approx(1722.0 / 2.2).margin(1e-3));
  CHECK(stall_of(sync, job) / 1800.0 == Approx(0.435).margin(1e-3));
  // Async: 12 s of snapshot plus 1,722 GB / 1,024 GPUs over PCIe at 25 GB/s; persisted behind.
  const CheckpointModel async{recovery_args("{model_b: 123, mode: async}")};
  CHECK(stall_of(async, job) == Approx(12.0 + 1722.0 / 1024.0 / 25.0).margin(1e-3));
  CHECK(to_seconds(async.plan(job).persist) == Approx(1722.0 / 2.2).margin(1e-3));
  // The two ratios of the paper's 3.6-58.7x: 7B (on 64 GPUs) and 123B, from the same parameters.
  const JobSpec small = pretrain_job(64);
  const CheckpointModel sync7{recovery_args("{model_b: 7}")};
  const CheckpointModel async7{recovery_args("{model_b: 7, mode: async}")};
  CHECK(stall_of(sync7, small) / stall_of(async7, small) == Approx(3.69).margin(0.01));
  CHECK(stall_of(sync, job) / stall_of(async, job) == Approx(64.9).margin(0.1));
}

TEST_CASE("a checkpoint is written through the job's storage NICs when the back end is faster") {
  // Two nodes at 3.125 GB/s each: 62.5 GB in 10 s; the restart loads it back as fast.
  const JobSpec job = pretrain_job(16);
  const CheckpointModel model{recovery_args("{checkpoint_gb: 62.5, storage_gbps: 100, init_s: 120}")};
  CHECK(model.storage_gbps(job) == Approx(6.25));
  CHECK(stall_of(model, job) == Approx(10.0));
  CHECK(to_seconds(model.restart_overhead(job)) == Approx(130.0));
}

TEST_CASE("a restore from host memory costs a node's shard over the peer link, whatever the job's size") {
  // 100 GB over 4 nodes at 25 GB/s per node: 1 s to persist to a peer, 1 s to load back.
  const CheckpointModel model{recovery_args("{checkpoint_gb: 100, mode: async, restore: memory, init_s: 30}")};
  const JobSpec job = pretrain_job(32);
  CHECK(to_seconds(model.plan(job).persist) == Approx(1.0));
  CHECK(to_seconds(model.restart_overhead(job)) == Approx(31.0));
  // Per-node cost: a job twice the size with a checkpoint twice the size restores as fast.
  const CheckpointModel twice{recovery_args("{checkpoint_gb: 200, mode: async, restore: memory, init_s: 30}")};
  CHECK(to_seconds(twice.restart_overhead(pretrain_job(64))) == Approx(31.0));
  CHECK_THROWS_WITH(CheckpointModel{recovery_args("{restore: memory}")},
                    Catch::Contains("restore") && Catch::Contains("async"));
}

TEST_CASE("young and daly intervals match the textbook values for a 5-minute stall and a 24-hour MTBI") {
  // A 300 s sync stall (660 GB at 2.2 GB/s) on one node interrupted once a day:
  // Young sqrt(2 x 300 x 86,400) = 7,200 s; Daly's higher-order form 116.7 min.
  const JobSpec job = pretrain_job(8);
  const std::string base = "{checkpoint_gb: 660, interruptions_per_node_day: 1.0, interval: ";
  const CheckpointModel young{recovery_args(base + "young}")};
  const CheckpointModel daly{recovery_args(base + "daly}")};
  CHECK(to_seconds(young.plan(job).interval) == Approx(7200.0).margin(1e-3));
  CHECK(to_seconds(daly.plan(job).interval) / 60.0 == Approx(116.7).margin(0.05));
  // A bigger job is interrupted more often, so it checkpoints more often: 8 nodes, sqrt(8) times.
  CHECK(to_seconds(young.plan(pretrain_job(64)).interval) == Approx(7200.0 / std::sqrt(8.0)).margin(1e-3));
  const CheckpointModel fixed{recovery_args("{interval_min: 45}")};
  CHECK(fixed.plan(job).interval == seconds(2700));
}

TEST_CASE("manual and auto recovery checkpoint the same way unless the checkpoint mode is set") {
  const Catalog catalog = builtin_catalog();
  const JobSpec job = pretrain_job(1024);
  const auto plan_of = [&](const std::string& name) {
    YAML::Node block = YAML::Load("{model_b: 123}");
    block["name"] = name;
    return catalog.recoveries.make(policy_args_from_yaml(block, "recovery", name, YamlOrigin{"<test>", {}}, 1))
        ->checkpointing(job);
  };
  const CheckpointPlan manual = plan_of("manual");
  const CheckpointPlan automatic = plan_of("auto");
  CHECK(manual.stall == automatic.stall);
  CHECK(manual.persist == automatic.persist);
  CHECK(manual.interval == automatic.interval);
}
