#include "tools/sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <boost/math/distributions/students_t.hpp>
#include <charconv>
#include <chrono>
#include <cmath>
#include <filesystem>

#include "io/eval_cluster_config.hpp"
#include "io/output_file.hpp"
#include "io/outputs.hpp"
#include "sim/core/error.hpp"
#include "sim/core/fingerprint.hpp"
#include "sim/metrics/summary.hpp"
#include "sim/run/simulation.hpp"
#include "tools/eval_cluster.hpp"

namespace acmesim {

namespace {

namespace fs = std::filesystem;

/// How much longer than fifo a scheduler's run takes on the same trace, roughly (whole runs on the
/// generated Seren month, docs/performance.md): only the order runs are handed out depends on it.
double scheduler_weight(const std::string& scheduler) {
  if (scheduler == "conservative-backfill") return 5;
  if (scheduler == "easy-backfill" || scheduler == "slurm") return 2;
  return 1;
}

/// A number for a terminal table: whole from 100 on (no exponents), else `digits` significant.
std::string shown_number(double v, int digits) {
  if (std::abs(v) >= 100) return fmt::format("{:.0f}", v);
  return fmt::format("{:.{}g}", v, digits);
}

std::string run_folder(RunKey key) { return fmt::format("{}-s{}", key.point, key.seed); }

/// DIR/scenarios/ID.yaml: the resolved scenario a results.csv row's scenario_id names. Written
/// once per id (runs that resolve alike share it).
void write_scenario_file(const std::string& out, const Provenance& provenance) {
  const fs::path dir = fs::path(out) / "scenarios";
  const fs::path path = dir / (provenance.scenario_id() + ".yaml");
  std::error_code ec;
  if (fs::exists(path, ec)) return;
  fs::create_directories(dir, ec);
  if (ec) throw InputError(fmt::format("{}: cannot create the folder ({})", dir.string(), ec.message()));
  OutputFile file{path.string()};
  file.write(provenance.scenario_yaml);
  file.close();
}

}  // namespace

SweepRuns::SweepRuns(SweepFile sweep, const Catalog& catalog)
    : sweep_{std::move(sweep)}, catalog_{catalog}, points_{sweep_points(sweep_)} {
  validate_sweep(sweep_, points_, catalog_);
}

std::vector<RunKey> SweepRuns::all_runs() const {
  std::vector<RunKey> runs;
  runs.reserve(points_.size() * sweep_.seeds.size());
  for (const SweepPoint& p : points_) {
    for (const std::uint64_t seed : sweep_.seeds) runs.push_back(RunKey{p.id, seed});
  }
  return runs;
}

std::string SweepRuns::plan_hash() const {
  Fingerprint f;
  f.add_text(plan_text());
  return f.hex();
}

Scenario SweepRuns::scenario_of(RunKey key) const {
  const std::lock_guard lock{parse_mutex_};
  if (sweep_.kind == SweepKind::EvalCluster) return sweep_eval_config(sweep_, points_.at(key.point), key.seed).scenario;
  return sweep_scenario(sweep_, points_.at(key.point), key.seed);
}

const std::vector<std::string>& SweepRuns::metric_names() const {
  static const std::vector<std::string> eval_metrics{
      "checkpoints",         "latency_mean_min", "latency_median_min", "latency_p95_min", "latency_max_min",
      "first_wait_mean_min", "eval_gpu_hours",   "all_gpu_hours",      "events",          "fingerprint"};
  return sweep_.kind == SweepKind::EvalCluster ? eval_metrics : run_metric_names();
}

const Trace& SweepRuns::trace_of(const Scenario& scenario) const {
  return traces_.at({scenario.trace_path, scenario.skip_bad_rows});
}

void SweepRuns::read_traces(const std::vector<RunKey>& runs, spdlog::logger& log) {
  for (const RunKey& key : runs) {  // by run, not by point: a trace can differ per seed ("{seed}")
    const Scenario scenario = scenario_of(key);
    const std::pair<std::string, bool> id{scenario.trace_path, scenario.skip_bad_rows};
    auto found = traces_.find(id);
    if (found == traces_.end()) {
      const auto start = std::chrono::steady_clock::now();
      Trace trace = read_acme_trace(scenario.trace_path, TraceReadOptions{scenario.skip_bad_rows});
      log.info("read {} jobs from {} in {:.2f}s", trace.jobs.size(), trace.path,
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      if (trace.rows_skipped > 0) log.warn("skipped {} bad rows of {}", trace.rows_skipped, trace.path);
      found = traces_.emplace(id, std::move(trace)).first;
    }
    costs_[key] = static_cast<double>(found->second.jobs.size()) * scheduler_weight(scenario.scheduler.name());
  }
}

double SweepRuns::expected_cost(RunKey key) const { return costs_.at(key); }

std::vector<const Trace*> SweepRuns::traces() const {
  std::vector<const Trace*> read;
  for (const auto& [id, trace] : traces_) read.push_back(&trace);
  return read;
}

std::string SweepRuns::run(RunKey key, const std::string& out) const {
  return sweep_.kind == SweepKind::EvalCluster ? run_eval_cluster(key) : run_scenario(key, out);
}

std::string SweepRuns::run_eval_cluster(RunKey key) const {
  EvalClusterConfig config;
  {
    const std::lock_guard lock{parse_mutex_};
    config = sweep_eval_config(sweep_, points_.at(key.point), key.seed);
  }
  const Trace& trace = trace_of(config.scenario);
  const EvalClusterPolicyResult r = eval_cluster_run(config, trace, config.policies.front(), catalog_);
  const EvalLatency l = eval_latency(r);
  return sweep_result_row(
      points_.at(key.point), key.seed,
      fmt::format(",{},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{},{}", l.checkpoints, l.mean, l.median, l.p95,
                  l.max, l.first_wait_mean, static_cast<double>(r.eval_gpu_ms) / 3.6e6,
                  static_cast<double>(r.all_gpu_ms) / 3.6e6, r.events, r.fingerprint));
}

std::string SweepRuns::run_scenario(RunKey key, const std::string& out) const {
  Scenario scenario;
  Policies policies;
  Provenance provenance;
  {
    const std::lock_guard lock{parse_mutex_};
    const std::vector<ScenarioOverride> overrides = run_overrides(sweep_, points_.at(key.point), key.seed);
    scenario = parse_scenario_at(sweep_.base_name, sweep_.base_text, sweep_.base_within, overrides);
    policies = make_policies(scenario, catalog_);
    provenance.command_line = command_line_;
    for (const ScenarioOverride& o : overrides) provenance.overrides.push_back(o.key + "=" + o.value);
    provenance.scenario_yaml = resolved_scenario_yaml(scenario, catalog_);
  }
  const Trace& trace = trace_of(scenario);
  Simulation simulation{scenario.cluster, trace.jobs, std::move(policies), simulation_options(scenario, trace)};
  const RunResult result = simulation.run();
  const RunSummary summary = summarize(trace.jobs, result, scenario.cluster.gpu_nodes * scenario.cluster.gpus_per_node);
  if (sweep_.keep.any()) {
    write_outputs((fs::path(out) / "runs" / run_folder(key)).string(), provenance, scenario, trace, result, summary, {},
                  sweep_.keep);
  }
  {
    const std::lock_guard lock{parse_mutex_};  // two runs may resolve alike: one writer at a time
    write_scenario_file(out, provenance);
  }
  return sweep_result_row(points_.at(key.point), key.seed, run_metric_cells(summary, result, provenance.scenario_id()));
}

void RunQueue::push(RunKey key) {
  {
    const std::lock_guard lock{mutex_};
    runs_.push_back(key);
  }
  ready_.notify_one();
}

void RunQueue::close() {
  {
    const std::lock_guard lock{mutex_};
    closed_ = true;
  }
  ready_.notify_all();
}

std::optional<RunKey> RunQueue::pop() {
  std::unique_lock lock{mutex_};
  ready_.wait(lock, [this] { return closed_ || !runs_.empty(); });
  if (runs_.empty()) return std::nullopt;
  const RunKey key = runs_.front();
  runs_.pop_front();
  return key;
}

std::optional<RunKey> RunQueue::try_pop() {
  const std::lock_guard lock{mutex_};
  if (runs_.empty()) return std::nullopt;
  const RunKey key = runs_.front();
  runs_.pop_front();
  return key;
}

RunPool::RunPool(const SweepRuns& runs, std::string out, unsigned threads, RunQueue& queue, Done done)
    : errors_(std::max(threads, 1U)) {
  for (unsigned t = 0; t < std::max(threads, 1U); ++t) {
    threads_.emplace_back([&runs, out, &queue, done, this, t] {
      try {
        while (const std::optional<RunKey> key = queue.pop()) done(*key, runs.run(*key, out));
      } catch (...) {
        errors_[t] = std::current_exception();
        failed_ = true;
        // The others stop after their current run: nothing more is taken.
        while (queue.try_pop()) {
        }
        queue.close();
      }
    });
  }
}

RunPool::~RunPool() {
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
}

void RunPool::join() {
  for (std::thread& t : threads_) t.join();
  for (const std::exception_ptr& e : errors_) {
    if (e) std::rethrow_exception(e);
  }
}

SweepReport run_sweep(SweepRuns& runs, const SweepOptions& options, RemoteWorkers* remote, spdlog::logger& log) {
  SweepJournal journal{options.out, runs.plan_hash()};
  {
    OutputFile plan{(fs::path(options.out) / "plan.txt").string()};
    plan.write(runs.plan_text());
    plan.close();
  }
  SweepReport report;
  const std::vector<RunKey> all = runs.all_runs();
  report.runs = all.size();
  report.resumed = journal.rows().size();
  report.dropped = journal.dropped();
  std::vector<RunKey> todo;
  for (const RunKey& key : all) {
    if (!journal.rows().count(key)) todo.push_back(key);
  }
  if (report.resumed > 0) {
    log.info("{}: {} of {} runs already done{}, {} to run", options.out, report.resumed, all.size(),
             report.dropped ? fmt::format(" ({} torn journal line dropped)", report.dropped) : "", todo.size());
  }
  if (!todo.empty() || remote) {  // the other ranks wait to be told there is nothing to do
    runs.read_traces(todo, log);
    if (!todo.empty()) {
      OutputFile provenance{(fs::path(options.out) / "provenance.json").string()};
      provenance.write(provenance_json(runs.command_line(), {}, runs.traces()));
      provenance.close();
    }
    // Longest first: the last runs to finish are short ones, so no thread or rank idles long at the end.
    std::vector<std::pair<double, RunKey>> costed;
    for (const RunKey& key : todo) costed.emplace_back(runs.expected_cost(key), key);
    std::stable_sort(costed.begin(), costed.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    RunQueue queue;
    for (const auto& [cost, key] : costed) queue.push(key);
    queue.close();

    std::mutex mutex;
    std::condition_variable finished;
    std::size_t done_now = 0;
    const RunPool::Done done = [&](RunKey key, std::string row) {
      journal.append(key, row);  // committed before it counts
      {
        const std::lock_guard lock{mutex};
        ++done_now;
      }
      finished.notify_one();
    };
    unsigned threads = options.threads ? options.threads : std::max(1U, std::thread::hardware_concurrency());
    threads = static_cast<unsigned>(std::min<std::size_t>(threads, todo.size()));
    RunPool pool{runs, options.out, threads, queue, done};
    std::size_t reported = 0;
    for (;;) {
      if (remote) remote->serve([&queue] { return queue.try_pop(); }, done);
      std::size_t now = 0;
      {
        std::unique_lock lock{mutex};
        // Under MPI the coordinator also polls the other ranks, so it waits briefly.
        finished.wait_for(lock, remote ? std::chrono::milliseconds(1) : std::chrono::milliseconds(250),
                          [&] { return done_now != reported; });
        now = done_now;
      }
      if (now != reported) {
        reported = now;
        if (options.on_progress) options.on_progress(report.resumed + now, all.size(), now);
      }
      if (now == todo.size() && (!remote || remote->finished())) break;
      if (pool.failed()) break;  // join() rethrows the run's error
    }
    pool.join();
    report.ran = todo.size();
  }
  write_sweep_results(options.out, runs.sweep(), runs.metric_names(), journal.rows());
  return report;
}

MetricSummary summarize_metric(const std::vector<double>& values) {
  MetricSummary s;
  s.n = values.size();
  if (s.n == 0) return s;
  double sum = 0;
  for (const double v : values) sum += v;
  s.mean = sum / static_cast<double>(s.n);
  if (s.n < 2) return s;
  double squares = 0;
  for (const double v : values) squares += (v - s.mean) * (v - s.mean);
  s.sd = std::sqrt(squares / static_cast<double>(s.n - 1));
  const boost::math::students_t t{static_cast<double>(s.n - 1)};
  const double half =
      boost::math::quantile(boost::math::complement(t, 0.025)) * s.sd / std::sqrt(static_cast<double>(s.n));
  s.ci_low = s.mean - half;
  s.ci_high = s.mean + half;
  return s;
}

std::string summarize_sweep(const std::string& dir, const std::vector<std::string>& shown) {
  const std::string path = (fs::path(dir) / "results.csv").string();
  const ResultsTable table = read_sweep_results(path);
  const std::size_t seed_column =
      static_cast<std::size_t>(std::find(table.header.begin(), table.header.end(), "seed") - table.header.begin());
  // A metric is a column after `seed` whose cells are numbers (the fingerprint is not).
  std::vector<std::size_t> metrics;
  for (std::size_t c = seed_column + 1; c < table.header.size(); ++c) {
    const bool numeric = std::all_of(table.rows.begin(), table.rows.end(), [c](const auto& row) {
      double v = 0;
      const std::string& cell = row[c];
      const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
      return cell.empty() || (ec == std::errc{} && end == cell.data() + cell.size());
    });
    if (numeric) metrics.push_back(c);
  }
  std::vector<std::string> metric_names;
  for (const std::size_t c : metrics) metric_names.push_back(table.header[c]);
  std::vector<std::size_t> shown_columns;
  const std::vector<std::string> defaults{"all_queue_mean_s", "pretrain_queue_mean_s", "eval_queue_mean_s",
                                          "all_jct_mean_s", "gpu_allocation_ratio"};
  for (const std::string& name : shown.empty() ? defaults : shown) {
    const auto at = std::find(metric_names.begin(), metric_names.end(), name);
    if (at == metric_names.end()) {
      if (shown.empty()) continue;
      throw unknown_name_error("--metrics", "metric", "metric of " + path, metric_names, name);
    }
    shown_columns.push_back(static_cast<std::size_t>(at - metric_names.begin()));
  }

  // Rows come sorted by point: each point is one run of consecutive rows.
  std::string csv = "point";
  for (std::size_t c = 1; c < seed_column; ++c) csv += "," + table.header[c];
  csv += ",metric,seeds,mean,sd,ci95_low,ci95_high\n";
  std::vector<std::vector<std::string>> pretty;
  std::vector<std::string> head{"point"};
  for (std::size_t c = 1; c < seed_column; ++c) head.push_back(table.header[c]);
  head.push_back("seeds");
  for (const std::size_t m : shown_columns) head.push_back(metric_names[m] + " (mean ± 95% CI)");
  pretty.push_back(head);
  for (std::size_t begin = 0; begin < table.rows.size();) {
    std::size_t end = begin;
    while (end < table.rows.size() && table.rows[end][0] == table.rows[begin][0]) ++end;
    std::string key;
    for (std::size_t c = 0; c < seed_column; ++c) {
      if (c) key += ',';
      const std::string& cell = table.rows[begin][c];
      key += cell.find_first_of(",\"") == std::string::npos ? cell : fmt::format("\"{}\"", cell);
    }
    std::vector<std::string> line(table.rows[begin].begin(),
                                  table.rows[begin].begin() + static_cast<std::ptrdiff_t>(seed_column));
    line.push_back(std::to_string(end - begin));
    std::vector<MetricSummary> summaries;
    for (const std::size_t c : metrics) {
      std::vector<double> values;
      for (std::size_t r = begin; r < end; ++r) {
        const std::string& cell = table.rows[r][c];
        if (cell.empty()) continue;
        double v = 0;
        std::from_chars(cell.data(), cell.data() + cell.size(), v);
        values.push_back(v);
      }
      const MetricSummary s = summarize_metric(values);
      summaries.push_back(s);
      const auto number = [](double v) { return fmt::format("{:.10g}", v); };
      csv += fmt::format("{},{},{},{},{},{},{}\n", key, table.header[c], s.n, s.n ? number(s.mean) : "",
                         s.n >= 2 ? number(s.sd) : "", s.n >= 2 ? number(s.ci_low) : "",
                         s.n >= 2 ? number(s.ci_high) : "");
    }
    for (const std::size_t m : shown_columns) {
      const MetricSummary& s = summaries[m];
      line.push_back(s.n == 0  ? "-"
                     : s.n < 2 ? shown_number(s.mean, 4)
                               : shown_number(s.mean, 4) + " ± " + shown_number((s.ci_high - s.ci_low) / 2, 2));
    }
    pretty.push_back(line);
    begin = end;
  }
  OutputFile file{(fs::path(dir) / "summary.csv").string()};
  file.write(csv);
  file.close();

  return aligned_table(pretty);
}

std::string aligned_table(const std::vector<std::vector<std::string>>& rows) {
  // Display width: UTF-8 lead bytes, so that '±' is one column.
  const auto shown_width = [](const std::string& cell) {
    return static_cast<std::size_t>(
        std::count_if(cell.begin(), cell.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
  };
  std::vector<std::size_t> width;
  for (const auto& row : rows) {
    if (row.size() > width.size()) width.resize(row.size(), 0);
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], shown_width(row[c]));
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      line += std::string(c ? 2 : 0, ' ') + row[c] + std::string(width[c] - shown_width(row[c]), ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + '\n';
  }
  return out;
}

}  // namespace acmesim
