#include "io/acme_trace.hpp"

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "io/timestamp.hpp"
#include "sim/core/error.hpp"
#include "tests/support.hpp"

using namespace acmesim;

namespace {

const std::string kSerenHeader =
    "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time\n";
// The two example rows of the AcmeTrace README [AcmeTrace README].
const std::string kSeren = kSerenHeader +
                           "5778432,u5907,1,8,128,Other,FAILED,2023-03-01 00:18:22+08:00,2023-03-01 "
                           "00:18:54+08:00,2023-03-01 00:20:51+08:00,117,32,936.0\n"
                           "5778469,u5907,1,8,128,Other,COMPLETED,2023-03-01 00:23:58+08:00,2023-03-01 "
                           "00:24:11+08:00,2023-03-01 01:09:04+08:00,2693,13,21544.0\n";
const std::string kKalos =
    "job_id,user,node_num,gpu_num,cpu_num,mem_per_pod_GB,shared_mem_per_pod,type,state,submit_time,start_time,"
    "end_time,fail_time,stop_time,duration,queue,gpu_time\n"
    "dlctk696s0jbvitv,uf794,8,64,960,1000,100.0,Other,FAILED,2023-05-17 11:00:58+00:00,2023-05-17 "
    "11:01:08+00:00,2023-05-17 11:01:16+00:00,2023-05-17 11:01:16+00:00,,18,10.0,1152.0\n"
    "dlc1t2ypl09b8qtp,uf794,8,64,960,1000,100.0,Evaluation,CANCELLED,2023-05-17 11:28:42+00:00,2023-05-17 "
    "11:28:54+00:00,2023-05-17 11:30:04+00:00,,2023-05-17 11:30:04+00:00,82,12.0,5248.0\n";

/// A valid Seren row with cell `column` replaced by `value`.
std::string seren_row(int column, const std::string& value) {
  std::vector<std::string> cells{"1",
                                 "u1",
                                 "1",
                                 "8",
                                 "128",
                                 "SFT",
                                 "COMPLETED",
                                 "2023-03-01 00:00:00+08:00",
                                 "2023-03-01 00:00:10+08:00",
                                 "2023-03-01 00:01:10+08:00",
                                 "60",
                                 "10",
                                 "480"};
  cells[static_cast<std::size_t>(column)] = value;
  std::string row;
  for (std::size_t i = 0; i < cells.size(); ++i) row += (i ? "," : "") + cells[i];
  return row + "\n";
}

std::string error_of(const std::string& text) {
  try {
    parse_acme_trace("t.csv", text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("timestamps with either time-zone offset become the same UTC instant") {
  const auto seren = parse_timestamp("2023-03-01 08:00:00+08:00");
  const auto kalos = parse_timestamp("2023-03-01 00:00:00+00:00");
  REQUIRE(seren);
  REQUIRE(kalos);
  CHECK(seren->unix_seconds == kalos->unix_seconds);
  CHECK(seren->unix_seconds == 1677628800);
  CHECK(seren->utc_offset_minutes == 480);
  CHECK(format_timestamp(seren->unix_seconds, 480) == "2023-03-01 08:00:00+08:00");
  CHECK(format_timestamp(seren->unix_seconds, -90) == "2023-02-28 22:30:00-01:30");
  CHECK_FALSE(parse_timestamp("2023-02-30 00:00:00+08:00"));
  CHECK_FALSE(parse_timestamp("2023-03-01"));
}

TEST_CASE("the timestamp writer agrees with format_timestamp across days and before the epoch") {
  const std::int64_t epoch = 1677600000;  // 2023-03-01 00:00:00+08:00
  for (int offset : {480, 0, -90}) {
    TimestampWriter writer{epoch, offset};
    for (std::int64_t ms : {0LL, 999LL, 86399000LL, 86400000LL, 3600000LL * 30, -1000LL, -86401000LL}) {
      std::string text;
      writer.append(text, ms);
      const std::int64_t secs = ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
      CHECK(text == format_timestamp(epoch + secs, offset));
    }
  }
}

TEST_CASE("the Seren schema parses into jobs with times relative to the first submission") {
  const Trace t = parse_acme_trace("seren.csv", kSeren);
  CHECK(t.schema == TraceSchema::Seren);
  REQUIRE(t.jobs.size() == 2);
  CHECK(t.utc_offset_minutes == 480);
  const JobSpec& a = t.jobs[0];
  CHECK(a.trace_id == "5778432");
  CHECK(t.user_name(a.user) == "u5907");
  CHECK(a.demand.nodes == 1);
  CHECK(a.demand.gpus == 8);
  CHECK(a.demand.cpus == 128);
  CHECK(a.type == JobType::Other);
  CHECK(a.recorded_state == FinalState::Failed);
  CHECK(a.submitted == SimTime{});
  CHECK(a.recorded_start == SimTime{seconds(32)});
  CHECK(a.runtime == seconds(117));
  CHECK(a.source_line == 2);
  CHECK(t.jobs[1].submitted == SimTime{seconds(336)});
  CHECK(t.jobs[1].runtime == seconds(2693));
  CHECK(t.jobs[0].user == t.jobs[1].user);
}

TEST_CASE("the Kalos schema parses, with memory per pod and Evaluation as an alias of Eval") {
  const Trace t = parse_acme_trace("kalos.csv", kKalos);
  CHECK(t.schema == TraceSchema::Kalos);
  REQUIRE(t.jobs.size() == 2);
  CHECK(t.utc_offset_minutes == 0);
  CHECK(t.jobs[0].demand.mem_gib_per_node == 1000);
  CHECK(t.jobs[0].demand.nodes == 8);
  CHECK(t.jobs[1].type == JobType::Eval);
  CHECK(t.jobs[1].recorded_state == FinalState::Cancelled);
  CHECK(t.jobs[1].runtime == seconds(82));
  CHECK(t.jobs[1].recorded_start == SimTime{seconds(1676)});
}

TEST_CASE("all five final states and all six job types are read") {
  std::string text = kSerenHeader;
  const std::vector<std::string> states{"COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL", "FAILED"};
  const std::vector<std::string> types{"Pretrain", "Eval", "SFT", "MLLM", "Debug", "Other"};
  for (const auto& state : states) text += seren_row(6, state);
  const Trace base = parse_acme_trace("t.csv", text);
  REQUIRE(base.jobs.size() == 6);
  CHECK(base.jobs[3].recorded_state == FinalState::Timeout);
  CHECK(base.jobs[4].recorded_state == FinalState::NodeFail);
  std::string typed = kSerenHeader;
  for (const auto& type : types) typed += seren_row(5, type);
  const Trace t = parse_acme_trace("t.csv", typed);
  REQUIRE(t.jobs.size() == 6);
  CHECK(t.jobs[0].type == JobType::Pretrain);
  CHECK(t.jobs[2].type == JobType::Sft);
  CHECK(t.jobs[3].type == JobType::Mllm);
  CHECK(t.jobs[4].type == JobType::Debug);
}

TEST_CASE("columns may come in any order and extra columns are ignored") {
  const std::string text =
      "gpu_num,job_id,extra,user,node_num,cpu_num,type,state,submit_time,start_time,end_time,duration\n"
      "4,j1,zzz,u1,1,64,Debug,COMPLETED,2023-03-01 00:00:00+08:00,2023-03-01 00:00:01+08:00,2023-03-01 "
      "00:00:02+08:00,1\n";
  const Trace t = parse_acme_trace("t.csv", text);
  REQUIRE(t.jobs.size() == 1);
  CHECK(t.jobs[0].demand.gpus == 4);
  CHECK(t.jobs[0].trace_id == "j1");
}

TEST_CASE("jobs are ordered by submission, trace order kept for equal times") {
  std::string late = seren_row(0, "late");
  late.replace(late.find("2023-03-01 00:00:00"), 19, "2023-03-01 00:00:05");
  late.replace(late.find("2023-03-01 00:00:10"), 19, "2023-03-01 00:00:15");
  const std::string text = kSerenHeader + late + seren_row(0, "a") + seren_row(0, "b");
  const Trace t = parse_acme_trace("t.csv", text);
  REQUIRE(t.jobs.size() == 3);
  CHECK(t.jobs[0].trace_id == "a");
  CHECK(t.jobs[1].trace_id == "b");
  CHECK(t.jobs[2].trace_id == "late");
  CHECK(t.jobs[2].id == JobId{2});
}

TEST_CASE("every kind of bad row gives its exact message") {
  const std::string tail = " (--skip-bad-rows skips such rows)";
  CHECK(error_of(kSerenHeader + seren_row(3, "-")) ==
        "t.csv:2: column 'gpu_num': expected a whole number >= 0, found '-'" + tail);
  CHECK(error_of(kSerenHeader + seren_row(2, "1.5")) ==
        "t.csv:2: column 'node_num': expected a whole number >= 0, found '1.5'" + tail);
  CHECK(error_of(kSerenHeader + seren_row(5, "Inference")) ==
        "t.csv:2: column 'type': expected one of Pretrain, Eval (or Evaluation), SFT, MLLM, Debug, Other, found "
        "'Inference'" +
            tail);
  CHECK(error_of(kSerenHeader + seren_row(6, "RUNNING")) ==
        "t.csv:2: column 'state': expected one of COMPLETED, CANCELLED, FAILED, TIMEOUT, NODE_FAIL, found 'RUNNING'" +
            tail);
  CHECK(error_of(kSerenHeader + seren_row(7, "yesterday")) ==
        "t.csv:2: column 'submit_time': expected a time like '2023-03-01 00:18:22+08:00', found 'yesterday'" + tail);
  CHECK(error_of(kSerenHeader + seren_row(10, "abc")) ==
        "t.csv:2: column 'duration': expected a number of seconds in [0, 315360000] (ten years), found 'abc'" + tail);
  CHECK(error_of(kSerenHeader + seren_row(10, "1e10")) ==
        "t.csv:2: column 'duration': expected a number of seconds in [0, 315360000] (ten years), found '1e10'" + tail);
  CHECK(error_of(kSerenHeader + seren_row(2, "0")) ==
        "t.csv:2: column 'node_num': expected a whole number >= 1 for a job with GPUs, found '0'" + tail);
  CHECK(error_of(kSerenHeader + seren_row(0, "")) ==
        "t.csv:2: column 'job_id': expected a non-empty value, found ''" + tail);
  CHECK(error_of(kSerenHeader + seren_row(8, "2023-02-28 00:00:00+08:00")) ==
        "t.csv:2: column 'start_time': expected a time not before submit_time, found '2023-02-28 00:00:00+08:00'" +
            tail);
  CHECK(error_of(kSerenHeader + seren_row(12, "lots")) ==
        "t.csv:2: column 'gpu_time': expected a number or nothing, found 'lots'" + tail);
  CHECK(error_of(kSerenHeader + "1,u1,1\n") == "t.csv:2: fewer cells than the header has columns" + tail);
  CHECK(error_of(kSerenHeader + seren_row(12, "480,9")) == "t.csv:2: more cells than the header has columns" + tail);
  CHECK(error_of("") == "t.csv: the file is empty; expected an AcmeTrace header line");
  CHECK(error_of("job_id,user,gpu_num\n") ==
        "t.csv:1: header lacks column(s) node_num, cpu_num, type, state, submit_time, start_time, end_time, duration; "
        "an AcmeTrace header has job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,"
        "duration");
}

TEST_CASE("the line number of a bad row counts the header and earlier rows") {
  const std::string text = kSerenHeader + seren_row(0, "1") + seren_row(0, "2") + seren_row(4, "x");
  CHECK(error_of(text) ==
        "t.csv:4: column 'cpu_num': expected a whole number >= 0, found 'x' (--skip-bad-rows "
        "skips such rows)");
}

TEST_CASE("skip-bad-rows counts and reports bad rows and keeps every good one") {
  const std::string text = kSerenHeader + seren_row(0, "1") + seren_row(3, "x") + "short,row\n" + seren_row(0, "4");
  const Trace t = parse_acme_trace("t.csv", text, TraceReadOptions{true});
  CHECK(t.jobs.size() == 2);
  CHECK(t.rows_read == 4);
  CHECK(t.rows_skipped == 2);
  REQUIRE(t.skipped_messages.size() == 2);
  CHECK(t.skipped_messages[0] == "t.csv:3: column 'gpu_num': expected a whole number >= 0, found 'x'");
  CHECK(t.skipped_messages[1] == "t.csv:4: fewer cells than the header has columns");
}

TEST_CASE("a job that never started reads with no start and a zero runtime") {
  const std::string text = kSerenHeader + "9,u1,1,1,16,Eval,CANCELLED,2023-03-01 00:00:00+08:00,,,,,\n";
  const Trace t = parse_acme_trace("t.csv", text);
  REQUIRE(t.jobs.size() == 1);
  CHECK_FALSE(t.jobs[0].recorded_start.has_value());
  CHECK(t.jobs[0].runtime == Duration{0});
}

TEST_CASE("a gzip-compressed trace reads like the plain one") {
  const auto dir = acmesim::testing::scratch_dir() / "acmesim_trace_test";
  std::filesystem::create_directories(dir);
  const auto plain = dir / "seren.csv";
  const auto gz = dir / "seren.csv.gz";
  std::ofstream(plain) << kSeren;
  std::ofstream(gz, std::ios::binary) << acmesim::testing::gzip(kSeren);
  const Trace a = read_acme_trace(plain.string());
  const Trace b = read_acme_trace(gz.string());
  REQUIRE(b.jobs.size() == a.jobs.size());
  CHECK(b.jobs[1].runtime == a.jobs[1].runtime);
  CHECK(b.jobs[1].trace_id == "5778469");
  CHECK_THROWS_WITH(read_acme_trace((dir / "missing.csv").string()),
                    Catch::Contains("missing.csv: cannot open the trace file"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("a gzip trace that is cut short or damaged anywhere is an error, never a shorter trace") {
  const auto dir = acmesim::testing::scratch_dir() / "acmesim_trace_damaged_test";
  std::filesystem::create_directories(dir);
  std::string text = kSerenHeader;
  for (int i = 0; i < 20000; ++i) text += seren_row(0, std::to_string(i + 1));
  const std::string compressed = acmesim::testing::gzip(text);
  const auto write = [&](const std::string& name, const std::string& bytes) {
    const auto path = dir / name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path.string();
  };
  REQUIRE(read_acme_trace(write("whole.csv.gz", compressed)).jobs.size() == 20000);
  // Cut inside the header, in the middle, inside the data's last block and inside the 8-byte footer.
  for (const std::size_t keep :
       {std::size_t{30}, compressed.size() / 2, compressed.size() - 20, compressed.size() - 4}) {
    INFO("kept " << keep << " of " << compressed.size() << " bytes");
    CHECK_THROWS_WITH(read_acme_trace(write("cut.csv.gz", compressed.substr(0, keep))),
                      Catch::Contains("cut.csv.gz: the gzip data is damaged or cut short"));
  }
  std::string flipped = compressed;
  flipped[flipped.size() / 2] = static_cast<char>(~flipped[flipped.size() / 2]);
  CHECK_THROWS_WITH(read_acme_trace(write("flipped.csv.gz", flipped)),
                    Catch::Contains("flipped.csv.gz: the gzip data is damaged or cut short"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("a trace whose submissions span more than ten years is rejected, naming the late row") {
  const std::string late =
      std::string("2,u1,1,8,128,SFT,COMPLETED,2033-03-02 00:00:00+08:00,2033-03-02 00:00:10+08:00,") +
      "2033-03-02 00:01:10+08:00,60,10,480\n";
  CHECK(error_of(kSerenHeader + seren_row(0, "1") + late) ==
        "t.csv:3: submit_time is 10.0 years after the first submission (line 2); acmesim simulates at most ten years");
}

TEST_CASE("a row without a start time has no work to replay, whatever its duration says") {
  std::string row = seren_row(8, "");
  const Trace trace = parse_acme_trace("t.csv", kSerenHeader + row);
  REQUIRE(trace.jobs.size() == 1);
  CHECK(trace.jobs[0].runtime == Duration{0});
  CHECK_FALSE(trace.jobs[0].recorded_start.has_value());
}

namespace {

/// A trace of about 9 MiB (large enough to be parsed in two parts at once): rows with many
/// users, some first seen late, submissions mostly in order with a few early ones late in the
/// file, every row of it valid.
std::string large_trace_text() {
  std::string text = kSerenHeader;
  const std::int64_t day0 = 19417;  // 2023-03-01
  for (int i = 0; text.size() < (std::size_t{9} << 20); ++i) {
    // Every 997th row goes back two days; users past the middle of the file are new ones.
    const std::int64_t submit = (day0 * 86400) + (i * 7) - (i % 997 == 0 ? 2 * 86400 : 0);
    const std::string user = fmt::format("u{}", i < 40000 ? i % 301 : 1000 + (i % 53));
    text += fmt::format("{},{},1,{},16,SFT,COMPLETED,{},{},{},{},0,0\n", 100000 + i, user, 1 << (i % 4),
                        format_timestamp(submit, 480), format_timestamp(submit + 5, 480),
                        format_timestamp(submit + 65 + (i % 50), 480), 60 + (i % 50));
  }
  return text;
}

void check_same_trace(const Trace& a, const Trace& b) {
  REQUIRE(a.jobs.size() == b.jobs.size());
  CHECK(a.users == b.users);
  CHECK(a.rows_read == b.rows_read);
  CHECK(a.rows_skipped == b.rows_skipped);
  CHECK(a.skipped_messages == b.skipped_messages);
  CHECK(a.epoch_unix_seconds == b.epoch_unix_seconds);
  CHECK(a.utc_offset_minutes == b.utc_offset_minutes);
  std::size_t differing = 0;
  for (std::size_t i = 0; i < a.jobs.size(); ++i) {
    const JobSpec& x = a.jobs[i];
    const JobSpec& y = b.jobs[i];
    const bool same = x.id == y.id && x.trace_id == y.trace_id && x.user == y.user && x.source_line == y.source_line &&
                      x.submitted == y.submitted && x.recorded_start == y.recorded_start && x.runtime == y.runtime &&
                      x.demand.gpus == y.demand.gpus && x.type == y.type;
    if (!same) ++differing;
  }
  CHECK(differing == 0);
}

}  // namespace

TEST_CASE("a large trace file parsed in two parts at once gives the trace one parse of its text gives") {
  const auto dir = acmesim::testing::scratch_dir() / "acmesim_trace_parts";
  std::filesystem::create_directories(dir);
  const auto path = (dir / "large.csv").string();
  std::string text = large_trace_text();
  std::ofstream(path, std::ios::binary) << text;
  std::vector<std::uint64_t> progress;
  const Trace whole =
      parse_acme_trace(path, text, TraceReadOptions{false, [&](std::uint64_t rows) { progress.push_back(rows); }});
  CHECK(whole.users.size() == 301 + 53);
  // Progress every 65,536 rows read.
  REQUIRE(whole.rows_read >= 65536);
  CHECK(progress == std::vector<std::uint64_t>{65536});
  check_same_trace(read_acme_trace(path), whole);

  SECTION("a bad row in the second half is reported with its line in the file") {
    const std::size_t late = text.find('\n', text.size() * 3 / 4) + 1;
    text.insert(late, seren_row(2, "x"));
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
    std::string message;
    try {
      read_acme_trace(path);
    } catch (const InputError& e) {
      message = e.what();
    }
    CHECK(message == error_of(text).replace(0, 5, path));
    CHECK_THAT(message, Catch::Contains("column 'node_num'"));

    // Skipped, with one more bad row in the first half: the same rows and messages as one parse.
    text.insert(text.find('\n', 1000) + 1, "short,row\n");
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
    const Trace skipped = read_acme_trace(path, TraceReadOptions{true});
    CHECK(skipped.rows_skipped == 2);
    check_same_trace(skipped, parse_acme_trace(path, text, TraceReadOptions{true}));
  }
  std::filesystem::remove_all(dir);
}
