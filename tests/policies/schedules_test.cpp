// Hand-computed schedules, one or more per scheduler. Times in seconds; one 8-GPU node unless
// said otherwise. Each comment derives the expected starts.
#include <catch2/catch.hpp>

#include "policies/catalog.hpp"
#include "sim/run/simulation.hpp"
#include "tests/support.hpp"

using namespace acmesim;
using namespace acmesim::testing;

namespace {
const ClusterSpec kOneNode{1, 8, 0, 0, 0};
}

TEST_CASE("sjf starts the shortest queued job first once the node frees") {
  // a runs 0-100; at 100 the queue holds b (50 s), c (30 s), d (10 s): d 100-110, c 110-140, b 140-190.
  const auto jobs = make_jobs({{0, 8, 100}, {10, 8, 50}, {20, 8, 30}, {30, 8, 10}});
  const RunResult r = run_policies(kOneNode, jobs, "sjf", "pack");
  CHECK(start_seconds(r) == std::vector<std::int64_t>{0, 140, 110, 100});
}

TEST_CASE("srtf preempts a longer job, which resumes with its restart overhead") {
  // a (100 s) runs 0-10; b (20 s) preempts it (a has 90 s left) and runs 10-30. a restarts at 30:
  // 60 s overhead then 90 s of work, due at 180. c (50 s) arrives at 40 while a is still paying
  // its overhead (due in 140 s > 50): a is preempted again with nothing gained, c runs 40-90, a
  // restarts at 90 and ends at 90 + 60 + 90 = 240.
  const auto jobs = make_jobs({{0, 8, 100}, {10, 8, 20}, {40, 8, 50}});
  const RunResult r = run_policies(kOneNode, jobs, "srtf", "pack");
  CHECK(start_seconds(r) == std::vector<std::int64_t>{0, 10, 40});
  CHECK(end_seconds(r) == std::vector<std::int64_t>{240, 30, 90});
  CHECK(r.jobs[0].preemptions == 2);
  CHECK(r.jobs[0].overhead_gpu_ms == 8 * (10'000 + 60'000));
  CHECK(r.jobs[0].lost_gpu_ms == 0);
}

TEST_CASE("qssf orders by GPUs times the duration predicted from jobs that had ended") {
  // j0 (user A, 8 GPUs, 50 s) runs 0-50 and teaches the predictor 50 s. j1 (A, 8 GPUs, 200 s)
  // runs 60-260. j2 (user B, 8 GPUs, 10 s) at 100: B has no history, type Other has 50 s:
  // service 8 x 50. j3 (A, 4 GPUs, 500 s) at 110: A's history says 50 s: service 4 x 50, first.
  // At 260 j3 starts (ends 760); j2 needs the whole node and starts at 760.
  auto jobs = make_jobs({{0, 8, 50}, {60, 8, 200}, {100, 8, 10}, {110, 4, 500}});
  jobs[2].user = UserId{1};
  const RunResult r = run_policies(kOneNode, jobs, "qssf", "pack");
  CHECK(start_seconds(r) == std::vector<std::int64_t>{0, 60, 760, 260});
}

TEST_CASE("las demotes a job past its threshold and lets a new job preempt it") {
  // Threshold 800 GPU-s = 100 s on 8 GPUs, no restart overhead. j0 (300 s) runs from 0 and drops
  // to queue 1 at 100. j1 (100 s) waits from 50 (same queue as j0 then), preempts j0 at 100 and
  // runs 100-200. j2 (10 s) at 150 is in queue 0 like j1: it waits, then goes before j0:
  // 200-210. j0 resumes at 210 with 200 s left: ends 410.
  const auto jobs = make_jobs({{0, 8, 300}, {50, 8, 100}, {150, 8, 10}});
  const RunResult r = run_yaml(kOneNode, jobs, "{name: las, thresholds_gpu_s: [800], restart_overhead_s: 0}");
  CHECK(start_seconds(r) == std::vector<std::int64_t>{0, 100, 200});
  CHECK(end_seconds(r) == std::vector<std::int64_t>{410, 200, 210});
  CHECK(r.jobs[0].preemptions == 1);
}

