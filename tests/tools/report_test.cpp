// `acmesim report`: reading output folders back (io/run_dir), the Vega specs and the page
// (io/report_html), the charts assembled from what was read (tools/report). The page in a real
// browser is tests/app/report_browser_test.sh.
#include "tools/report.hpp"

#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/reference.hpp"
#include "io/report_html.hpp"
#include "io/run_dir.hpp"
#include "sim/core/error.hpp"
#include "tests/support.hpp"
#include "tools/workload/trace_stats.hpp"

namespace {

namespace fs = std::filesystem;
using acmesim::testing::kSource;
using acmesim::testing::scratch_dir;
using acmesim::testing::slurp;
using Catch::Matchers::Contains;
using Json = nlohmann::json;

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

/// A fresh, empty folder for one test case.
fs::path fresh(const std::string& name) {
  const fs::path dir = scratch_dir() / "report" / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

const std::string kSummary = R"({
  "acmesim_version": "0.1.0", "complete": true,
  "scenario": {"name": "tiny", "seed": 3, "scheduler": "fifo", "cluster": {"nodes": 2, "gpus_per_node": 8}},
  "trace": {"path": "/traces/tiny.csv", "schema": "seren", "skipped_examples": []},
  "provenance": {"command_line": "acmesim run tiny.yaml", "overrides": ["cluster.nodes=2"]},
  "fingerprint": "abc", "jobs": {"total": 4, "ran": 3},
  "makespan_s": 86400, "gpu_allocation_ratio": 0.5,
  "overall": {"queue_s": {"mean": 10}, "jct_s": {"mean": 110}},
  "by_type": {
    "Eval": {"gpu_hours": {"total": 3, "COMPLETED": 2, "FAILED": 1, "TIMEOUT": 0}},
    "Pretrain": {"gpu_hours": {"total": 40, "COMPLETED": 30, "CANCELLED": 10}}},
  "failures": {"breakdown": {"failures": 3, "failed_gpu_hours": 6,
    "categories": {"Infrastructure": {"failures": 3, "share_of_failures": 1, "failed_gpu_hours": 6, "share_of_gpu_time": 1}},
    "reasons": {
      "NVLinkError": {"category": "Infrastructure", "failures": 1, "share_of_failures": 0.3333, "failed_gpu_hours": 1, "share_of_gpu_time": 0.1667},
      "CUDAError": {"category": "Infrastructure", "failures": 2, "share_of_failures": 0.6667, "failed_gpu_hours": 5, "share_of_gpu_time": 0.8333}}}}
})";

// Columns in another order than acmesim writes them, and one it does not write: read by name.
const std::string kTimeline =
    "queued_jobs,time,extra,elapsed_s,gpu_allocation,queued_jobs_Eval\n"
    "0,2023-07-01 00:00:00+08:00,x1,0,0.25,0\n"
    "2,2023-07-01 00:10:00+08:00,x2,600,0.5,2\n"
    "1,2023-07-01 00:20:00+08:00,x3,1200,0.75,1\n";

const std::string kJobs =
    "job_id,gpu_num,type,queue,jct,duration,outcome\n"
    "1,8,Pretrain,0,100,100,ran\n"
    "2,1,Eval,20,50,30,ran\n"
    "3,0,Other,5,10,5,ran\n"
    "4,8,Eval,,,,unstarted\n";

fs::path run_folder(const std::string& name) {
  const fs::path dir = fresh(name);
  write(dir / "summary.json", kSummary);
  write(dir / "timeline.csv", kTimeline);
  write(dir / "jobs.csv", kJobs);
  return dir;
}

/// Stands in for the Vega library where no browser runs the page.
fs::path fake_vega() {
  const fs::path file = scratch_dir() / "report" / "vega.min.js";
  write(file, "var vega = {};\n//# sourceMappingURL=vega.min.js.map\n");
  return file;
}

