// Outputs that say how they were made (summary.json's provenance and resolved scenario,
// --print-config, output folders that never mix configurations) and the analysis columns of
// jobs.csv and timeline.csv.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support.hpp"

namespace fs = std::filesystem;
using acmesim::testing::scratch_dir;
using acmesim::testing::slurp;

namespace {

/// A folder with a two-node cluster's scenario and a trace in which two jobs want the whole
/// cluster at once (so one queues), one Eval and one SFT, plus a CPU job.
fs::path make_case(const std::string& name) {
  const fs::path dir = scratch_dir() / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "t.csv") << "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,"
                                  "duration,queue,gpu_time\n"
                                  "1,u1,2,16,32,SFT,COMPLETED,2023-07-01 00:00:00+08:00,"
                                  "2023-07-01 00:00:00+08:00,2023-07-01 01:00:00+08:00,3600,0,57600\n"
                                  "2,u2,2,16,32,Eval,FAILED,2023-07-01 00:00:10+08:00,"
                                  "2023-07-01 00:00:10+08:00,2023-07-01 00:30:10+08:00,1800,0,28800\n"
                                  "3,u2,1,0,4,Other,COMPLETED,2023-07-01 00:00:20+08:00,"
                                  "2023-07-01 00:00:20+08:00,2023-07-01 00:00:30+08:00,10,0,0\n";
  std::ofstream(dir / "s.yaml") << "trace: t.csv\ncluster: {nodes: 2, cpus_per_node: 64}\ntimeline_interval_s: 60\n";
  return dir;
}

int run_in(const fs::path& dir, const std::string& args) {
  const std::string command =
      fmt::format("cd '{}' && '{}' {} > stdout.txt 2> stderr.txt", dir.string(), ACMESIM_BINARY, args);
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in{text};
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> cells_of(const std::string& line) {
  std::vector<std::string> cells;
  std::istringstream in{line};
  for (std::string cell; std::getline(in, cell, ',');) cells.push_back(cell);
  if (!line.empty() && line.back() == ',') cells.emplace_back();
  return cells;
}

/// The column `name` of a CSV file's lines (header first): every row's cell.
std::vector<std::string> column(const std::vector<std::string>& lines, const std::string& name) {
  const std::vector<std::string> header = cells_of(lines.at(0));
  const auto at = static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  REQUIRE(at < header.size());
  std::vector<std::string> cells;
  for (std::size_t i = 1; i < lines.size(); ++i) cells.push_back(cells_of(lines[i]).at(at));
  return cells;
}

/// The value after `"key": ` on the first line that has it, without quotes and trailing comma.
std::string json_value(const std::string& text, const std::string& key) {
  const std::string needle = fmt::format("\"{}\": ", key);
  const std::size_t at = text.find(needle);
  REQUIRE(at != std::string::npos);
  std::string value = text.substr(at + needle.size(), text.find('\n', at) - at - needle.size());
  if (!value.empty() && value.back() == ',') value.pop_back();
  if (value.size() >= 2 && value.front() == '"') value = value.substr(1, value.size() - 2);
  return value;
}

}  // namespace

TEST_CASE(
    "summary.json holds every policy parameter, the overrides, the command line, the build and the trace's SHA-256") {
  const fs::path dir = make_case("provenance");
  REQUIRE(run_in(dir, "run s.yaml --set scheduler=slurm --set cluster.nodes=3 --seed 7 -q -o out") == 0);
  const std::string summary = slurp(dir / "out" / "summary.json");
  // The resolved scenario: a default nobody wrote is there, with its value.
  CHECK(summary.find("\"weight_qos\": 10000") != std::string::npos);
  CHECK(summary.find("\"nodes\": 3") != std::string::npos);
  CHECK(json_value(summary, "seed") == "7");
  CHECK(summary.find("\"cluster.nodes=3\"") != std::string::npos);
  CHECK(summary.find("\"seed=7\"") != std::string::npos);
  CHECK(json_value(summary, "command_line").find("run s.yaml --set scheduler=slurm --set cluster.nodes=3 --seed 7") !=
        std::string::npos);
  CHECK(json_value(summary, "git_revision").size() >= 7);
  // The trace's checksum is its file's SHA-256, as sha256sum computes it.
  REQUIRE(std::system(fmt::format("cd '{}' && sha256sum t.csv > sum.txt", dir.string()).c_str()) == 0);
  CHECK(json_value(summary, "sha256") == slurp(dir / "sum.txt").substr(0, 64));
}