namespace {
// j0 4 GPUs 0-100. j1 (6 GPUs, 100 s) is blocked: shadow 100, 2 extra GPUs. j2 (8 GPUs, 50 s)
// does not fit before 200. j3 (2 GPUs, 300 s) fits now.
std::vector<JobSpec> backfill_jobs() { return make_jobs({{0, 4, 100}, {10, 6, 100}, {20, 8, 50}, {30, 2, 300}}); }
}  // namespace

TEST_CASE("easy-backfill lets a job use the head's extra GPUs even if it delays a later job") {
  // j3 uses the 2 extra GPUs at 30 (it does not delay j1). j1 100-200. j2 needs all 8: it waits
  // for j3 (estimated end 330): 330-380.
  const RunResult r = run_policies(kOneNode, backfill_jobs(), "easy-backfill", "pack");
  CHECK(start_seconds(r) == std::vector<std::int64_t>{0, 100, 330, 30});
}

TEST_CASE("easy-backfill does not start a job that would end after the shadow time") {
  // j1 (8 GPUs) blocked: shadow 100, no extra. j2 (4 GPUs, 120 s) would end at 140: waits.
  // j3 (4 GPUs, 70 s) ends at 100: backfilled at 30. j1 100-150, j2 150-270.
  const auto jobs = make_jobs({{0, 4, 100}, {10, 8, 50}, {20, 4, 120}, {30, 4, 70}});
  const RunResult r = run_policies(kOneNode, jobs, "easy-backfill", "pack");
  CHECK(start_seconds(r) == std::vector<std::int64_t>{0, 100, 150, 30});
}

TEST_CASE("conservative-backfill protects every reservation, not only the first") {
  // Plan at 30: j1 [100,200) 6 GPUs, j2 [200,250) 8 GPUs. j3 (2 GPUs, 300 s) would overlap j2's
  // reservation whenever it starts before 250: it starts at 250.
  const RunResult r = run_policies(kOneNode, backfill_jobs(), "conservative-backfill", "pack");
  CHECK(start_seconds(r) == std::vector<std::int64_t>{0, 100, 200, 250});
}

TEST_CASE("backfilling plans with the configured runtime estimate") {
  // Same jobs as above. Factor 2: the shadow is j0's estimated end, 200; j3 (70 s, estimated
  // 140) ends by estimate at 170 <= 200: backfilled at 30; j2 (estimated 240) would end at 260:
  // waits. The schedule is the exact one.
  const auto jobs = make_jobs({{0, 4, 100}, {10, 8, 50}, {20, 4, 120}, {30, 4, 70}});
  const RunResult r = run_yaml(kOneNode, jobs, "{name: easy-backfill, estimate: factor, overestimate_factor: 2}");
  CHECK(start_seconds(r) == std::vector<std::int64_t>{0, 100, 150, 30});
  // A 1000 s limit for every Other job: shadow 1000, and no job ends by estimate before it:
  // nothing is backfilled; j2 and j3 both start when j1 ends at 150.
  const RunResult limited =
      run_yaml(kOneNode, jobs, "{name: easy-backfill, estimate: type_limit, type_limits_s: {Other: 1000}}");
  CHECK(start_seconds(limited) == std::vector<std::int64_t>{0, 100, 150, 150});
}

TEST_CASE("fair-share serves the user with the least decayed usage first") {
  // User A's j0 holds the node 0-100 and is charged every 10 s. At 100 A's j1 and B's j2 wait;
  // B has used nothing: j2 100-110, then j1 110-120 (fifo would run j1 first).
  auto jobs = make_jobs({{0, 8, 100}, {5, 8, 10}, {6, 8, 10}});
  jobs[2].user = UserId{1};
  const RunResult r = run_yaml(kOneNode, jobs, "{name: fair-share, recalc_period_s: 10}");
  CHECK(start_seconds(r) == std::vector<std::int64_t>{0, 110, 100});
}