Json spec_of(const acmesim::Chart& chart) { return Json::parse(acmesim::vega_spec(chart)); }

const Json& named(const Json& list, const std::string& name) {
  for (const Json& item : list) {
    if (item.value("name", "") == name) return item;
  }
  FAIL("no item named " << name);
  return list;
}

std::shared_ptr<spdlog::logger> quiet_logger() {
  return std::make_shared<spdlog::logger>("report-test", std::make_shared<spdlog::sinks::null_sink_mt>());
}

}  // namespace

using namespace acmesim;

TEST_CASE("The report refuses a run directory without summary.json, naming its path and what it holds", "[report]") {
  const fs::path dir = fresh("no-summary");
  write(dir / "jobs.csv", kJobs);
  write(dir / "timeline.csv", kTimeline);
  CHECK_THROWS_AS(detect_output_dir(dir.string()), InputError);
  CHECK_THROWS_WITH(detect_output_dir(dir.string()),
                    Contains(dir.string() + ": report folder: expected a run folder with summary.json") &&
                        Contains("the run did not finish") && Contains("found 'jobs.csv, timeline.csv'"));
  CHECK_THROWS_WITH(load_run_dir(dir.string()), Contains(dir.string()) && Contains("summary.json"));
}

TEST_CASE("The report refuses a missing path, a file and a folder of none of its kinds, naming each", "[report]") {
  const fs::path dir = fresh("not-output");
  CHECK_THROWS_WITH(detect_output_dir((dir / "absent").string()),
                    Contains((dir / "absent").string() + ": report folder: expected a run folder (summary.json), a "
                                                         "compare folder (compare.csv) or a sweep folder") &&
                        Contains("found 'no such file or directory'"));
  write(dir / "notes.txt", "hello");
  CHECK_THROWS_WITH(detect_output_dir((dir / "notes.txt").string()), Contains("found 'a file'"));
  fs::create_directories(dir / "sub");
  CHECK_THROWS_WITH(detect_output_dir(dir.string()), Contains("found 'notes.txt, sub/'"));
  CHECK_THROWS_WITH(detect_output_dir(fresh("empty").string()), Contains("found 'an empty folder'"));
  // A sweep whose summary was never written: says how to write it.
  const fs::path sweep = fresh("sweep-no-summary");
  write(sweep / "results.csv", "point,seed\n");
  CHECK_THROWS_WITH(detect_output_dir(sweep.string()), Contains("acmesim sweep --summarize DIR"));
}

TEST_CASE("The report tells a run, a compare and a sweep folder apart by their files", "[report]") {
  CHECK(detect_output_dir(run_folder("kind-run").string()) == OutputDirKind::Run);
  const fs::path compare = fresh("kind-compare");
  write(compare / "compare.csv", "scheduler,placement,type,jobs\n");
  CHECK(detect_output_dir(compare.string()) == OutputDirKind::Compare);
  const fs::path sweep = fresh("kind-sweep");
  write(sweep / "summary.csv", "point,metric,seeds,mean,sd,ci95_low,ci95_high\n");
  CHECK(detect_output_dir(sweep.string()) == OutputDirKind::Sweep);
  // A compare folder holding per-variant run folders: those are found, sorted.
  run_folder("kind-compare-runs/b");
  run_folder("kind-compare-runs/a");
  fs::create_directories(scratch_dir() / "report" / "kind-compare-runs" / "not-a-run");
  const std::vector<std::string> runs = run_dirs_in((scratch_dir() / "report" / "kind-compare-runs").string());
  REQUIRE(runs.size() == 2);
  CHECK(fs::path(runs[0]).filename() == "a");
  CHECK(fs::path(runs[1]).filename() == "b");
}