TEST_CASE("A trace read from a pipe has no SHA-256 in summary.json, not the hash of an empty file") {
  // A pipe can be read only once, so its bytes cannot be hashed after parsing; null says so.
  const fs::path dir = make_case("provenance-pipe");
  const std::string command = fmt::format("cd '{}' && cat t.csv | '{}' run s.yaml --set trace=/dev/stdin -q -o out",
                                          dir.string(), ACMESIM_BINARY);
  REQUIRE(std::system(command.c_str()) == 0);
  const std::string summary = slurp(dir / "out" / "summary.json");
  CHECK(json_value(summary, "rows_read") == "3");
  CHECK(json_value(summary, "sha256") == "null");
}

TEST_CASE(
    "The scenario that run --print-config prints reads back to the same scenario, and runs of it have the same id") {
  const fs::path dir = make_case("print-config");
  REQUIRE(run_in(dir, "run s.yaml --set scheduler=easy-backfill --print-config") == 0);
  const std::string printed = slurp(dir / "stdout.txt");
  CHECK(printed.find("scheduler:\n  name: easy-backfill\n  estimate: exact  # default\n") != std::string::npos);
  CHECK(printed.find("# type_limits_s: not set") != std::string::npos);
  CHECK(!fs::exists(dir / "out"));  // nothing run
  std::ofstream(dir / "resolved.yaml") << printed;
  REQUIRE(run_in(dir, "run resolved.yaml --print-config") == 0);
  std::string again = slurp(dir / "stdout.txt");
  // Read back, every default is a value written out: the same values, only not marked.
  std::string unmarked = printed;
  for (std::size_t at = unmarked.find("  # default"); at != std::string::npos; at = unmarked.find("  # default")) {
    unmarked.erase(at, 11);
  }
  CHECK(again == unmarked);
  REQUIRE(run_in(dir, "run s.yaml --set scheduler=easy-backfill -q -o a") == 0);
  REQUIRE(run_in(dir, "run resolved.yaml -q -o b") == 0);
  CHECK(json_value(slurp(dir / "a" / "summary.json"), "scenario_id") ==
        json_value(slurp(dir / "b" / "summary.json"), "scenario_id"));
  CHECK(json_value(slurp(dir / "a" / "summary.json"), "fingerprint") ==
        json_value(slurp(dir / "b" / "summary.json"), "fingerprint"));
}

TEST_CASE("Runs whose overrides differ get folders of their own, and a folder of another configuration is refused") {
  const fs::path dir = make_case("folders");
  REQUIRE(run_in(dir, "run s.yaml -q") == 0);
  REQUIRE(run_in(dir, "run s.yaml -q --set cluster.nodes=3") == 0);
  REQUIRE(run_in(dir, "run s.yaml -q --set cluster.nodes=4") == 0);
  std::vector<std::string> folders;
  for (const auto& entry : fs::directory_iterator(dir / "out")) folders.push_back(entry.path().filename().string());
  std::sort(folders.begin(), folders.end());
  REQUIRE(folders.size() == 3);
  CHECK(folders[0] == "s");
  CHECK(folders[1].rfind("s-", 0) == 0);
  CHECK(folders[1].size() == 10);  // s- and 8 hex digits of the resolved scenario's id
  // The same configuration again replaces its own outputs.
  CHECK(run_in(dir, "run s.yaml -q --set cluster.nodes=3") == 0);
  // Another configuration into the same folder: refused, the old outputs kept.
  const std::string before = slurp(dir / "out" / "s" / "summary.json");
  CHECK(run_in(dir, "run s.yaml -q -o out/s --set scheduler=sjf") == 2);
  const std::string message = slurp(dir / "stderr.txt");
  CHECK(message.find("out/s: holds the outputs of another configuration") != std::string::npos);
  CHECK(message.find("--force") != std::string::npos);
  CHECK(slurp(dir / "out" / "s" / "summary.json") == before);
  CHECK(run_in(dir, "run s.yaml -q -o out/s --set scheduler=sjf --force") == 0);
  CHECK(slurp(dir / "out" / "s" / "summary.json").find("\"name\": \"sjf\"") != std::string::npos);
  // Replacing outputs leaves the three files and nothing else (the previous ones are moved
  // aside while the new ones are written, then deleted).
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir / "out" / "s")) files.push_back(entry.path().filename().string());
  std::sort(files.begin(), files.end());
  CHECK(files == std::vector<std::string>{"jobs.csv", "summary.json", "timeline.csv"});
  CHECK(slurp(dir / "out" / "s" / "jobs.csv").rfind("job_id,", 0) == 0);
}

