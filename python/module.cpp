/// The extension `_acmesim` behind `import acmesim` (python/acmesim/__init__.py). Each function does
/// what the command of its name does, with the same io/ and tools/ functions, and hands tables back
/// as columns: numpy arrays filled here while the GIL is released, and strings with few distinct
/// values as category codes, so pandas wraps them without parsing any text.
#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <sys/mman.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "io/acme_schema.hpp"
#include "io/acme_trace.hpp"
#include "io/outputs.hpp"
#include "io/reference.hpp"
#include "io/scenario.hpp"
#include "policies/catalog.hpp"
#include "sim/core/error.hpp"
#include "sim/metrics/failure_breakdown.hpp"
#include "sim/metrics/job_record.hpp"
#include "sim/metrics/summary.hpp"
#include "sim/run/simulation.hpp"
#include "tools/compare.hpp"
#include "tools/workload/generator.hpp"
#include "tools/workload/trace_stats.hpp"

#ifndef ACMESIM_CONFIG_DIR
#define ACMESIM_CONFIG_DIR "configs"
#endif

namespace py = pybind11;

namespace acmesim {

namespace {

/// Memory for the numeric columns of a table, carved from blocks of at least 32 MiB that ask the
/// kernel for huge pages. A million-row table is ~150 MiB: in 4 KiB pages, 40,000 page faults,
/// which took most of the time the columns took to fill (on a virtual machine each is a trap to
/// the hypervisor); in 2 MiB pages, 75. Each array keeps its block alive (its numpy base).
class ColumnMemory {
 public:
  /// `bytes` bytes, 64-byte aligned, and the object that owns them.
  std::pair<void*, py::object> take(std::size_t bytes) {
    bytes = round_up(std::max<std::size_t>(bytes, 1), 64);
    if (bytes > left_) {
      const std::size_t size = round_up(std::max(bytes, kMinBlockBytes), kHugePageBytes);
      void* block = std::aligned_alloc(kHugePageBytes, size);
      if (block == nullptr) throw std::bad_alloc();
      ::madvise(block, size, MADV_HUGEPAGE);  // advice: without huge pages the block works all the same
      owner_ = py::capsule(block, [](void* p) { std::free(p); });
      next_ = static_cast<std::byte*>(block);
      left_ = size;
    }
    void* taken = next_;
    next_ += bytes;
    left_ -= bytes;
    return {taken, owner_};
  }

 private:
  static constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;
  static constexpr std::size_t kMinBlockBytes = std::size_t{32} << 20;
  static std::size_t round_up(std::size_t n, std::size_t unit) { return (n + unit - 1) / unit * unit; }

  py::object owner_;
  std::byte* next_ = nullptr;
  std::size_t left_ = 0;
};

/// The columns of one table, in order, as a dict of name -> numpy array, or name -> (codes,
/// categories) for a categorical column. Arrays are allocated with the GIL held; the pointers
/// add() returns stay valid after it is released, so the values are written without it.
class Columns {
 public:
  explicit Columns(std::size_t rows) : rows_{static_cast<py::ssize_t>(rows)} {}

  template <class T>
  T* add(const char* name) {
    auto [array, data] = new_array<T>();
    columns_[name] = std::move(array);
    return data;
  }

  /// A datetime column: its place among the columns, and its values as seconds since SimTime 0
  /// (NaN: none) in times(), which Python turns into datetimes (see acmesim._frame).
  double* add_time(const char* name) {
    auto [array, data] = new_array<double>();
    columns_[name] = py::none();
    times_[name] = std::move(array);
    return data;
  }

  /// The seconds behind the datetime column `time_name`, also as the column `name`.
  void add_seconds_of(const char* name, const char* time_name) { columns_[name] = times_[time_name]; }

  /// Codes into `categories`; -1 stands for a missing value.
  template <class Code>
  Code* add_categorical(const char* name, const std::vector<std::string_view>& categories) {
    auto [codes, data] = new_array<Code>();
    py::list names;
    for (const std::string_view category : categories) names.append(py::str(category.data(), category.size()));
    columns_[name] = py::make_tuple(std::move(codes), std::move(names));
    return data;
  }