TEST_CASE("acme preempts low-priority evaluation first to give pretraining its quota") {
  // Two 8-GPU nodes, Pretrain quota 8 GPUs, no restart overhead. Eval j0 and Other j1 fill the
  // cluster at 0. Pretrain j2 at 10 is within quota: j0 (low priority) is preempted, j2 runs
  // 10-60. At 60 the SFT j3 (normal best-effort) goes before the evaluation: 60-70; j0 resumes
  // at 70 with 90 s left: ends 160.
  auto jobs = make_jobs({{0, 8, 100}, {0, 8, 100}, {10, 8, 50}, {20, 8, 10}});
  jobs[0].type = JobType::Eval;
  jobs[2].type = JobType::Pretrain;
  jobs[3].type = JobType::Sft;
  const RunResult r =
      run_yaml(ClusterSpec{2, 8, 0, 0, 0}, jobs, "{name: acme, quota_gpus: {Pretrain: 8}, restart_overhead_s: 0}");
  CHECK(start_seconds(r) == std::vector<std::int64_t>{0, 0, 10, 60});
  CHECK(end_seconds(r) == std::vector<std::int64_t>{160, 100, 60, 70});
  CHECK(r.jobs[0].preemptions == 1);
  CHECK(r.jobs[1].preemptions == 0);
}

TEST_CASE("acme without preemption makes pretraining wait for best-effort jobs, which cannot pass it here") {
  // The jobs of the preemption case above with preemption: false. Pretrain j2 at 10 is within
  // quota but both nodes are busy until 100: it is reserved at 100 with no GPUs to spare, and the
  // SFT j3 at 20 (8 GPUs) fits nowhere anyway. At 100 both nodes free up: j2 runs 100-150, j3
  // 100-110; nobody is preempted.
  auto jobs = make_jobs({{0, 8, 100}, {0, 8, 100}, {10, 8, 50}, {20, 8, 10}});
  jobs[0].type = JobType::Eval;
  jobs[2].type = JobType::Pretrain;
  jobs[3].type = JobType::Sft;
  const RunResult r =
      run_yaml(ClusterSpec{2, 8, 0, 0, 0}, jobs, "{name: acme, quota_gpus: {Pretrain: 8}, preemption: false}");
  CHECK(start_seconds(r) == std::vector<std::int64_t>{0, 0, 100, 100});
  CHECK(end_seconds(r) == std::vector<std::int64_t>{100, 100, 150, 110});
  for (const auto& j : r.jobs) CHECK(j.preemptions == 0);
}

TEST_CASE("acme backfills best-effort jobs around a blocked in-quota job but never delays its reservation") {
  // Two 8-GPU nodes, Pretrain quota 16 GPUs, no preemption. j0 (Other, 8 GPUs) runs 0-100 on
  // one node, j1 (Other, 4 GPUs) 0-200 on the other. Pretrain j2 (16 GPUs, 50 s) at 10 is in
  // quota but blocked: its reservation is at 200, when j1's end frees its 16th GPU, with none
  // to spare. The Eval j3 (4 GPUs, 50 s) at 20 ends at 70 <= 200: it starts at once on j1's
  // node (the old rule held every best-effort job back). The SFT j4 (4 GPUs, 300 s) at 30 would
  // end after 200 and needs GPUs the reservation needs: it waits, also when j0 ends at 100, and
  // starts when j2 ends at 250. j2 starts exactly at its reservation, 200.
  auto jobs = make_jobs({{0, 8, 100}, {0, 4, 200}, {10, 16, 50}, {20, 4, 50}, {30, 4, 300}});
  jobs[2].type = JobType::Pretrain;
  jobs[3].type = JobType::Eval;
  jobs[4].type = JobType::Sft;
  const RunResult r =
      run_yaml(ClusterSpec{2, 8, 0, 0, 0}, jobs, "{name: acme, quota_gpus: {Pretrain: 16}, preemption: false}");
  CHECK(start_seconds(r) == std::vector<std::int64_t>{0, 0, 200, 20, 250});
  // A best-effort job that needs only GPUs the reservation leaves spare passes it whatever its
  // length. With an 8-GPU j2 instead, the reservation is at 100 (j0's end) with 4 GPUs spare;
  // j3 still starts at 20, and j4 (300 s) takes the 4 spare GPUs as soon as j3's end at 70 frees
  // room for it; j2 starts at 100 on j0's node.
  jobs[2].demand = Demand{1, 8, 128, 0};
  const RunResult spare =
      run_yaml(ClusterSpec{2, 8, 0, 0, 0}, jobs, "{name: acme, quota_gpus: {Pretrain: 16}, preemption: false}");
  CHECK(start_seconds(spare) == std::vector<std::int64_t>{0, 0, 100, 20, 70});
}

