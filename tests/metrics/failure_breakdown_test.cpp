// The Table-3-style breakdown (sim/metrics/failure_breakdown.hpp): counts and GPU time per reason,
// and, for failures of jobs whose GPU demand is known, the mean demand and time to failure.
#include "sim/metrics/failure_breakdown.hpp"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using namespace acmesim;

namespace {

JobSpec spec(int gpus) {
  JobSpec j;
  j.demand = Demand{1, gpus, 16, 0};
  return j;
}

JobStatus failed(std::vector<FailureRecord> log) {
  JobStatus s;
  for (const FailureRecord& f : log) s.failure_log.push_back(f);
  return s;
}

std::size_t at(FailureReason r) { return static_cast<std::size_t>(r); }

}  // namespace

TEST_CASE("The breakdown sums each failure's GPU demand and attempt length when the job's demand is known") {
  using R = FailureReason;
  // An 8-GPU job failed once after 600 s; a 2-GPU job recovered from an ECC error after 100 s and
  // failed of NVLink 300 s into its next attempt; a CPU-only job failed (reason unknown); a
  // spawned 4-GPU job failed after 30 s; one job has no spec.
  const std::vector<JobStatus> jobs{
      failed({{R::NVLinkError, 8 * 600'000}}), failed({{R::ECCError, 2 * 100'000}, {R::NVLinkError, 2 * 300'000}}),
      failed({{R::Unknown, 0}}), failed({{R::CUDAError, 4 * 30'000}}), failed({{R::CUDAError, 7'000}})};
  const FailureBreakdown b = failure_breakdown(jobs, {spec(8), spec(2), spec(0)}, {spec(4)});
  CHECK(b.jobs_read == 5);
  CHECK(b.total_count() == 6);
  CHECK(b.count[at(R::NVLinkError)] == 2);
  CHECK(b.with_demand[at(R::NVLinkError)] == 2);
  CHECK(b.gpus[at(R::NVLinkError)] == 10);
  CHECK(b.attempt_ms[at(R::NVLinkError)] == 900'000);
  CHECK(b.attempt_ms[at(R::ECCError)] == 100'000);
  CHECK(b.with_demand[at(R::Unknown)] == 0);    // a CPU-only job: no demand, no time to failure
  CHECK(b.count[at(R::CUDAError)] == 2);        // the spawned job and the one without a spec
  CHECK(b.with_demand[at(R::CUDAError)] == 1);  // only the spawned job's demand is known
  CHECK(b.attempt_ms[at(R::CUDAError)] == 30'000);

  const std::string table = format_failure_breakdown(b);
  INFO(table);
  CHECK(table.find("mean GPUs  TTF (min)") != std::string::npos);
  // NVLink: (8 + 2) / 2 GPUs, (600 + 300) / 2 s = 7.5 min; ECC: 2 GPUs, 100 s.
  CHECK(table.find("NVLinkError                 2   33.33%           1.5     94.29%       5.0        7.5") !=
        std::string::npos);
  CHECK(table.find("ECCError                    1   16.67%           0.1      3.49%       2.0        1.7") !=
        std::string::npos);
  CHECK(table.find("Unknown                     1   16.67%           0.0      0.00%         -          -") !=
        std::string::npos);
  // Table 3 leaves failures of unknown reason out: 5 failures, all infrastructure.
  CHECK(table.find("without Unknown (Table 3's scope): 5 failures; Infrastructure 100.00% of them, 100.00% of their "
                   "GPU time; Framework 0.00% of them") != std::string::npos);
}

TEST_CASE(
    "Without the jobs' specs the breakdown counts failures but gives no means, and no scope line without Unknown") {
  const std::vector<JobStatus> jobs{failed({{FailureReason::NVLinkError, 8 * 600'000}})};
  const FailureBreakdown b = failure_breakdown(jobs);
  CHECK(b.count[at(FailureReason::NVLinkError)] == 1);
  CHECK(b.with_demand[at(FailureReason::NVLinkError)] == 0);
  const std::string table = format_failure_breakdown(b);
  CHECK(table.find("NVLinkError                 1  100.00%           1.3    100.00%         -          -") !=
        std::string::npos);
  CHECK(table.find("without Unknown") == std::string::npos);
}