TEST_CASE("The report reads a run folder's columns by header name and keeps only the jobs that started", "[report]") {
  const RunDir run = load_run_dir(run_folder("read-run").string());
  REQUIRE(run.timeline);
  const std::vector<double>* queued = run.timeline->column("queued_jobs");
  const std::vector<double>* eval = run.timeline->column("queued_jobs_Eval");
  const std::vector<double>* elapsed = run.timeline->column("elapsed_s");
  REQUIRE(queued);
  REQUIRE(eval);
  REQUIRE(elapsed);
  CHECK(*queued == std::vector<double>{0, 2, 1});
  CHECK(*eval == std::vector<double>{0, 2, 1});
  CHECK(*elapsed == std::vector<double>{0, 600, 1200});
  CHECK(run.timeline->column("time") == nullptr);   // text, kept apart
  CHECK(run.timeline->column("extra") == nullptr);  // text a newer acmesim might write: left out
  CHECK(run.timeline->times.back() == "2023-07-01 00:20:00+08:00");
  REQUIRE(run.jobs);
  REQUIRE(run.jobs->size() == 3);  // the unstarted job has no queueing delay
  CHECK(run.jobs->at(1).type == "Eval");
  CHECK(run.jobs->at(1).queue_s == 20);
  CHECK(run.jobs->at(1).jct_s == 50);
  CHECK(run.jobs->at(1).duration_s == 30);
  CHECK(run.jobs->at(1).gpus == 1);
}

TEST_CASE("The report reads summary.json's figures, GPU-hours by state, Table 3 rows and provenance", "[report]") {
  const RunSummaryFile s = load_run_dir(run_folder("read-summary").string()).summary;
  CHECK(s.scenario_name == "tiny");
  CHECK(s.cluster_gpus == 16);
  CHECK(s.jobs_total == 4);
  CHECK(s.gpu_allocation_ratio == 0.5);
  CHECK(s.queue_mean_s == 10);
  REQUIRE(s.gpu_hours.size() == 2);
  CHECK(s.gpu_hours[0].type == "Eval");
  // "total" sums the states: not a state.
  CHECK(s.gpu_hours[0].by_state ==
        std::vector<std::pair<std::string, double>>{{"COMPLETED", 2}, {"FAILED", 1}, {"TIMEOUT", 0}});
  // Table 3's layout: the category's row, then its reasons by failed GPU time, largest first.
  REQUIRE(s.failures.size() == 3);
  CHECK(s.failures[0].reason.empty());
  CHECK(s.failures[0].category == "Infrastructure");
  CHECK(s.failures[1].reason == "CUDAError");
  CHECK(s.failures[2].reason == "NVLinkError");
  // Any object, generically: provenance first, arrays of scalars as one value, empty ones named.
  REQUIRE(s.provenance.size() == 3);
  CHECK(s.provenance[0].key == "provenance");
  CHECK(s.provenance[0].children[1].key == "overrides");
  CHECK(s.provenance[0].children[1].value == "cluster.nodes=2");
  CHECK(s.provenance[1].children[3].key == "cluster");
  CHECK(s.provenance[1].children[3].children[0].value == "2");
  CHECK(s.provenance[2].children[2].value == "(none)");
}

TEST_CASE("The report refuses damaged run files, naming file, line and column", "[report]") {
  const fs::path dir = run_folder("damaged");
  write(dir / "timeline.csv", "time,elapsed_s,queued_jobs\n2023-07-01 00:00:00+08:00,later,1\n");
  CHECK_THROWS_WITH(load_run_dir(dir.string()),
                    Contains((dir / "timeline.csv").string() + ":2: elapsed_s: expected a number, found 'later'"));
  write(dir / "timeline.csv", kTimeline);
  write(dir / "jobs.csv", "job_id,gpu_num,type,queue,jct\n1,8,Eval,soon,10\n");
  CHECK_THROWS_WITH(load_run_dir(dir.string()),
                    Contains((dir / "jobs.csv").string() + ":2: queue: expected a number, found 'soon'"));
  write(dir / "jobs.csv", "job_id,gpu_num,type,jct\n");
  CHECK_THROWS_WITH(load_run_dir(dir.string()), Contains("jobs.csv:1: header") && Contains("no column 'queue'"));
  write(dir / "jobs.csv", kJobs);
  write(dir / "summary.json", "{\"scenario\": ");
  CHECK_THROWS_WITH(load_run_dir(dir.string()),
                    Contains((dir / "summary.json").string() + ": summary.json: expected the JSON summary"));
  write(dir / "summary.json", R"({"scenario": {}, "overall": {}, "makespan_s": "long"})");
  CHECK_THROWS_WITH(load_run_dir(dir.string()), Contains("makespan_s: expected a number, found 'long'"));
}

