// The catalog of bad inputs: malformed traces, scenarios and command lines, each run through the
// acmesim command as a user would, with the exit code and the message it must give. The same
// catalog is the table in docs/reliability.md ("Bad inputs"); a case missing there fails here.
#include <fmt/format.h>
#include <sys/wait.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/support.hpp"

namespace {

using acmesim::testing::gzip;
using acmesim::testing::kSource;
using acmesim::testing::scratch_dir;
using acmesim::testing::slurp;
namespace fs = std::filesystem;

const std::string kHeader =
    "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time";
const std::vector<std::string> kCells{"1",
                                      "u1",
                                      "1",
                                      "8",
                                      "16",
                                      "SFT",
                                      "COMPLETED",
                                      "2023-07-01 00:00:00+08:00",
                                      "2023-07-01 00:00:10+08:00",
                                      "2023-07-01 01:00:10+08:00",
                                      "3600",
                                      "10",
                                      "28800"};

/// A good row with cell `column` replaced by `value` (column -1: none).
std::string row(int column = -1, const std::string& value = "") {
  std::vector<std::string> cells = kCells;
  if (column >= 0) cells[static_cast<std::size_t>(column)] = value;
  return fmt::format("{}", fmt::join(cells, ","));
}

std::string trace(const std::vector<std::string>& rows) {
  std::string text = kHeader + "\n";
  for (const std::string& r : rows) text += r + "\n";
  return text;
}

/// A four-node scenario reading t.csv (or t.csv.gz), as every trace case uses.
const std::string kScenario = "trace: t.csv\ncluster: {nodes: 4}\n";
const std::string kRunTrace = "run s.yaml -q -o out";

struct BadInput {
  std::string name;  // what the case is, as docs/reliability.md lists it
  std::vector<std::pair<std::string, std::string>> files;
  std::string args;
  int exit_code;
  std::string message;  // a part of stderr that must be there ("" for none)
};

std::vector<BadInput> trace_cases() {
  const std::string good = trace({row()});
  const std::string many = [] {
    std::vector<std::string> rows;
    for (int i = 0; i < 2000; ++i) rows.push_back(row(0, std::to_string(i)));
    return trace(rows);
  }();
  const std::string zipped = gzip(many);
  std::vector<BadInput> cases{
      {"empty trace file",
       {{"t.csv", ""}},
       kRunTrace,
       2,
       "t.csv: the file is empty; expected an AcmeTrace header line"},
      {"header only", {{"t.csv", kHeader + "\n"}}, "run s.yaml -o out", 0, "warning: t.csv holds no jobs"},
      {"missing column",
       {{"t.csv", "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time\n"}},
       kRunTrace,
       2,
       "t.csv:1: header lacks column(s) duration"},
      {"extra column (ignored)", {{"t.csv", kHeader + ",comment\n" + row() + ",hello\n"}}, kRunTrace, 0, ""},
      {"reordered columns (read by name)",
       {{"t.csv",
         "user,job_id,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time\n"
         "u1,1,1,8,16,SFT,COMPLETED,2023-07-01 00:00:00+08:00,2023-07-01 00:00:10+08:00,2023-07-01 01:00:10+08:00,"
         "3600,10,28800\n"}},
       kRunTrace,
       0,
       ""},
      {"UTF-8 byte order mark (skipped)", {{"t.csv", "\xEF\xBB\xBF" + good}}, kRunTrace, 0, ""},
      {"CRLF line ends (read)", {{"t.csv", kHeader + "\r\n" + row() + "\r\n"}}, kRunTrace, 0, ""},
      {"quoted field holding a comma (read, written quoted)",
       {{"t.csv", trace({row(1, "\"u,1\"")})}},
       kRunTrace,
       0,
       ""},
      {"NUL byte in a row",
       {{"t.csv", kHeader + "\n" + std::string("1,u\0", 4) + row().substr(4) + "\n"}},
       kRunTrace,
       2,
       "t.csv:2: "},
      {"10 MB field (a message quotes 80 bytes of it)",
       {{"t.csv", trace({row(3, std::string(10'000'000, '9'))})}},
       kRunTrace,
       2,
       "t.csv:2: column 'gpu_num': expected a whole number >= 0, found '" + std::string(80, '9') + "...'"},
      {"non-numeric count",
       {{"t.csv", trace({row(3, "eight")})}},
       kRunTrace,
       2,
       "t.csv:2: column 'gpu_num': expected a whole number >= 0, found 'eight'"},
      {"negative count",
       {{"t.csv", trace({row(4, "-16")})}},
       kRunTrace,
       2,
       "t.csv:2: column 'cpu_num': expected a whole number >= 0, found '-16'"},
      {"negative duration",
       {{"t.csv", trace({row(10, "-5")})}},
       kRunTrace,
       2,
       "t.csv:2: column 'duration': expected a number of seconds in [0, 315360000] (ten years), found '-5'"},
      {"duration beyond ten years",
       {{"t.csv", trace({row(10, "1e15")})}},
       kRunTrace,
       2,
       "column 'duration': expected a number of seconds in [0, 315360000] (ten years), found '1e15'"},
      {"gpu_num not a multiple of node_num",
       {{"t.csv", trace({row(2, "3")})}},
       kRunTrace,
       2,
       "t.csv:2: column 'gpu_num': expected a multiple of node_num (3), found '8'"},
      {"GPU job on 0 nodes",
       {{"t.csv", trace({row(2, "0")})}},
       kRunTrace,
       2,
       "t.csv:2: column 'node_num': expected a whole number >= 1 for a job with GPUs, found '0'"},
      {"more GPUs per node than the cluster has (unschedulable, reported)",
       {{"t.csv", trace({row(3, "16")})}},
       "run s.yaml -o out",
       0,
       "1 jobs can never fit this cluster, e.g. job 1 (line 2): it asks for 16 GPUs on one node"},
      {"zone-less timestamps (read as UTC)",
       {{"t.csv",
         trace({"1,u1,1,8,16,SFT,COMPLETED,2023-07-01 00:00:00,2023-07-01 00:00:10,2023-07-01 01:00:10,3600,10,"
                "28800"})}},
       kRunTrace,
       0,
       ""},
      {"impossible date",
       {{"t.csv", trace({row(7, "2023-02-30 00:00:00+08:00")})}},
       kRunTrace,
       2,
       "t.csv:2: column 'submit_time': expected a time like '2023-03-01 00:18:22+08:00', found '2023-02-30 "
       "00:00:00+08:00'"},
      {"impossible time of day",
       {{"t.csv", trace({row(8, "2023-07-01 25:00:00+08:00")})}},
       kRunTrace,
       2,
       "t.csv:2: column 'start_time': expected a time like"},
      {"end before start",
       {{"t.csv", trace({row(9, "2023-07-01 00:00:05+08:00")})}},
       kRunTrace,
       2,
       "t.csv:2: column 'end_time': expected a time not before start_time, found '2023-07-01 00:00:05+08:00'"},
      {"start before submit",
       {{"t.csv", trace({row(8, "2023-06-30 00:00:00+08:00")})}},
       kRunTrace,
       2,
       "t.csv:2: column 'start_time': expected a time not before submit_time"},
      {"submissions spanning more than ten years",
       {{"t.csv", trace({row(),
                         "2,u1,1,8,16,SFT,COMPLETED,2034-07-01 00:00:00+08:00,2034-07-01 00:00:10+08:00,"
                         "2034-07-01 01:00:10+08:00,3600,10,28800"})}},
       kRunTrace,
       2,
       "t.csv:3: submit_time is 11.0 years after the first submission (line 2); acmesim simulates at most ten years"},
      {"unsorted submissions (sorted, file order for ties)",
       {{"t.csv", trace({"2,u1,1,8,16,SFT,COMPLETED,2023-07-02 00:00:00+08:00,2023-07-02 00:00:10+08:00,"
                         "2023-07-02 01:00:10+08:00,3600,10,28800",
                         row()})}},
       kRunTrace,
       0,
       ""},
      {"duplicate job ids (labels only: kept as given)", {{"t.csv", trace({row(), row()})}}, kRunTrace, 0, ""},
      {"unknown state",
       {{"t.csv", trace({row(6, "RUNNING")})}},
       kRunTrace,
       2,
       "t.csv:2: column 'state': expected one of COMPLETED, CANCELLED, FAILED, TIMEOUT, NODE_FAIL, found 'RUNNING'"},
      {"unknown job type",
       {{"t.csv", trace({row(5, "Inference")})}},
       kRunTrace,
       2,
       "t.csv:2: column 'type': expected one of Pretrain, Eval (or Evaluation), SFT, MLLM, Debug, Other, found "
       "'Inference'"},
      {"empty job id",
       {{"t.csv", trace({row(0, "")})}},
       kRunTrace,
       2,
       "t.csv:2: column 'job_id': expected a non-empty value, found ''"},
      {"fewer cells than columns",
       {{"t.csv", trace({"1,u1,1,8"})}},
       kRunTrace,
       2,
       "t.csv:2: fewer cells than the header has columns (--skip-bad-rows skips such rows)"},
      {"more cells than columns",
       {{"t.csv", trace({row() + ",9"})}},
       kRunTrace,
       2,
       "t.csv:2: more cells than the header has columns"},
      {"unterminated quote", {{"t.csv", trace({row(1, "\"u1")})}}, kRunTrace, 2, "t.csv:2: "},
      {"non-UTF-8 bytes in the trace path, a user and a skipped row (summary.json gets U+FFFD)",
       {{"t\xFF.csv", trace({row(1, "u\xFE"), row(3, "x\xFD")})}},
       "run s.yaml --set trace=t\xFF.csv --skip-bad-rows -q -o out",
       0,
       ""},
      {"bad row skipped with --skip-bad-rows",
       {{"t.csv", trace({row(), row(3, "x")})}},
       "run s.yaml --skip-bad-rows -o out",
       0,
       "warning: skipped 1 bad rows of t.csv, first: t.csv:3: column 'gpu_num'"},
      {"gzip trace cut short",
       {{"s.yaml", "trace: t.csv.gz\ncluster: {nodes: 4}\n"}, {"t.csv.gz", zipped.substr(0, zipped.size() / 2)}},
       kRunTrace,
       2,
       "t.csv.gz: the gzip data is damaged or cut short"},
      {"gzip trace with a damaged byte",
       {{"s.yaml", "trace: t.csv.gz\ncluster: {nodes: 4}\n"},
        {"t.csv.gz",
         [&] {
           std::string bad = zipped;
           bad[bad.size() / 2] = static_cast<char>(bad[bad.size() / 2] ^ 0x55);
           return bad;
         }()}},
       kRunTrace,
       2,
       "t.csv.gz: the gzip data is damaged or cut short"},
      {"a folder as the trace",
       {{"s.yaml", "trace: dir\ncluster: {nodes: 4}\n"}, {"dir/x", ""}},
       kRunTrace,
       2,
       "dir: expected a trace file (CSV, plain or gzip), found a folder"},
      {"a trace that does not exist",
       {{"s.yaml", "trace: none.csv\ncluster: {nodes: 4}\n"}},
       kRunTrace,
       2,
       "none.csv: cannot open the trace file (No such file or directory)"},
  };
  for (BadInput& c : cases) {  // the four-node scenario, unless the case brings its own
    const bool own = std::any_of(c.files.begin(), c.files.end(), [](const auto& f) { return f.first == "s.yaml"; });
    if (!own) c.files.emplace_back("s.yaml", kScenario);
  }
  return cases;
}

/// `text` with every line indented by `spaces`.
std::string indented(const std::string& text, int spaces) {
  std::string out;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    out += std::string(static_cast<std::size_t>(spaces), ' ') + text.substr(at, end - at) + "\n";
    at = end + 1;
  }
  return out;
}

