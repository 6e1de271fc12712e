// Outputs never lie: a write error is an InputError naming the file, nothing incomplete is left
// behind, and a compressed output on a full device stops instead of retrying forever.
#include "io/output_file.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "io/trace_writer.hpp"
#include "sim/core/error.hpp"
#include "tests/support.hpp"

using namespace acmesim;

TEST_CASE("a file written and closed holds exactly what was written") {
  const auto path = (testing::scratch_dir() / "acmesim_output_file.txt").string();
  OutputFile out{path};
  out.write("hello, ");
  out.write("world\n");
  out.close();
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  CHECK(line == "hello, world");
}

TEST_CASE("a write to a full device is an error naming the file, and the device is left alone") {
  if (!std::filesystem::exists("/dev/full")) return;  // Linux only
  OutputFile out{"/dev/full"};
  const std::string block(1 << 16, 'x');
  for (int i = 0; i < 64; ++i) out.write(block);
  CHECK_THROWS_WITH(out.close(), Catch::StartsWith("/dev/full: cannot write (") && Catch::Contains("No space"));
  CHECK(std::filesystem::exists("/dev/full"));
}

TEST_CASE("a gzip trace written to a full device fails at once instead of retrying forever") {
  if (!std::filesystem::exists("/dev/full")) return;
  Trace trace;
  for (std::uint32_t i = 0; i < 20000; ++i) {
    JobSpec j;
    j.id = JobId{i};
    fmt::format_to(std::back_inserter(j.trace_id), "{}", i);
    j.demand = Demand{1, 1, 16, 0};
    j.runtime = seconds(60);
    j.submitted = SimTime{seconds(i)};
    j.recorded_start = j.submitted;
    trace.jobs.push_back(j);
  }
  trace.users.push_back("u1");
  // /dev/full has no .gz suffix: write the compressed form through a symlink that has one.
  const auto link = testing::scratch_dir() / "acmesim_full.csv.gz";
  std::filesystem::remove(link);
  std::filesystem::create_symlink("/dev/full", link);
  CHECK_THROWS_AS(write_acme_trace(link.string(), trace, TraceSchema::Seren, 0), InputError);
  CHECK_THROWS_AS(write_acme_trace("/dev/full", trace, TraceSchema::Seren, 0), InputError);
  std::filesystem::remove(link);
}

TEST_CASE("an output abandoned by an exception is removed, not left looking complete") {
  const auto path = (testing::scratch_dir() / "acmesim_abandoned.csv").string();
  {
    OutputFile out{path};
    out.write("partial\n");
  }  // never closed
  CHECK_FALSE(std::filesystem::exists(path));
  CHECK_THROWS_WITH(OutputFile{"/nonexistent-dir/x.csv"}, Catch::StartsWith("/nonexistent-dir/x.csv: cannot open"));
}