TEST_CASE("A report's CDF of 100,000 values has at most 200 points, keeps both ends and never falls", "[report]") {
  std::vector<double> values;
  for (int i = 0; i < 100000; ++i) values.push_back(1.0 + (i * 7919) % 100000);
  const auto points = cdf_points(values, 200);
  REQUIRE(points.size() <= 200);
  REQUIRE(points.size() >= 150);  // both halves were used
  CHECK(points.front() == std::pair<double, double>{1.0, 0.001});
  CHECK(points.back() == std::pair<double, double>{100000.0, 100.0});
  for (std::size_t i = 1; i < points.size(); ++i) {
    CHECK(points[i].first > points[i - 1].first);
    CHECK(points[i].second > points[i - 1].second);
  }
  // Few values: every distinct one, with the share at most it.
  CHECK(cdf_points({3, 1, 1, 2}, 200) == std::vector<std::pair<double, double>>{{1, 50}, {2, 75}, {3, 100}});
  CHECK(cdf_points({}, 200).empty());
}

TEST_CASE("The report's CDF spec holds its data inline on a log axis ticked at powers of ten, with the paper's circles",
          "[report]") {
  Chart chart;
  chart.title = "Queueing delay";
  chart.x_scale = AxisScale::Log;
  chart.y_max = 100;
  chart.series = {{"Eval", "#f58518"}};
  chart.rows = {{"Eval", 1, "", 40, {}, {}}, {"Eval", 3000, "", 100, {}, {}}};
  chart.markers = {{"Eval", 2, "", 56.8, {}, {}}};
  chart.markers_label = "Seren (paper)";
  const Json spec = spec_of(chart);
  CHECK(named(spec["data"], "rows")["values"] ==
        Json::parse(R"([{"s":"Eval","x":1,"y":40},{"s":"Eval","x":3000,"y":100}])"));
  CHECK(named(spec["data"], "markers")["values"].size() == 1);
  CHECK(named(spec["scales"], "x")["type"] == "log");
  CHECK(named(spec["scales"], "y")["domain"] == Json::array({0, 100}));
  CHECK(named(spec["scales"], "y")["zero"] == true);
  CHECK(spec["axes"][0]["values"] == Json::array({1, 10, 100, 1000, 10000}));
  CHECK(spec["legends"].size() == 1);  // one series: no colour legend, the circles' entry only
  CHECK(named(spec["scales"], "marker")["domain"] == Json::array({"Seren (paper)"}));
  const auto& marks = spec["marks"];
  CHECK(std::any_of(marks.begin(), marks.end(), [](const Json& m) { return m["type"] == "symbol"; }));
  // Numbers are cut to 5 significant digits.
  chart.rows[0].y = 1.0 / 3.0;
  CHECK(named(spec_of(chart)["data"], "rows")["values"][0]["y"] == 0.33333);
}

