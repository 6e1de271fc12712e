#include "io/sweep_results.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>

#include "io/acme_schema.hpp"
#include "io/csv_reader.hpp"
#include "io/output_file.hpp"
#include "sim/core/error.hpp"
#include "sim/core/fingerprint.hpp"

namespace acmesim {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kJournalMagic = "acmesim sweep journal 1 plan ";

const std::vector<std::string> kGroupMetrics{"jobs",         "queue_mean_s", "queue_median_s",
                                             "queue_p95_s",  "queue_p99_s",  "jct_mean_s",
                                             "jct_median_s", "jct_p95_s",    "jct_p99_s"};
const std::vector<std::string> kRunMetrics{"gpu_allocation_ratio",
                                           "makespan_s",
                                           "preemptions",
                                           "failures",
                                           "node_failures",
                                           "jobs_killed",
                                           "manual_interventions",
                                           "lost_gpu_hours",
                                           "checkpoint_gpu_hours",
                                           "recovery_wait_gpu_hours",
                                           "ettr",
                                           "pretrain_ettr",
                                           "unstarted",
                                           "events",
                                           "fingerprint",
                                           "scenario_id"};

std::string group_prefix(std::size_t group) {
  if (group == 0) return "all";
  std::string n{name(kJobTypes[group - 1])};
  std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return n;
}

double hours(std::int64_t ms) { return static_cast<double>(ms) / 3.6e6; }

std::string checksum(std::string_view text) {
  Fingerprint f;
  f.add_text(text);
  return f.hex();
}

[[noreturn]] void system_error(const std::string& path, std::string_view what) {
  throw InputError(fmt::format("{}: cannot {} ({})", path, what, std::strerror(errno)));
}

void write_all(int fd, std::string_view text, const std::string& path) {
  while (!text.empty()) {
    const ssize_t n = ::write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) system_error(path, "append to the journal");
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

/// "POINT SEED" as the journal writes it.
bool parse_run_key(std::string_view text, RunKey& key) {
  const char* end = text.data() + text.size();
  const auto [after_point, e1] = std::from_chars(text.data(), end, key.point);
  if (e1 != std::errc{} || after_point == end || *after_point != ' ') return false;
  const auto [after_seed, e2] = std::from_chars(after_point + 1, end, key.seed);
  return e2 == std::errc{} && after_seed == end;
}

}  // namespace

const std::vector<std::string>& run_metric_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (std::size_t g = 0; g <= kJobTypes.size(); ++g) {
      for (const std::string& m : kGroupMetrics) n.push_back(group_prefix(g) + "_" + m);
    }
    n.insert(n.end(), kRunMetrics.begin(), kRunMetrics.end());
    return n;
  }();
  return names;
}

std::string sweep_results_header(const SweepFile& sweep, const std::vector<std::string>& metrics) {
  std::string out = "point";
  for (const SweepAxis* axis : sweep_columns(sweep)) {
    out += ',';
    append_text_cell(out, axis->key);
  }
  out += ",seed";
  for (const std::string& m : metrics) out += "," + m;
  out += '\n';
  return out;
}

std::string sweep_result_row(const SweepPoint& point, std::uint64_t seed, const std::string& metric_cells) {
  std::string out = std::to_string(point.id);
  for (const SweepValue* v : point.values) {
    out += ',';
    append_text_cell(out, v->cell);
  }
  return out + fmt::format(",{}", seed) + metric_cells;
}

std::string run_metric_cells(const RunSummary& summary, const RunResult& result, const std::string& scenario_id) {
  std::string out;
  for (std::size_t g = 0; g <= kJobTypes.size(); ++g) {
    const GroupStats& s = g == 0 ? summary.overall : summary.by_type[static_cast<std::size_t>(kJobTypes[g - 1])];
    if (s.jobs == 0) {
      out += fmt::format(",0{}", std::string(kGroupMetrics.size() - 1, ','));
      continue;
    }
    out += fmt::format(",{},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f},{:.3f}", s.jobs, s.queue.mean,
                       s.queue.median, s.queue.p95, s.queue.p99, s.jct.mean, s.jct.median, s.jct.p95, s.jct.p99);
  }
  const GroupStats& all = summary.overall;
  const GroupStats& pre = summary.by_type[static_cast<std::size_t>(JobType::Pretrain)];
  std::int64_t lost_ms = 0;
  for (const std::int64_t ms : result.lost_gpu_ms_by_reason) lost_ms += ms;
  const auto ettr = [](const GroupStats& s) { return s.wall_ms > 0 ? fmt::format("{:.6f}", s.ettr()) : std::string{}; };
  out += fmt::format(",{:.6f},{:.3f},{},{},{},{},{},{:.3f},{:.3f},{:.3f},{},{},{},{},{},{}",
                     summary.gpu_allocation_ratio, summary.makespan_s, all.preemptions, all.failures,
                     result.node_failures, all.killed, all.manual_interventions, hours(lost_ms),
                     hours(all.checkpoint_gpu_ms), hours(all.recovery_wait_gpu_ms), ettr(all), ettr(pre),
                     result.unstarted, result.events, result.fingerprint, scenario_id);
  return out;
}

