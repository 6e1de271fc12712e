#include "io/failures_csv.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "sim/core/error.hpp"
#include "tests/support.hpp"

using namespace acmesim;

namespace {

std::string write_file(const std::string& name, const std::string& text, bool gzip = false) {
  const std::string path = (acmesim::testing::scratch_dir() / name).string();
  std::ofstream(path, std::ios::binary) << (gzip ? acmesim::testing::gzip(text) : text);
  return path;
}

}  // namespace

TEST_CASE("failures are read from a jobs.csv failure_log, plain or gzip, skipping blank lines") {
  const std::string text =
      "job_id,state,gpu_time,failure_log\n"
      "1,COMPLETED,10,NodeFailure:4;NodeFailure:2.5\n"
      "\n"
      "2,FAILED,8,\"Unknown:8\"\r\n"
      "3,COMPLETED,1,\n";
  for (const bool gzip : {false, true}) {
    INFO(gzip);
    const std::string path = write_file(gzip ? "acmesim_failures.csv.gz" : "acmesim_failures.csv", text, gzip);
    FailureBreakdown b;
    add_failures_from_csv(path, b);
    CHECK(b.jobs_read == 3);
    CHECK(b.total_count() == 3);
    CHECK(b.total_gpu_ms() == 14'500);
    CHECK(b.count[static_cast<std::size_t>(FailureReason::Unknown)] == 1);
    std::filesystem::remove(path);
  }
}

TEST_CASE("an AcmeTrace file gives one Unknown failure per failed job, with its gpu_time") {
  const std::string path =
      write_file("acmesim_failures_trace.csv", "job_id,state,gpu_time\n1,FAILED,3.5\n2,TIMEOUT,1\n3,CANCELLED,9\n");
  FailureBreakdown b;
  add_failures_from_csv(path, b);
  CHECK(b.jobs_read == 3);
  CHECK(b.count[static_cast<std::size_t>(FailureReason::Unknown)] == 2);
  CHECK(b.total_gpu_ms() == 4'500);
  std::filesystem::remove(path);
}

TEST_CASE("a malformed failures file names file, line, column, expected and found") {
  FailureBreakdown b;
  const std::string bad_log = write_file("acmesim_failures_bad.csv", "job_id,failure_log\n1,Unknown:1\n2,Nope:3\n");
  CHECK_THROWS_MATCHES(add_failures_from_csv(bad_log, b), InputError,
                       Catch::Message(bad_log + ":3: column 'failure_log': expected Reason:gpu_seconds items joined "
                                                "by ';' (GPU-seconds in [0, 1e13]), found 'Nope:3'"));
  const std::string bad_gpu = write_file("acmesim_failures_bad_gpu.csv", "state,gpu_time\nFAILED,-1\n");
  CHECK_THROWS_MATCHES(
      add_failures_from_csv(bad_gpu, b), InputError,
      Catch::Message(bad_gpu + ":2: column 'gpu_time': expected GPU-seconds in [0, 1e13], found '-1'"));
  const std::string no_columns = write_file("acmesim_failures_header.csv", "job_id,state\n1,FAILED\n");
  CHECK_THROWS_WITH(add_failures_from_csv(no_columns, b),
                    Catch::StartsWith(no_columns + ":1: header: expected") && Catch::EndsWith("found 'only state'"));
  const std::string short_row = write_file("acmesim_failures_short.csv", "state,gpu_time\nFAILED\n");
  CHECK_THROWS_WITH(add_failures_from_csv(short_row, b), Catch::StartsWith(short_row + ":2: row: expected"));
  for (const auto& p : {bad_log, bad_gpu, no_columns, short_row}) std::filesystem::remove(p);
}

TEST_CASE("a gpu_num column gives each failure its GPU demand and time to failure; a bad cell names its place") {
  const std::string path =
      write_file("acmesim_failures_gpus.csv",
                 "job_id,gpu_num,failure_log\n1,8,NVLinkError:4800\n2,2,ECCError:200;NVLinkError:600\n"
                 "3,0,Unknown:0\n");
  FailureBreakdown b;
  add_failures_from_csv(path, b);
  const auto at = [](FailureReason r) { return static_cast<std::size_t>(r); };
  CHECK(b.with_demand[at(FailureReason::NVLinkError)] == 2);
  CHECK(b.gpus[at(FailureReason::NVLinkError)] == 10);
  CHECK(b.attempt_ms[at(FailureReason::NVLinkError)] == 900'000);  // 600 s and 300 s
  CHECK(b.attempt_ms[at(FailureReason::ECCError)] == 100'000);
  CHECK(b.with_demand[at(FailureReason::Unknown)] == 0);  // CPU-only
  const std::string trace = write_file("acmesim_failures_trace_gpus.csv", "state,gpu_time,gpu_num\nFAILED,120,4\n");
  FailureBreakdown t;
  add_failures_from_csv(trace, t);
  CHECK(t.attempt_ms[at(FailureReason::Unknown)] == 30'000);
  const std::string bad = write_file("acmesim_failures_bad_gpus.csv", "gpu_num,failure_log\n8,NVLinkError:1\nx,\n");
  CHECK_THROWS_MATCHES(add_failures_from_csv(bad, b), InputError,
                       Catch::Message(bad + ":3: column 'gpu_num': expected a whole number of GPUs, found 'x'"));
  for (const auto& p : {path, trace, bad}) std::filesystem::remove(p);
}