TEST_CASE("The report's stacked bars stack in legend order and grouped bars give each series its own place",
          "[report]") {
  Chart chart;
  chart.kind = ChartKind::StackedBars;
  chart.categories = {"Pretrain", "Eval"};
  chart.series = {{"COMPLETED", "green"}, {"FAILED", "red"}};
  chart.rows = {{"FAILED", 0, "Eval", 1, {}, {}}, {"COMPLETED", 0, "Eval", 2, {}, {}}};
  Json spec = spec_of(chart);
  const Json& rows = named(spec["data"], "rows");
  CHECK(rows["values"][0] == Json::parse(R"({"s":"FAILED","c":"Eval","y":1,"o":1})"));
  CHECK(rows["transform"][0]["type"] == "stack");
  CHECK(rows["transform"][0]["sort"]["field"] == "o");
  CHECK(named(spec["scales"], "x")["domain"] == Json::array({"Pretrain", "Eval"}));
  CHECK(named(spec["scales"], "colour")["range"] == Json::array({"green", "red"}));

  chart.kind = ChartKind::GroupedBars;
  spec = spec_of(chart);
  const Json& group = spec["marks"][0];
  CHECK(group["type"] == "group");
  CHECK(group["from"]["facet"]["groupby"] == "c");
  CHECK(group["scales"][0]["domain"] == Json::array({"COMPLETED", "FAILED"}));
}

TEST_CASE("The report page escapes names, keeps its data from closing the script and starts in 'loading'", "[report]") {
  ReportPage page;
  page.title = "run <b>&</b>";
  Chart chart;
  chart.title = "</script><script>alert(1)</script>";
  chart.series = {{"a", "red"}};
  chart.rows = {{"a", 1, "", 1, {}, {}}};
  page.sections.push_back({"Section", {"a note with <tags>"}, {chart}, {}, {}});
  const std::string html = report_html(page, "var vega = {}; var s = '</script>';");
  CHECK(html.find("<title>run &lt;b&gt;&amp;&lt;/b&gt;</title>") != std::string::npos);
  CHECK(html.find("a note with &lt;tags&gt;") != std::string::npos);
  CHECK(html.find("<\\/script><script>alert(1)<\\/script>") != std::string::npos);  // in the JSON
  CHECK(html.find("var s = '<\\/script>'") != std::string::npos);                   // in the library
  CHECK(html.find("<body data-report-status=\"loading\">") != std::string::npos);
  CHECK(html.find("window.onerror") < html.find("var vega"));  // set before the library runs
  CHECK(html.find("renderer: \"svg\"") != std::string::npos);
  CHECK(html.find("http") == std::string::npos);
  CHECK(html.find("src=") == std::string::npos);  // nothing loaded from elsewhere
}

TEST_CASE("The report refuses a missing Vega library and says to install libjs-vega", "[report]") {
  CHECK_THROWS_WITH(load_vega_library("/nonexistent/vega"),
                    Contains("/nonexistent/vega: --vega: expected the Vega library: Debian's libjs-vega (install "
                             "libjs-vega") &&
                        Contains("found 'no such file or directory'"));
  const fs::path empty = fresh("vega-empty");
  CHECK_THROWS_WITH(load_vega_library(empty.string()), Contains("found 'a folder without vega-util.min.js'"));
  // A bundled file is inlined as it is, its source-map comment dropped (the page loads nothing).
  CHECK(load_vega_library(fake_vega().string()) == "var vega = {};\n");
}

TEST_CASE("The report ties Debian's Vega modules into one script, in dependency order", "[report]") {
  if (!fs::is_directory(kDebianVegaPath)) {
    WARN("libjs-vega is not installed: nothing to tie together");
    return;
  }
  const std::string script = load_vega_library(kDebianVegaPath);
  const std::size_t util = script.find("acmesimVegaModules['vega-util'] = module.exports");
  const std::size_t view = script.find("acmesimVegaModules['vega-view'] = module.exports");
  REQUIRE(util != std::string::npos);
  REQUIRE(view != std::string::npos);
  CHECK(util < view);
  CHECK(script.find("acmesimVegaModules['vega-selections']") != std::string::npos);
  CHECK(script.find("sourceMappingURL") == std::string::npos);
  CHECK(script.size() > 300000);
}