std::vector<BadInput> scenario_cases() {
  const std::string trace_file = trace({row()});
  const auto with = [&](const std::string& scenario) {
    return std::vector<std::pair<std::string, std::string>>{{"t.csv", trace_file}, {"s.yaml", scenario}};
  };
  const std::string bomb =
      "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
      "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
      "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n";
  return {
      {"empty scenario (no trace)", with(""), kRunTrace, 2,
       "trace: expected the path of an AcmeTrace CSV file (plain or .gz) (a required key)"},
      {"a CSV where the scenario goes", with(""), "run t.csv -q -o out", 2,
       "t.csv: scenario: expected a YAML file (a trace is given with --set trace=PATH), found 'an AcmeTrace CSV "
       "header'"},
      {"a gzip file where the scenario goes",
       {{"t.csv.gz", gzip(trace_file)}},
       "run t.csv.gz -q -o out",
       2,
       "t.csv.gz: scenario: expected a YAML text file (a trace is given with --set trace=PATH), found 'gzip data'"},
      {"a folder where the scenario goes", {{"dir/x", ""}}, "run dir -q -o out", 2, "dir"},
      {"unknown key, with the likely one", with(kScenario + "timeline_interval: 60\n"), kRunTrace, 2,
       "s.yaml:3:1: scenario: expected a known key (name, description, seed, trace, cluster, scheduler, placement, "
       "timeline_interval_s, skip_bad_rows, outcomes, failures, recovery), found 'timeline_interval' (did you mean "
       "'timeline_interval_s'?)"},
      {"wrong type", with("trace: t.csv\ncluster: {nodes: lots}\n"), kRunTrace, 2,
       "s.yaml:2:18: cluster.nodes: expected a whole number in [1, 1000000], found 'lots'"},
      {"zero nodes", with("trace: t.csv\ncluster: {nodes: 0}\n"), kRunTrace, 2,
       "cluster.nodes: expected a whole number in [1, 1000000], found '0'"},
      {"negative nodes", with("trace: t.csv\ncluster: {nodes: -3}\n"), kRunTrace, 2,
       "cluster.nodes: expected a whole number in [1, 1000000], found '-3'"},
      {"absurdly many nodes", with("trace: t.csv\ncluster: {nodes: 3000000000}\n"), kRunTrace, 2,
       "cluster.nodes: expected a whole number in [1, 1000000], found '3000000000'"},
      {"a list where a string goes", with(kScenario + "name: [a, b]\n"), kRunTrace, 2,
       "s.yaml:3:7: name: expected a string, found '[a, b]'"},
      {"a non-scalar key", with(kScenario + "? [a, b] : 1\n"), kRunTrace, 2,
       "s.yaml:3:3: scenario: expected a plain key (a name or a number, not a list or a mapping)"},
      {"duplicate key", with(kScenario + "seed: 1\nseed: 2\n"), kRunTrace, 2,
       "s.yaml:4:1: scenario: expected each key once ('seed' is also at s.yaml:3:1), found 'seed'"},
      {"invalid YAML", with("trace: [t.csv\n"), kRunTrace, 2, "s.yaml:2:1: YAML: expected valid YAML"},
      {"a scalar document with --set", with("hello\n"), "run s.yaml --set seed=2 -q -o out", 2,
       "s.yaml:1:1: scenario: expected a mapping of scenario keys to values, found 'hello'"},
      {"YAML alias bomb (rejected at once)", with(bomb), kRunTrace, 2, "s.yaml:1:1: scenario: expected a known key"},
      {"YAML alias bomb inside a policy parameter",
       with(kScenario + "scheduler:\n  name: fifo\n  x:\n" + indented(bomb, 4)), kRunTrace, 2,
       ": expected at most 100000 values in all (an alias counts at every use), found 'more'"},
      {"a policy parameter nested 100 levels deep",
       with(kScenario + "scheduler: {name: fifo, x: " + std::string(100, '[') + std::string(100, ']') + "}\n"),
       kRunTrace, 2, ": expected at most 64 levels of nesting, found 'deeper nesting'"},
      {"a list as a key inside a policy parameter", with(kScenario + "scheduler: {name: fifo, x: {? [a, b] : 1}}\n"),
       kRunTrace, 2,
       "s.yaml:3:31: scheduler.x: expected a plain key (a name or a number, not a list or a mapping), found 'a list or "
       "a mapping'"},
      {"a name that is a path", with(kScenario + "name: ../../x\n"), "run s.yaml -q", 2,
       "s.yaml:3:7: name: expected a plain folder name (no '/', not '.' or '..'), found '../../x'"},
      {"unknown scheduler, with the likely one", with(kScenario + "scheduler: slrum\n"), kRunTrace, 2,
       "found 'slrum' (did you mean 'slurm'?)"},
      {"policy parameter out of range", with(kScenario + "scheduler: {name: acme, quota_share: {Pretrain: 1.5}}\n"),
       kRunTrace, 2, "s.yaml:3:49: scheduler.quota_share.Pretrain: expected a number in [0, 1], found '1.5'"},
      {"unknown policy parameter", with(kScenario + "scheduler: {name: fifo, backfil: true}\n"), kRunTrace, 2,
       "scheduler"},
      {"timeline interval not a number", with(kScenario + "timeline_interval_s: .nan\n"), kRunTrace, 2,
       "s.yaml:3:22: timeline_interval_s: expected a number in [1, 315360000], found '.nan'"},
      {"timeline interval beyond ten years", with(kScenario + "timeline_interval_s: 1e16\n"), kRunTrace, 2,
       "timeline_interval_s: expected a number in [1, 315360000], found '1e16'"},
      {"a policy duration beyond ten years", with(kScenario + "scheduler: {name: srtf, restart_overhead_s: 1e300}\n"),
       kRunTrace, 2, "scheduler.restart_overhead_s: expected a number in [0, 315360000], found '1e300'"},
  };
}