TEST_CASE("acme makes a pretraining job beyond its quota wait for its own type") {
  // Quota 8 GPUs: j0 (Pretrain, 8) runs 0-100; j1 (Pretrain, 8) at 10 would exceed the quota, so
  // it waits for j0 although the second node is idle; the Other job j2 at 20 starts at once.
  auto jobs = make_jobs({{0, 8, 100}, {10, 8, 10}, {20, 8, 10}});
  jobs[0].type = JobType::Pretrain;
  jobs[1].type = JobType::Pretrain;
  const RunResult r = run_yaml(ClusterSpec{2, 8, 0, 0, 0}, jobs, "{name: acme, quota_gpus: {Pretrain: 8}}");
  CHECK(start_seconds(r) == std::vector<std::int64_t>{0, 100, 20});
}

TEST_CASE("slurm orders its queue by QOS, then age and job size as weighted") {
  // One 8-GPU node, Pretrain quota 8 GPUs, no preemption. j0 (Other) holds the node 0-100. By
  // 100 the queue holds the Eval j1 (at 10, low-priority QOS), the Other j2 (at 20, best-effort
  // QOS) and the in-quota Pretrain j3 (at 30, quota QOS), 10 s each: j3 100-110, j2 110-120,
  // j1 120-130, whatever their age.
  auto jobs = make_jobs({{0, 8, 100}, {10, 8, 10}, {20, 8, 10}, {30, 8, 10}});
  jobs[1].type = JobType::Eval;
  jobs[3].type = JobType::Pretrain;
  const ClusterSpec one{1, 8, 0, 0, 0};
  const RunResult qos = run_yaml(one, jobs, "{name: slurm, quota_gpus: {Pretrain: 8}, preemption: false}");
  CHECK(start_seconds(qos) == std::vector<std::int64_t>{0, 120, 110, 100});
  // Age alone (no QOS, no size weight): oldest first, j1 j2 j3.
  const RunResult age = run_yaml(one, jobs,
                                 "{name: slurm, quota_gpus: {Pretrain: 8}, preemption: false, weight_qos: 0, "
                                 "weight_job_size: 0, weight_age: 1000}");
  CHECK(start_seconds(age) == std::vector<std::int64_t>{0, 100, 110, 120});
  // Size outweighs age here: the 8-GPU j2 goes before the older 4-GPU j1 (Slurm favours large
  // jobs by default); at 100 j2 takes the node, at 110 j1 and j3 (4 GPUs each) share it.
  jobs[1].demand = Demand{1, 4, 64, 0};
  jobs[3].demand = Demand{1, 4, 64, 0};
  const RunResult size = run_yaml(one, jobs,
                                  "{name: slurm, quota_gpus: {Pretrain: 8}, preemption: false, weight_qos: 0, "
                                  "weight_job_size: 1000, weight_age: 1}");
  CHECK(start_seconds(size) == std::vector<std::int64_t>{0, 110, 100, 110});
}

TEST_CASE("slurm never makes a CPU job wait behind GPU jobs") {
  // One 8-GPU node and one CPU-only node, 128 CPUs each. j0 (8 GPUs) holds the GPU node 0-100
  // and j1 (8 GPUs) at 10 waits for it. The CPU job j2 (8 CPUs, 10 s) at 20 runs at once on the
  // CPU node under slurm; under fifo it waits behind j1 until 100.
  auto jobs = make_jobs({{0, 8, 100}, {10, 8, 50}, {20, 8, 10}});
  jobs[2].demand = Demand{1, 0, 8, 0};
  const ClusterSpec cluster{1, 8, 128, 0, 1};
  const RunResult slurm = run_yaml(cluster, jobs, "slurm");
  CHECK(start_seconds(slurm) == std::vector<std::int64_t>{0, 100, 20});
  CHECK(start_seconds(run_yaml(cluster, jobs, "fifo")) == std::vector<std::int64_t>{0, 100, 100});
}