TEST_CASE("The report takes the paper's per-type CDF points, or its quantiles when there is no CDF", "[report]") {
  const ReferenceRow seren = load_reference(kSource + "/configs/reference/seren.yaml", trace_stat_keys());
  const PaperCdfs paper = paper_cdfs(seren, "Seren");
  CHECK(paper.queue_figure == "AcmeTrace T5");
  const auto eval = std::find_if(paper.queue.begin(), paper.queue.end(),
                                 [](const PaperCdfs::TypeCdf& c) { return c.type == "Eval"; });
  REQUIRE(eval != paper.queue.end());
  CHECK_FALSE(eval->quantiles_only);
  CHECK(eval->points.front() == std::pair<double, double>{1, 47.6});
  CHECK(paper.duration.size() == 6);

  ReferenceRow quantiles;
  quantiles.values = {{"Debug.queue_p50", 3}, {"Debug.queue_p90", 120}, {"Debug.gpu_median", 1}};
  const PaperCdfs only = paper_cdfs(quantiles, "Kalos");
  CHECK(only.queue_figure == "AcmeTrace T7");
  REQUIRE(only.queue.size() == 1);
  CHECK(only.queue[0].quantiles_only);
  CHECK(only.queue[0].points == std::vector<std::pair<double, double>>{{3, 50}, {120, 90}});
  CHECK(only.duration.empty());
}

TEST_CASE("The report tells a Seren or Kalos run by its name, trace or GPU count", "[report]") {
  RunSummaryFile s;
  s.scenario_name = "default";
  s.trace_path = "/x/traces/seren_month.csv.gz";
  CHECK(paper_cluster_of(s) == "seren");
  s.trace_path = "kalos.csv";
  s.scenario_name = "Kalos-what-if";
  CHECK(paper_cluster_of(s) == "kalos");
  s.scenario_name = "mine";
  s.trace_path = "mine.csv";
  s.cluster_gpus = 2416;
  CHECK(paper_cluster_of(s) == "kalos");
  s.cluster_gpus = 64;
  CHECK(paper_cluster_of(s).empty());
}

TEST_CASE("The report of a run draws the timeline per type, per-type CDFs of GPU jobs and GPU-hours by state",
          "[report]") {
  const RunDir run = load_run_dir(run_folder("page-run").string());
  const ReportPage page = run_report({run}, {"page-run"}, std::nullopt);
  std::vector<const Chart*> charts;
  for (const Section& section : page.sections) {
    for (const Chart& chart : section.charts) charts.push_back(&chart);
  }
  const auto chart = [&](const std::string& title) -> const Chart& {
    for (const Chart* c : charts) {
      if (c->title == title) return *c;
    }
    FAIL("no chart " << title);
    return *charts.front();
  };
  REQUIRE(charts.size() == 6);  // allocation, queue, 3 CDFs, GPU-hours: no column for the others
  const Chart& queue = chart("Queue length");
  REQUIRE(queue.series.size() == 2);
  CHECK(queue.series[1].name == "Eval");
  CHECK(chart("GPU allocation").rows[1].y == 50);  // percent
  CHECK(chart("GPU allocation").rows[1].x == Approx(600.0 / 86400));
  // Two GPU jobs: the CPU job is not drawn; a 0 s delay is drawn at 1 s.
  const Chart& delay = chart("Queueing delay");
  CHECK(delay.rows.size() == 2);
  CHECK(delay.rows[0].series == "Pretrain");
  CHECK(delay.rows[0].x == 1);
  CHECK(delay.x_title.find("under 1 s drawn at 1 s") != std::string::npos);
  const Chart& hours = chart("GPU-hours by job type and final state");
  CHECK(hours.categories == std::vector<std::string>{"Pretrain", "Eval"});  // the paper's order
  CHECK(hours.rows.size() == 4);                                            // zero-hour states left out
  // Failures in Table 3's layout, then a total row.
  const auto failures =
      std::find_if(page.sections.begin(), page.sections.end(), [](const Section& s) { return s.title == "Failures"; });
  REQUIRE(failures != page.sections.end());
  REQUIRE(failures->tables.at(0).rows.size() == 4);
  CHECK(failures->tables[0].rows[3].cells[0] == "total");
  CHECK(failures->tables[0].rows[3].cells[4] == "6.0");
}