TEST_CASE("jobs.csv has numeric submit_s, start_s and end_s, and gpu_time is a float in every run") {
  const fs::path dir = make_case("columns");
  REQUIRE(run_in(dir, "run s.yaml -q -o out") == 0);
  const std::vector<std::string> jobs = lines_of(slurp(dir / "out" / "jobs.csv"));
  REQUIRE(jobs.size() == 4);
  const std::vector<std::string> header = cells_of(jobs[0]);
  CHECK(std::vector<std::string>(header.begin(), header.begin() + 13) ==
        cells_of("job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,"
                 "gpu_time"));
  // Job 2 (submitted at 10 s) waits for job 1 (the whole cluster for an hour), and under fifo
  // the CPU job waits behind it.
  CHECK(column(jobs, "submit_s") == std::vector<std::string>{"0.0", "10.0", "20.0"});
  CHECK(column(jobs, "start_s") == std::vector<std::string>{"0.0", "3600.0", "3600.0"});
  CHECK(column(jobs, "end_s") == std::vector<std::string>{"3600.0", "5400.0", "3610.0"});
  CHECK(column(jobs, "gpu_time") == std::vector<std::string>{"57600.0", "28800.0", "0.0"});
  CHECK(column(jobs, "queue") == std::vector<std::string>{"0", "3590", "3580"});
}

TEST_CASE("timeline.csv counts queued jobs and GPUs per job type, and they add up to the totals") {
  const fs::path dir = make_case("timeline");
  REQUIRE(run_in(dir, "run s.yaml -q -o out") == 0);
  const std::vector<std::string> timeline = lines_of(slurp(dir / "out" / "timeline.csv"));
  REQUIRE(timeline.size() > 3);
  const auto eval_jobs = column(timeline, "queued_jobs_Eval");
  const auto eval_gpus = column(timeline, "queued_gpus_Eval");
  const auto sft_jobs = column(timeline, "queued_jobs_SFT");
  const auto other_jobs = column(timeline, "queued_jobs_Other");
  const auto all_jobs = column(timeline, "queued_jobs");
  const auto all_gpus = column(timeline, "queued_gpus");
  const auto down = column(timeline, "down_nodes");
  // Sample 1 (60 s): the Eval job waits for the SFT job, asking for 16 GPUs, and the CPU job
  // behind it (fifo).
  CHECK(eval_jobs.at(1) == "1");
  CHECK(eval_gpus.at(1) == "16");
  CHECK(sft_jobs.at(1) == "0");
  CHECK(other_jobs.at(1) == "1");
  CHECK(all_jobs.at(1) == "2");
  CHECK(all_gpus.at(1) == "16");
  CHECK(down.at(1) == "0");
  CHECK(eval_jobs.back() == "0");  // it started at 3,600 s
}

TEST_CASE("A Kalos run's jobs.csv keeps the four Kalos columns and replays as a Kalos trace") {
  const fs::path dir = scratch_dir() / "kalos-columns";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "k.csv")
      << "job_id,user,node_num,gpu_num,cpu_num,mem_per_pod_GB,shared_mem_per_pod,type,state,submit_time,"
         "start_time,end_time,fail_time,stop_time,duration,queue,gpu_time\n"
         "a,u1,1,8,16,512,40.5,SFT,FAILED,2023-07-01 00:00:00+08:00,2023-07-01 00:00:05+08:00,"
         "2023-07-01 00:10:05+08:00,2023-07-01 00:10:05+08:00,,600,5.0,4800.0\n"
         "b,u1,1,8,16,256,,Eval,CANCELLED,2023-07-01 00:01:00+08:00,2023-07-01 00:01:05+08:00,"
         "2023-07-01 00:02:05+08:00,,2023-07-01 00:02:05+08:00,60,5.0,480.0\n";
  std::ofstream(dir / "k.yaml") << "trace: k.csv\ncluster: {nodes: 2}\n";
  REQUIRE(run_in(dir, "run k.yaml -q -o out") == 0);
  const std::vector<std::string> jobs = lines_of(slurp(dir / "out" / "jobs.csv"));
  REQUIRE(jobs.size() == 3);
  CHECK(column(jobs, "mem_per_pod_GB") == std::vector<std::string>{"512", "256"});
  CHECK(column(jobs, "shared_mem_per_pod") == std::vector<std::string>{"40.5", ""});
  CHECK(column(jobs, "fail_time") == std::vector<std::string>{"2023-07-01 00:10:00+08:00", ""});
  CHECK(column(jobs, "stop_time") == std::vector<std::string>{"", "2023-07-01 00:02:00+08:00"});
  REQUIRE(run_in(dir, "run k.yaml -q -o again --set trace=out/jobs.csv") == 0);
  CHECK(slurp(dir / "again" / "summary.json").find("\"schema\": \"kalos\"") != std::string::npos);
  CHECK(column(lines_of(slurp(dir / "again" / "jobs.csv")), "shared_mem_per_pod") ==
        std::vector<std::string>{"40.5", ""});
}