std::vector<BadInput> command_line_cases() {
  const auto with_trace =
      std::vector<std::pair<std::string, std::string>>{{"t.csv", trace({row()})}, {"s.yaml", kScenario}};
  return {
      {"unknown command", {}, "rnu", 2, "acmesim: command line: expected a known command (run, compare"},
      {"unknown option, with the likely one", {}, "run --sedd 3", 2, "found '--sedd' (did you mean '--seed'?)"},
      {"option without its value", {}, "run --set", 2, "error: command line: --set"},
      {"--set without '='", with_trace, "run s.yaml --set seed -q -o out", 2, "--set"},
      {"--set of an unknown key", with_trace, "run s.yaml --set cluster.nodez=3 -q -o out", 2,
       "found 'nodez' (did you mean 'nodes'?)"},
      {"--set of a key with an empty part", with_trace, "run s.yaml --set scheduler..x=1 -q -o out", 2,
       "--set scheduler..x: override: expected a dotted key of at most 64 non-empty parts, e.g. cluster.nodes, found "
       "'scheduler..x'"},
      {"--seed -1", with_trace, "run s.yaml --seed -1 -q -o out", 2, "seed: expected a whole number >= 0, found '-1'"},
      {"--seed 2^64", with_trace, "run s.yaml --seed 18446744073709551616 -q -o out", 2,
       "seed: expected a whole number >= 0, found '18446744073709551616'"},
      {"--out naming a file",
       {{"t.csv", trace({row()})}, {"s.yaml", kScenario}, {"out", "a file"}},
       "run s.yaml -q -o out",
       2,
       "error: out"},
      {"--out under /dev/full (cannot create)", with_trace, "run s.yaml -q -o /dev/full/x", 2, "/dev/full"},
      {"synth --jobs -5",
       {},
       "synth --profile seren --jobs -5 -o x.csv",
       2,
       "error: command line: --jobs: expected a whole number in [1, 100000000], found '-5'"},
      {"synth --days 1e9",
       {},
       "synth --profile seren --days 1e9 -o x.csv",
       2,
       "error: command line: --days: expected a number in [0, 3650], found '1e9'"},
      {"synth --load too high for memory",
       {},
       "synth --profile seren --load 1e5 -o x.csv",
       2,
       "jobs per day); at most 100000000 are generated"},
      {"synth to a full disk",
       {},
       "synth --profile seren --days 0.1 -o /dev/full",
       2,
       "/dev/full: cannot write (No space left on device)"},
      {"eval-bench --noise 100", {}, "eval-bench --noise 100", 2, "--noise: expected a number in [0, 2], found '100'"},
      {"eval-bench --model-gb 1e7",
       {},
       "eval-bench --model-gb 1e7",
       2,
       "--model-gb: expected a number in [0.001, 100000], found '1e7'"},
      {"eval-cluster -o naming a file", {{"out", "a file"}}, "eval-cluster -o out", 2, "error: out: Not a directory"},
      {"an evaluation suite with an absurd checkpoint size",
       {{"suite.yaml",
         "name: x\nreference_checkpoint_gb: 1e130\ndatasets: [{name: a, inference_s: 1, metric_s: 1}]\n"}},
       "eval-bench --suite suite.yaml",
       2,
       "suite.yaml:2:26: reference_checkpoint_gb: expected a number in [0.001, 100000], found '1e130'"},
      {"stats of a missing file", {}, "stats none.csv", 2, "none.csv"},
      {"failures with an absurd GPU time",
       {{"f.csv", "job_id,gpu_num,failure_log\n1,8,NVLinkError:1e300\n"}},
       "failures f.csv",
       2,
       "f.csv:2: column 'failure_log': expected Reason:gpu_seconds items joined by ';' (GPU-seconds in [0, 1e13]), "
       "found 'NVLinkError:1e300'"},
      {"failures of a damaged trace",
       {{"t.csv", trace({row(3, "x")})}},
       "failures t.csv",
       2,
       "t.csv:2: column 'gpu_num'"},
  };
}