TEST_CASE("The report of a Seren run puts the paper's circles on the queueing and run-time CDFs and says which",
          "[report]") {
  const RunDir run = load_run_dir(run_folder("page-paper").string());
  const PaperCdfs paper =
      paper_cdfs(load_reference(kSource + "/configs/reference/seren.yaml", trace_stat_keys()), "Seren");
  const ReportPage page = run_report({run}, {"page-paper"}, paper);
  const Section& cdfs = page.sections[2];
  REQUIRE(cdfs.charts.size() == 3);
  CHECK_FALSE(cdfs.charts[0].markers.empty());
  CHECK(cdfs.charts[0].caption.find("Seren CDF points (AcmeTrace T5) for Pretrain, Eval") != std::string::npos);
  CHECK(cdfs.charts[1].markers.empty());  // the paper has no JCT CDF
  CHECK(cdfs.charts[2].caption.find("AcmeTrace T4") != std::string::npos);
  // Only the run's types: no circles for SFT, MLLM, Debug or Other.
  for (const ChartRow& marker : cdfs.charts[0].markers) CHECK((marker.series == "Pretrain" || marker.series == "Eval"));
}

TEST_CASE("The report of a sweep draws each metric against each axis, one line per other-axis value, band clipped",
          "[report]") {
  SweepSummary sweep;
  sweep.path = "out/s";
  sweep.axes = {"cluster.nodes", "scheduler"};
  for (const char* nodes : {"286", "200"}) {
    for (const char* scheduler : {"fifo", "sjf"}) {
      sweep.rows.push_back({{nodes, scheduler}, "all_queue_mean_s", 2, 100, -50, 250});
      sweep.rows.push_back({{nodes, scheduler}, "ettr", 2, 0.9, 0.7, 1.1});
      sweep.rows.push_back({{nodes, scheduler}, "pretrain_ettr", 2, std::nullopt, std::nullopt, std::nullopt});
    }
  }
  CHECK(default_sweep_metrics(sweep) == std::vector<std::string>{"all_queue_mean_s", "ettr"});
  const ReportPage page = sweep_report(sweep, {"all_queue_mean_s", "ettr"});
  REQUIRE(page.sections.size() == 3);
  const Section& queue = page.sections[1];
  REQUIRE(queue.charts.size() == 2);
  const Chart& by_nodes = queue.charts[0];
  CHECK(by_nodes.x_scale == AxisScale::Linear);
  CHECK_FALSE(by_nodes.y_from_zero);
  REQUIRE(by_nodes.series.size() == 2);
  CHECK(by_nodes.series[0].name == "scheduler=fifo");
  CHECK(by_nodes.rows.front().x == 200);  // along the axis, whatever the file's order
  CHECK(by_nodes.rows.front().low == 0);  // a mean delay is never negative
  CHECK(by_nodes.rows.front().high == 250);
  const Chart& by_scheduler = queue.charts[1];
  CHECK(by_scheduler.x_scale == AxisScale::Categorical);
  CHECK(by_scheduler.categories == std::vector<std::string>{"fifo", "sjf"});
  CHECK(page.sections[2].charts[0].rows[0].high == 1);  // a ratio's band ends at 1
  CHECK_THROWS_WITH(sweep_report(sweep, {"all_queue_men_s"}),
                    Contains("--metrics") && Contains("did you mean 'all_queue_mean_s'"));
}

