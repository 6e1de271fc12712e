#include <catch2/catch.hpp>

#include "policies/catalog.hpp"
#include "sim/run/simulation.hpp"
#include "tests/support.hpp"

using namespace acmesim;
using namespace acmesim::testing;

TEST_CASE("fifo follows a hand-computed schedule on one 8-GPU node") {
  // submit(s) gpus runtime(s): the head blocks, so job c waits for a although d would fit.
  const std::vector<JobSpec> jobs = make_jobs({
      {0, 4, 100},  // a: starts 0, ends 100
      {10, 4, 50},  // b: starts 10, ends 60
      {20, 8, 30},  // c: needs the whole node: starts 100, ends 130
      {30, 1, 10},  // d: behind c: starts 130, ends 140
      {200, 2, 5},  // e: idle cluster: starts 200
  });
  const RunResult r = run_policies(ClusterSpec{1, 8, 0, 0, 0}, jobs, "fifo", "pack");
  CHECK(start_seconds(r) == std::vector<std::int64_t>{0, 10, 100, 130, 200});
  CHECK(end_seconds(r) == std::vector<std::int64_t>{100, 60, 130, 140, 205});
}

TEST_CASE("a job ending at the instant another is submitted frees its GPUs first") {
  const std::vector<JobSpec> jobs = make_jobs({{0, 8, 100}, {100, 8, 10}});
  const RunResult r = run_policies(ClusterSpec{1, 8, 0, 0, 0}, jobs, "fifo", "pack");
  CHECK(start_seconds(r) == std::vector<std::int64_t>{0, 100});
}

TEST_CASE("replay starts every job at its recorded start time when the schedule fits") {
  std::vector<JobSpec> jobs = make_jobs({{0, 8, 100}, {10, 8, 50}, {20, 4, 10}, {20, 4, 10}});
  const std::vector<std::int64_t> recorded{5, 105, 155, 160};
  for (std::size_t i = 0; i < jobs.size(); ++i) jobs[i].recorded_start = SimTime{seconds(recorded[i])};
  const RunResult r = run_policies(ClusterSpec{1, 8, 0, 0, 0}, jobs, "replay", "pack");
  CHECK(start_seconds(r) == recorded);
  CHECK(r.conflicts == 0);
}

TEST_CASE("replay reports a recorded start that does not fit the modelled cluster and starts the job late") {
  std::vector<JobSpec> jobs = make_jobs({{0, 8, 100}, {0, 8, 100}});
  jobs[0].recorded_start = SimTime{seconds(0)};
  jobs[1].recorded_start = SimTime{seconds(50)};  // overlaps job 0 on a one-node cluster
  const RunResult r = run_policies(ClusterSpec{1, 8, 0, 0, 0}, jobs, "replay", "pack");
  CHECK(r.conflicts == 1);
  REQUIRE(r.first_conflicts.size() == 1);
  CHECK(r.first_conflicts[0].job == JobId{1});
  CHECK(r.first_conflicts[0].wanted == SimTime{seconds(50)});
  CHECK(start_seconds(r) == std::vector<std::int64_t>{0, 100});
}