struct Outcome {
  int exit_code;
  std::string stderr_text;
};

Outcome run_case(const std::string& folder, const BadInput& c) {
  const fs::path dir = scratch_dir() / "bad-inputs" / folder;
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const auto& [name, content] : c.files) {
    fs::create_directories((dir / name).parent_path());
    std::ofstream(dir / name, std::ios::binary) << content;
  }
  const std::string command =
      fmt::format("cd '{}' && '{}' {} > stdout.txt 2> stderr.txt", dir.string(), ACMESIM_BINARY, c.args);
  const int status = std::system(command.c_str());
  return Outcome{WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), slurp(dir / "stderr.txt")};
}

/// The row of docs/reliability.md's table for a case: what acmesim said, on one line, with the
/// test's scratch folder and the long field shortened. ACMESIM_CATALOG_DUMP=FILE writes them all.
std::string docs_row(const BadInput& c, const Outcome& outcome) {
  std::string said = outcome.stderr_text;
  for (char& ch : said) ch = ch == '\n' ? ' ' : ch;
  while (!said.empty() && said.back() == ' ') said.pop_back();
  const std::size_t nines = said.find(std::string(80, '9'));
  if (nines != std::string::npos) said.replace(nines, 80, "999...9 (80 digits)");
  // Markdown-safe and ASCII: '|' escaped, bytes beyond ASCII (the non-UTF-8 cases) as \xNN.
  const auto markdown = [](std::string_view text) {
    std::string shown;
    for (const char ch : text) {
      const auto byte = static_cast<unsigned char>(ch);
      if (ch == '|') {
        shown += "\\|";
      } else if (byte >= 0x80) {
        shown += fmt::format("\\x{:02X}", byte);
      } else {
        shown.push_back(ch);
      }
    }
    return shown;
  };
  const std::string shown = markdown(said);
  return fmt::format("| {} | `{}` | {} | {} |\n", c.name, markdown(c.args), outcome.exit_code,
                     shown.empty() ? "(nothing)" : "`" + shown + "`");
}