  /// A column of Python objects (numpy object array), each None until set_text() gives it a value.
  /// Given the name of a column added before, it takes that column's place.
  PyObject** add_objects(const char* name) {
    py::array array(py::dtype("O"), rows_);
    auto* slots = static_cast<PyObject**>(array.mutable_data());
    for (py::ssize_t i = 0; i < rows_; ++i) {
      Py_XDECREF(slots[i]);  // numpy starts an object array with None or with NULL
      Py_INCREF(Py_None);
      slots[i] = Py_None;
    }
    columns_[name] = std::move(array);
    return slots;
  }

  /// `text` as the str in `slot` of an add_objects() column; the GIL must be held.
  static void set_text(PyObject*& slot, std::string_view text) {
    PyObject* value = nullptr;
    if (std::all_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; })) {
      value = PyUnicode_New(std::ssize(text), 127);  // ASCII, the common case: a copy, no decoding
      if (value != nullptr) std::copy(text.begin(), text.end(), static_cast<char*>(PyUnicode_DATA(value)));
    } else {
      // Text is bytes as the trace had them: invalid UTF-8 becomes U+FFFD, as in summary.json.
      value = PyUnicode_DecodeUTF8(text.data(), std::ssize(text), "replace");
    }
    if (value == nullptr) throw py::error_already_set();
    Py_DECREF(slot);
    slot = value;
  }

  /// {"columns": name -> values, "times": name -> seconds}.
  py::dict dict() const {
    py::dict table;
    table["columns"] = columns_;
    table["times"] = times_;
    return table;
  }

 private:
  template <class T>
  std::pair<py::array_t<T>, T*> new_array() {
    if (rows_ < kManyRows) {  // small enough for numpy's own allocation: no 32 MiB block for a week's run
      py::array_t<T> array(rows_);
      T* data = array.mutable_data();
      return {std::move(array), data};
    }
    const auto [data, owner] = memory_.take(static_cast<std::size_t>(rows_) * sizeof(T));
    py::array_t<T> array(rows_, static_cast<T*>(data), owner);
    return {std::move(array), static_cast<T*>(data)};
  }

  static constexpr py::ssize_t kManyRows = 100'000;

  py::ssize_t rows_;
  py::dict columns_;
  py::dict times_;
  ColumnMemory memory_;
};

template <class Enum, std::size_t N>
std::vector<std::string_view> names_of(const std::array<Enum, N>& values) {
  std::vector<std::string_view> names;
  for (const Enum value : values) names.push_back(name(value));
  return names;
}

std::vector<std::string_view> user_names(const Trace& trace) { return {trace.users.begin(), trace.users.end()}; }

/// The failure reasons a job can end with, in enum order without None: category code = reason - 1.
std::vector<std::string_view> failure_reason_names() {
  std::vector<std::string_view> names;
  for (std::size_t r = 1; r < kFailureReasonCount; ++r) names.push_back(name(static_cast<FailureReason>(r)));
  return names;
}

constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();

double seconds_of(std::int64_t ms) { return static_cast<double>(ms) / 1000.0; }