TEST_CASE("The report of a compare folder draws compare.csv as grouped bars per variant, run-wide figures once",
          "[report]") {
  const fs::path dir = fresh("compare");
  write(dir / "compare.csv",
        "scheduler,placement,type,jobs,queue_mean_s,gpu_allocation_ratio,fingerprint\n"
        "fifo,pack,Eval,5,10.5,0.4,ab\nfifo,pack,all,6,9,0.4,ab\n"
        "sjf,pack,Eval,5,2,0.41,cd\nsjf,pack,all,6,1.5,0.41,cd\n");
  const CompareTable table = load_compare_dir(dir.string());
  CHECK(table.metrics == std::vector<std::string>{"jobs", "queue_mean_s", "gpu_allocation_ratio"});
  const Section section = compare_section(table, {"queue_mean_s", "gpu_allocation_ratio"});
  REQUIRE(section.charts.size() == 2);
  CHECK(section.charts[0].kind == ChartKind::GroupedBars);
  CHECK(section.charts[0].categories == std::vector<std::string>{"all", "Eval"});
  CHECK(section.charts[0].series[1].name == "sjf + pack");
  CHECK(section.charts[1].categories == std::vector<std::string>{"fifo + pack", "sjf + pack"});
  CHECK(section.charts[1].rows.size() == 2);
  CHECK(section.charts[1].rows[1].y == Approx(41));  // percent
  REQUIRE(section.tables.size() == 1);
  CHECK(section.tables[0].rows.size() == 2);
  CHECK_THROWS_WITH(compare_section(table, {"jct_mean_s"}), Contains("--metrics") && Contains("jct_mean_s"));
}

TEST_CASE("The report command writes DIR/report.html for one folder and wants -o for several", "[report]") {
  const fs::path dir = run_folder("command");
  fs::remove(dir / "report.html");
  const auto logger = quiet_logger();
  spdlog::logger& log = *logger;
  ReportArgs args;
  args.dirs = {dir.string()};
  args.vega = fake_vega().string();
  REQUIRE(run_report_command(args, kSource + "/configs/reference", log) == 0);
  const std::string html = slurp(dir / "report.html");
  CHECK(html.find("acmesim report: command") != std::string::npos);
  CHECK(html.find("var vega = {};") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / ".report.html.partial"));

  args.dirs = {dir.string(), run_folder("command-2").string()};
  CHECK_THROWS_WITH(run_report_command(args, kSource + "/configs/reference", log),
                    Contains("-o: expected the report's file name (required for several folders)"));
  args.out = (scratch_dir() / "report" / "two.html").string();
  REQUIRE(run_report_command(args, kSource + "/configs/reference", log) == 0);
  CHECK(slurp(args.out).find("acmesim report: 2 runs") != std::string::npos);

  // A sweep folder goes alone.
  const fs::path sweep = fresh("command-sweep");
  write(sweep / "summary.csv", "point,metric,seeds,mean,sd,ci95_low,ci95_high\n");
  args.dirs = {dir.string(), sweep.string()};
  CHECK_THROWS_WITH(run_report_command(args, kSource + "/configs/reference", log),
                    Contains(sweep.string() + ": report folder: expected run folders only") &&
                        Contains("found 'a sweep folder among 2 folders'"));
  args.dirs = {dir.string()};
  args.vega = "/nonexistent/vega";
  CHECK_THROWS_WITH(run_report_command(args, kSource + "/configs/reference", log), Contains("install libjs-vega"));
}

TEST_CASE("acmesim report exits 2 for a folder that holds no output, naming it", "[report][cli]") {
  const auto [dir, code] = acmesim::testing::run_command("report-not-output", "report .");
  CHECK(code == 2);
  CHECK_THAT(slurp(dir / "stderr.txt"),
             Contains("error: .: report folder: expected a run folder (summary.json), a compare folder") &&
                 Contains("found 'stderr.txt, stdout.txt'"));
}