SweepJournal::SweepJournal(const std::string& dir, const std::string& plan)
    : path_{(fs::path(dir) / "journal").string()} {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw InputError(fmt::format("{}: cannot create the sweep directory ({})", dir, ec.message()));
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) system_error(path_, "open the journal");
  std::string text;
  char block[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd_, block, sizeof block);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) system_error(path_, "read the journal");
    if (n == 0) break;
    text.append(block, static_cast<std::size_t>(n));
  }
  const std::string header = fmt::format("{}{}\n", kJournalMagic, plan);
  std::size_t good = 0;  // bytes of whole, intact lines
  // Empty, or a header cut short by a kill while the journal was created: start it afresh.
  if (text.size() < header.size() && header.rfind(text, 0) == 0) {
    if (::ftruncate(fd_, 0) != 0 || ::lseek(fd_, 0, SEEK_SET) != 0) system_error(path_, "start the journal afresh");
    write_all(fd_, header, path_);
    if (::fdatasync(fd_) != 0) system_error(path_, "flush the journal");
    good = header.size();
  } else if (text.rfind(header, 0) == 0) {
    good = header.size();
    for (std::size_t at = good; at < text.size();) {
      const std::size_t end = text.find('\n', at);
      if (end == std::string::npos) break;  // torn: the kill came mid-append
      const std::string_view line{text.data() + at, end - at};
      const std::size_t tab1 = line.find('\t');
      const std::size_t tab2 = line.rfind('\t');
      if (tab1 == std::string_view::npos || tab2 == tab1 || checksum(line.substr(0, tab2)) != line.substr(tab2 + 1)) {
        break;
      }
      RunKey key;
      if (!parse_run_key(line.substr(0, tab1), key)) break;
      rows_[key] = std::string(line.substr(tab1 + 1, tab2 - tab1 - 1));
      at = end + 1;
      good = at;
    }
    if (good < text.size()) {
      // Everything after the first bad line goes: appends are sequential, so only the last can be torn.
      // The lines dropped: whole ones, and a last one without its newline.
      dropped_ =
          static_cast<std::size_t>(std::count(text.begin() + static_cast<std::ptrdiff_t>(good), text.end(), '\n')) +
          (text.back() != '\n' ? 1 : 0);
      if (::ftruncate(fd_, static_cast<off_t>(good)) != 0) system_error(path_, "cut the torn end of the journal");
    }
  } else {
    const std::string found = text.substr(0, text.find('\n'));
    ::close(fd_);
    fd_ = -1;
    throw input_error(path_, "plan",
                      fmt::format("the journal of this sweep's plan {} (a changed sweep file, base scenario or seed "
                                  "list is never mixed with old results: give another -o DIR, or remove this one)",
                                  plan),
                      found);
  }
  if (::lseek(fd_, static_cast<off_t>(good), SEEK_SET) < 0) system_error(path_, "seek in the journal");
}

SweepJournal::~SweepJournal() {
  if (fd_ >= 0) ::close(fd_);
}

void SweepJournal::append(RunKey key, const std::string& row) {
  const std::string body = fmt::format("{} {}\t{}", key.point, key.seed, row);
  const std::string line = fmt::format("{}\t{}\n", body, checksum(body));
  const std::lock_guard lock{mutex_};
  write_all(fd_, line, path_);
  if (::fdatasync(fd_) != 0) system_error(path_, "flush the journal");
  rows_[key] = row;
}

void write_sweep_results(const std::string& dir, const SweepFile& sweep, const std::vector<std::string>& metrics,
                         const std::map<RunKey, std::string>& rows) {
  std::string text = sweep_results_header(sweep, metrics);
  for (const auto& [key, row] : rows) {  // a std::map: sorted by point, then seed
    text += row;
    text += '\n';
  }
  OutputFile file{(fs::path(dir) / "results.csv").string()};
  file.write(text);
  file.close();
}

ResultsTable read_sweep_results(const std::string& path) {
  csv::CsvReader reader{path, "sweep results (results.csv)", csv::CsvReader::BlankLines::Skip};
  ResultsTable table;
  if (!reader.next_line()) throw input_error(path, "header", "a results.csv written by acmesim sweep", "an empty file");
  for (const std::string_view cell : reader.cells()) table.header.emplace_back(cell);
  if (table.header.empty() || table.header.front() != "point" ||
      std::find(table.header.begin(), table.header.end(), "seed") == table.header.end()) {
    throw input_error(place(path, 1), "header", "a results.csv written by acmesim sweep (point, ..., seed, ...)",
                      table.header.empty() ? "" : table.header.front());
  }
  while (reader.next_line()) {
    if (reader.cells().size() != table.header.size() || reader.problem() != csv::CsvReader::LineProblem::None) {
      throw input_error(place(path, reader.line()), "row", fmt::format("{} cells", table.header.size()),
                        fmt::format("{} cells", reader.cells().size()));
    }
    std::vector<std::string>& row = table.rows.emplace_back();
    for (const std::string_view cell : reader.cells()) row.emplace_back(cell);
  }
  return table;
}

}  // namespace acmesim