/// `text` as an integer if it is one written plainly (no sign, leading zero or blank), as the number
/// pandas.read_csv would read and the same text again.
std::optional<std::int64_t> plain_integer(std::string_view text) {
  std::int64_t value = 0;
  if (text.empty() || (text[0] == '0' && text.size() > 1)) return std::nullopt;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

/// A new table with its job_id column, as jobs.csv's is read by pandas: integers when every id is a
/// plain integer (AcmeTrace's Seren ids and generated traces' are), else a str per job. Strings cost
/// a Python object each, most of the time the whole table takes.
Columns jobs_table(const Trace& trace) {
  Columns columns{trace.jobs.size()};
  std::int64_t* numbers = columns.add<std::int64_t>("job_id");
  bool all_numbers = true;
  {
    py::gil_scoped_release unlocked;
    for (std::size_t i = 0; i < trace.jobs.size() && all_numbers; ++i) {
      const std::optional<std::int64_t> number = plain_integer(trace.jobs[i].trace_id);
      all_numbers = number.has_value();
      if (number) numbers[i] = *number;
    }
  }
  if (!all_numbers) {
    PyObject** texts = columns.add_objects("job_id");
    for (std::size_t i = 0; i < trace.jobs.size(); ++i) Columns::set_text(texts[i], trace.jobs[i].trace_id);
  }
  return columns;
}

/// The columns of the trace's own schema, with which every jobs table starts, in its order (as
/// io/acme_schema.hpp lists them for the writers): Seren's 13, or Kalos's 17. fill() writes a
/// row once the GIL is released; the last columns, submit_s, start_s and end_s, come with
/// add_seconds_columns().
class TraceColumns {
 public:
  explicit TraceColumns(const Trace& trace) : columns{jobs_table(trace)} {
    for (const AcmeColumnInfo& info : kAcmeColumns) {
      if (!info.in(trace.schema)) continue;
      switch (info.column) {
        case kJobId:
          break;  // jobs_table()'s
        case kUser:
          user_ = columns.add_categorical<std::int32_t>(info.name, user_names(trace));
          break;
        case kNodeNum:
          nodes_ = columns.add<std::int32_t>(info.name);
          break;
        case kGpuNum:
          gpus_ = columns.add<std::int32_t>(info.name);
          break;
        case kCpuNum:
          cpus_ = columns.add<std::int32_t>(info.name);
          break;
        case kMemPerPod:
          memory_ = columns.add<std::int32_t>(info.name);
          break;
        case kSharedMem:
          shared_memory_ = columns.add<double>(info.name);
          break;
        case kType:
          type_ = columns.add_categorical<std::int8_t>(info.name, names_of(kJobTypes));
          break;
        case kState:
          state_ = columns.add_categorical<std::int8_t>(info.name, names_of(kFinalStates));
          break;
        case kSubmit:
          submit_ = columns.add_time(info.name);
          break;
        case kStart:
          start_ = columns.add_time(info.name);
          break;
        case kEnd:
          end_ = columns.add_time(info.name);
          break;
        case kFailTime:
          fail_ = columns.add_time(info.name);
          break;
        case kStopTime:
          stop_ = columns.add_time(info.name);
          break;
        case kDuration:
          duration_ = columns.add<double>(info.name);
          break;
        case kQueue:
          queue_ = columns.add<double>(info.name);
          break;
        case kGpuTime:
          gpu_time_ = columns.add<double>(info.name);
          break;
        case kAcmeColumnCount:
          break;
      }
    }
  }

  /// Row i from the job's record (a trace's recorded values for a generated trace).
  void fill(std::size_t i, const JobSpec& spec, const JobRecord& r) const {
    user_[i] = static_cast<std::int32_t>(spec.user.value());
    nodes_[i] = spec.demand.nodes;
    gpus_[i] = spec.demand.gpus;
    cpus_[i] = spec.demand.cpus;
    if (memory_ != nullptr) memory_[i] = spec.demand.mem_gib_per_node;
    if (shared_memory_ != nullptr) shared_memory_[i] = static_cast<double>(spec.demand.shared_mem_gb);
    type_[i] = static_cast<std::int8_t>(spec.type);
    state_[i] = static_cast<std::int8_t>(r.state);
    submit_[i] = seconds_of(r.submit_ms);
    const double none = kMissing;
    start_[i] = r.ran() ? seconds_of(r.start_ms) : none;
    end_[i] = r.ran() ? seconds_of(r.end_ms) : none;
    if (fail_ != nullptr) fail_[i] = has_fail_time(r.state) ? end_[i] : none;
    if (stop_ != nullptr) stop_[i] = has_stop_time(r.state) ? end_[i] : none;
    duration_[i] = r.ran() ? seconds_of(r.duration_ms) : none;
    queue_[i] = r.ran() ? seconds_of(r.queue_ms) : none;
    gpu_time_[i] = r.ran() ? seconds_of(r.gpu_time_ms) : none;
  }

  /// submit_s, start_s, end_s: jobs.csv's last columns, the seconds behind its times.
  void add_seconds_columns() {
    columns.add_seconds_of("submit_s", "submit_time");
    columns.add_seconds_of("start_s", "start_time");
    columns.add_seconds_of("end_s", "end_time");
  }

  Columns columns;

 private:
  std::int32_t* user_ = nullptr;
  std::int32_t* nodes_ = nullptr;
  std::int32_t* gpus_ = nullptr;
  std::int32_t* cpus_ = nullptr;
  std::int32_t* memory_ = nullptr;   // Kalos only
  double* shared_memory_ = nullptr;  // Kalos only
  std::int8_t* type_ = nullptr;
  std::int8_t* state_ = nullptr;
  double* submit_ = nullptr;
  double* start_ = nullptr;
  double* end_ = nullptr;
  double* fail_ = nullptr;  // Kalos only
  double* stop_ = nullptr;  // Kalos only
  double* duration_ = nullptr;
  double* queue_ = nullptr;
  double* gpu_time_ = nullptr;
};

/// jobs.csv as columns: the same names, in the same order, with the same values (job_record()'s),
/// unrounded; NaN (or None) where jobs.csv leaves a cell empty.
py::dict jobs_columns(const Trace& trace, const RunResult& result) {
  const std::size_t n = trace.jobs.size();
  TraceColumns table{trace};
  Columns& columns = table.columns;
  auto* jct = columns.add<double>("jct");
  auto* outcome = columns.add_categorical<std::int8_t>(
      "outcome", {name(RunOutcome::Ran), name(RunOutcome::Unschedulable), name(RunOutcome::Unstarted)});
  auto* attempts = columns.add<std::uint32_t>("attempts");
  auto* preemptions = columns.add<std::uint32_t>("preemptions");
  auto* failures = columns.add<std::uint32_t>("failures");
  auto* lost_gpu_time = columns.add<double>("lost_gpu_time");
  auto* overhead_gpu_time = columns.add<double>("overhead_gpu_time");
  auto* failure_reason = columns.add_categorical<std::int8_t>("failure_reason", failure_reason_names());
  PyObject** failure_log = columns.add_objects("failure_log");
  std::vector<std::size_t> with_failure_log;  // its str made once the GIL is back
  auto* checkpoint_gpu_time = columns.add<double>("checkpoint_gpu_time");
  auto* recovery_wait = columns.add<double>("recovery_wait");
  auto* manual_interventions = columns.add<std::uint32_t>("manual_interventions");
  auto* ettr = columns.add<double>("ettr");
  auto* switch_groups = columns.add<std::uint16_t>("switch_groups");
  auto* wait = columns.add<double>("wait");
  auto* slowdown = columns.add<double>("slowdown");
  table.add_seconds_columns();
  {
    py::gil_scoped_release unlocked;
    for (std::size_t i = 0; i < n; ++i) {
      const JobSpec& spec = trace.jobs[i];
      const JobRecord r = job_record(spec, result.jobs[i]);
      table.fill(i, spec, r);
      outcome[i] = static_cast<std::int8_t>(r.outcome);
      // A job that never ran: its counters are 0, its times and ratios empty, as in jobs.csv.
      const double nan_unless_ran = r.ran() ? 0.0 : kMissing;
      jct[i] = seconds_of(r.jct_ms) + nan_unless_ran;
      attempts[i] = r.attempts;
      preemptions[i] = r.preemptions;
      failures[i] = r.failures;
      lost_gpu_time[i] = seconds_of(r.lost_gpu_time_ms);
      overhead_gpu_time[i] = seconds_of(r.overhead_gpu_time_ms);
      failure_reason[i] = static_cast<std::int8_t>(static_cast<int>(r.failure_reason) - 1);  // None -> -1
      if (!result.jobs[i].failure_log.empty()) with_failure_log.push_back(i);
      checkpoint_gpu_time[i] = seconds_of(r.checkpoint_gpu_time_ms);
      recovery_wait[i] = seconds_of(r.recovery_wait_ms);
      manual_interventions[i] = r.manual_interventions;
      ettr[i] = r.ettr + nan_unless_ran;
      switch_groups[i] = r.switch_groups;
      wait[i] = seconds_of(r.wait_ms) + nan_unless_ran;
      slowdown[i] = r.slowdown + nan_unless_ran;
    }
  }
  for (const std::size_t i : with_failure_log) Columns::set_text(failure_log[i], failure_log_cell(result.jobs[i]));
  return columns.dict();
}

/// timeline.csv as columns, in its order.
py::dict timeline_columns(const RunResult& result, int total_gpus) {
  Columns columns{result.timeline.size()};
  auto* time = columns.add_time("time");
  auto* elapsed = columns.add<double>("elapsed_s");
  auto* allocated_gpus = columns.add<std::int32_t>("allocated_gpus");
  auto* gpu_allocation = columns.add<double>("gpu_allocation");
  auto* allocated_cpus = columns.add<std::int32_t>("allocated_cpus");
  auto* running = columns.add<std::uint32_t>("running_jobs");
  auto* queued = columns.add<std::uint32_t>("queued_jobs");
  auto* queued_gpus = columns.add<std::int64_t>("queued_gpus");
  auto* down_nodes = columns.add<std::int32_t>("down_nodes");
  std::array<std::uint32_t*, kJobTypeCount> queued_of_type{};
  std::array<std::int64_t*, kJobTypeCount> queued_gpus_of_type{};
  for (const JobType type : kJobTypes) {
    const auto t = static_cast<std::size_t>(type);
    queued_of_type[t] = columns.add<std::uint32_t>(fmt::format("queued_jobs_{}", name(type)).c_str());
  }
  for (const JobType type : kJobTypes) {
    const auto t = static_cast<std::size_t>(type);
    queued_gpus_of_type[t] = columns.add<std::int64_t>(fmt::format("queued_gpus_{}", name(type)).c_str());
  }
  {
    py::gil_scoped_release unlocked;
    for (std::size_t i = 0; i < result.timeline.size(); ++i) {
      const TimelineSample& s = result.timeline[i];
      time[i] = seconds_of(s.at.time_since_epoch().count());
      elapsed[i] = seconds_of((s.at - result.first_submit).count());
      allocated_gpus[i] = s.allocated_gpus;
      gpu_allocation[i] = total_gpus > 0 ? static_cast<double>(s.allocated_gpus) / total_gpus : 0.0;
      allocated_cpus[i] = s.allocated_cpus;
      running[i] = s.running;
      queued[i] = s.queued;
      queued_gpus[i] = s.queued_gpus();
      down_nodes[i] = s.down_nodes;
      for (std::size_t t = 0; t < kJobTypeCount; ++t) {
        queued_of_type[t][i] = s.queued_by_type[t].jobs;
        queued_gpus_of_type[t][i] = s.queued_by_type[t].gpus;
      }
    }
  }
  return columns.dict();
}

/// A finished run, kept until Python has taken its tables from it.
struct FinishedRun {
  Scenario scenario;
  Provenance provenance;
  Trace trace;
  RunResult result;
  RunSummary summary;

  int total_gpus() const { return scenario.cluster.gpu_nodes * scenario.cluster.gpus_per_node; }
};

/// `acmesim run`: the scenario at `path` with `overrides` ("key=value", as --set takes them);
/// `call` is the Python call, for summary.json's provenance.
std::unique_ptr<FinishedRun> simulate(const std::string& path, const std::vector<std::string>& overrides,
                                      const std::string& working_dir, const std::string& call) {
  const Catalog catalog = builtin_catalog();
  auto run = std::make_unique<FinishedRun>();
  run->scenario = load_scenario(path, overrides, working_dir);
  // Resolving builds every policy, as `run` does: a typo in the scenario fails before a long trace read.
  run->provenance = Provenance{call, overrides, resolved_scenario_yaml(run->scenario, catalog)};
  Policies policies = make_policies(run->scenario, catalog);
  py::gil_scoped_release unlocked;
  run->trace = read_acme_trace(run->scenario.trace_path, TraceReadOptions{run->scenario.skip_bad_rows});
  Simulation simulation{run->scenario.cluster, run->trace.jobs, std::move(policies),
                        simulation_options(run->scenario, run->trace)};
  run->result = simulation.run();
  run->summary = summarize(run->trace.jobs, run->result, run->total_gpus());
  return run;
}

std::string summary_text(const FinishedRun& run) {
  py::gil_scoped_release unlocked;
  return summary_json(run.provenance, run.scenario, run.trace, run.result, run.summary);
}

/// `acmesim compare`: compare.csv's text.
std::string compare(const std::string& path, const std::vector<std::string>& overrides, const std::string& working_dir,
                    const std::vector<std::string>& schedulers, const std::vector<std::string>& placements,
                    unsigned threads) {
  const Catalog catalog = builtin_catalog();
  const Scenario scenario = load_scenario(path, overrides, working_dir);
  const std::vector<CompareVariant> variants = compare_variants(scenario, catalog, schedulers, placements);
  py::gil_scoped_release unlocked;
  const Trace trace = read_acme_trace(scenario.trace_path, TraceReadOptions{scenario.skip_bad_rows});
  return compare_csv(run_variants(scenario, trace, catalog, variants, threads));
}

/// What a generated trace records of a job, as a record: it ran its recorded duration from its
/// recorded start, on all its GPUs (io/trace_writer.cpp writes the same).
JobRecord recorded_record(const JobSpec& job) {
  JobRecord r;
  r.outcome = RunOutcome::Ran;
  r.state = job.recorded_state;
  r.submit_ms = job.submitted.time_since_epoch().count();
  r.start_ms = job.recorded_start->time_since_epoch().count();
  r.duration_ms = job.runtime.count();
  r.end_ms = r.start_ms + r.duration_ms;
  r.queue_ms = r.start_ms - r.submit_ms;
  r.gpu_time_ms = r.duration_ms * job.demand.gpus;
  return r;
}

/// `acmesim synth`: the generated trace's columns (what the trace file holds), written to `out`
/// too when given.
py::dict synth(const std::string& profile_name, std::optional<double> days, std::optional<std::uint64_t> jobs,
               double load, std::uint64_t seed, const std::optional<std::string>& out_path) {
  const Catalog catalog = builtin_catalog();
  const WorkloadProfile profile = load_profile(resolve_profile(profile_name, ACMESIM_CONFIG_DIR "/profiles"));
  Trace trace;
  {
    py::gil_scoped_release unlocked;
    trace = generate_submissions(profile, SynthOptions{days, jobs, load, seed});
    schedule_submissions(trace, profile, catalog, seed);
    if (out_path) write_acme_trace(*out_path, trace, profile);
  }
  TraceColumns table{trace};
  table.add_seconds_columns();
  {
    py::gil_scoped_release unlocked;
    for (std::size_t i = 0; i < trace.jobs.size(); ++i) {
      const JobSpec& job = trace.jobs[i];
      table.fill(i, job, recorded_record(job));
    }
  }
  py::dict out;
  out["jobs"] = table.columns.dict();
  out["epoch_unix_seconds"] = trace.epoch_unix_seconds;
  out["utc_offset_minutes"] = trace.utc_offset_minutes;
  return out;
}

/// `acmesim stats --format json`: the characterization of the trace at `path`, beside the
/// reference `compare` names (seren, kalos or a YAML file) when given.
std::string stats(const std::string& path, const std::optional<std::string>& compare_with, bool skip_bad_rows) {
  std::optional<ReferenceRow> reference;
  if (compare_with) {
    reference = load_reference(resolve_reference(*compare_with, ACMESIM_CONFIG_DIR "/reference"), trace_stat_keys());
  }
  py::gil_scoped_release unlocked;
  const Trace trace = read_acme_trace(path, TraceReadOptions{skip_bad_rows});
  return format_trace_stats(compute_trace_stats(trace), reference ? &*reference : nullptr, StatsFormat::Json, path);
}

}  // namespace

}  // namespace acmesim