void check_cases(const std::string& group, const std::vector<BadInput>& cases) {
  const std::string docs = slurp(fs::path(kSource) / "docs" / "reliability.md");
  const char* dump = std::getenv("ACMESIM_CATALOG_DUMP");
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const BadInput& c = cases[i];
    INFO(group << " #" << i << ": " << c.name << "\n  acmesim " << c.args);
    const Outcome outcome = run_case(fmt::format("{}-{}", group, i), c);
    INFO("stderr: " << outcome.stderr_text);
    CHECK(outcome.exit_code == c.exit_code);
    if (!c.message.empty()) CHECK(outcome.stderr_text.find(c.message) != std::string::npos);
    // Never a crash or a broken invariant, never a flood: at most a few lines of a few hundred bytes.
    CHECK(outcome.stderr_text.find("internal error") == std::string::npos);
    CHECK(outcome.stderr_text.size() < 800);
    CHECK(docs.find("| " + c.name + " |") != std::string::npos);
    if (dump != nullptr) std::ofstream(dump, std::ios::app) << docs_row(c, outcome);
  }
}

}  // namespace

TEST_CASE("Every malformed trace in the catalog gives its exit code and message", "[cli][bad-inputs]") {
  check_cases("trace", trace_cases());
}

TEST_CASE("Every malformed scenario in the catalog gives its exit code and message", "[cli][bad-inputs]") {
  check_cases("scenario", scenario_cases());
}

TEST_CASE("Every bad command line in the catalog gives its exit code and message", "[cli][bad-inputs]") {
  check_cases("cli", command_line_cases());
}

TEST_CASE("A quoted user name with a comma survives a run: jobs.csv is valid CSV that stats reads", "[cli]") {
  const BadInput c{"", {{"t.csv", trace({row(1, "\"u,1\"")})}, {"s.yaml", kScenario}}, kRunTrace, 0, ""};
  REQUIRE(run_case("quoted-roundtrip", c).exit_code == 0);
  const fs::path out = scratch_dir() / "bad-inputs" / "quoted-roundtrip" / "out";
  const std::string jobs = slurp(out / "jobs.csv");
  CHECK(jobs.find("\n1,\"u,1\",1,8,") != std::string::npos);
  const BadInput stats{"", {}, fmt::format("stats '{}'", (out / "jobs.csv").string()), 0, ""};
  CHECK(run_case("quoted-stats", stats).exit_code == 0);
}