PYBIND11_MODULE(_acmesim, m) {
  using namespace acmesim;
  m.doc() = "acmesim's simulator for Python; use it through `import acmesim`";
  // Bad input names its place ("file:line:column: ..."); ValueError is what Python code expects of it.
  py::register_exception<InputError>(m, "InputError", PyExc_ValueError);
  m.attr("__version__") = acmesim_version();
  m.attr("default_scenario") = ACMESIM_CONFIG_DIR "/default.yaml";
  py::class_<FinishedRun>(m, "FinishedRun")
      .def("jobs", [](const FinishedRun& run) { return jobs_columns(run.trace, run.result); })
      .def("timeline", [](const FinishedRun& run) { return timeline_columns(run.result, run.total_gpus()); })
      .def("summary_json", &summary_text)
      .def_property_readonly("fingerprint", [](const FinishedRun& run) { return run.result.fingerprint; })
      .def_property_readonly("events", [](const FinishedRun& run) { return run.result.events; })
      .def_property_readonly("epoch_unix_seconds", [](const FinishedRun& run) { return run.trace.epoch_unix_seconds; })
      .def_property_readonly("utc_offset_minutes", [](const FinishedRun& run) { return run.trace.utc_offset_minutes; });
  m.def("simulate", &simulate, py::arg("scenario"), py::arg("overrides"), py::arg("working_dir"), py::arg("call"));
  m.def("compare", &compare, py::arg("scenario"), py::arg("overrides"), py::arg("working_dir"), py::arg("schedulers"),
        py::arg("placements"), py::arg("threads"));
  m.def("synth", &synth, py::arg("profile"), py::arg("days"), py::arg("jobs"), py::arg("load"), py::arg("seed"),
        py::arg("out"));
  m.def("stats", &stats, py::arg("trace"), py::arg("compare"), py::arg("skip_bad_rows"));
}
