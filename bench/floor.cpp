// The floor of a trace replay (issue 16's yardstick): the least work any replay of an AcmeTrace
// file into a jobs.csv and a timeline.csv must do, done as simply and quickly as we can, on one
// thread, with none of acmesim's checks, models or policies. It calls none of acmesim's readers
// or writers either (io/timestamp.hpp, io/text_buffer.hpp do the same jobs there): it is the
// yardstick they are measured against, so it must not move when they do.
//
//   1. read the file whole and split each line into its cells;
//   2. parse the counts and the three timestamps of each row (the date part once per day);
//   3. pop and push a binary heap EVENTS times (acmesim's event loop does one pop and about one
//      push per event): every job's submission and end, and ticks in between for the rest;
//   4. format a jobs.csv row of the same 32 columns for every job and a timeline.csv row every
//      10 minutes, with std::to_chars into one buffer each, and write them.
//
// `bench/end_to_end.sh --floor` runs it beside `acmesim run` on the same trace, with EVENTS the
// run's own count, so that the ratio of the two whole processes can be quoted
// (docs/performance.md). Usage: acmesim_floor TRACE EVENTS OUT_DIR
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <queue>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

struct Job {
  std::string_view id, user, type, state;
  std::int64_t submit = 0;  // seconds since the epoch of the trace's zone
  std::int64_t start = 0;
  std::int64_t end = 0;
  std::int64_t duration = 0;
  int nodes = 0, gpus = 0, cpus = 0;
};

std::int64_t parse_int(std::string_view s) {
  std::int64_t v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

/// Days since 1970-01-01 of a civil date (Howard Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

/// "YYYY-MM-DD HH:MM:SS+08:00": the date part parsed once per day.
struct TimestampParser {
  std::string_view last_date;
  std::int64_t last_day_s = 0;
  std::int64_t operator()(std::string_view s) {
    if (s.size() < 19) return 0;
    const std::string_view date = s.substr(0, 10);
    if (date != last_date) {
      last_date = date;
      last_day_s =
          86400 * days_from_civil(parse_int(date.substr(0, 4)), static_cast<unsigned>(parse_int(date.substr(5, 2))),
                                  static_cast<unsigned>(parse_int(date.substr(8, 2))));
    }
    const auto d = [&](std::size_t i) { return static_cast<std::int64_t>(s[i] - '0'); };
    return last_day_s + (d(11) * 10 + d(12)) * 3600 + (d(14) * 10 + d(15)) * 60 + d(17) * 10 + d(18);
  }
};

/// Output buffer with the few appends the rows need.
struct Out {
  std::string buf;
  void text(std::string_view s) { buf.append(s); }
  void ch(char c) { buf.push_back(c); }
  void num(std::int64_t v) {
    char tmp[24];
    const auto r = std::to_chars(tmp, tmp + sizeof tmp, v);
    buf.append(tmp, static_cast<std::size_t>(r.ptr - tmp));
  }
  void tenths(std::int64_t v) {  // v / 10 with one decimal
    num(v / 10);
    ch('.');
    ch(static_cast<char>('0' + v % 10));
  }
  /// "YYYY-MM-DD HH:MM:SS+08:00" from seconds; the date part formatted once per day.
  std::int64_t day_cached = -1;
  char day_text[11] = {};
  void timestamp(std::int64_t t) {
    const std::int64_t day = t / 86400;
    if (day != day_cached) {
      day_cached = day;
      // civil_from_days (Hinnant)
      const std::int64_t z = day + 719468;
      const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
      const auto doe = static_cast<unsigned>(z - era * 146097);
      const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
      const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
      const unsigned mp = (5 * doy + 2) / 153;
      const unsigned dd = doy - (153 * mp + 2) / 5 + 1;
      const unsigned mm = mp < 10 ? mp + 3 : mp - 9;
      const std::int64_t yy = static_cast<std::int64_t>(yoe) + era * 400 + (mm <= 2);
      const auto digit = [](std::int64_t v) { return static_cast<char>('0' + v % 10); };
      const char date[10] = {
          digit(yy / 1000), digit(yy / 100), digit(yy / 10), digit(yy), '-', digit(mm / 10), digit(mm), '-',
          digit(dd / 10),   digit(dd)};
      std::memcpy(day_text, date, sizeof date);
    }
    const std::int64_t s = t % 86400;
    char tail[16] = {' ',
                     static_cast<char>('0' + s / 36000),
                     static_cast<char>('0' + s / 3600 % 10),
                     ':',
                     static_cast<char>('0' + s % 3600 / 600),
                     static_cast<char>('0' + s % 600 / 60),
                     ':',
                     static_cast<char>('0' + s % 60 / 10),
                     static_cast<char>('0' + s % 10),
                     '+',
                     '0',
                     '8',
                     ':',
                     '0',
                     '0'};
    buf.append(day_text, 10);
    buf.append(tail, 15);
  }
};

bool write_file(const std::string& path, const std::string& data) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return false;
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n <= 0) return ::close(fd), false;
    done += static_cast<std::size_t>(n);
  }
  return ::close(fd) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: acmesim_floor TRACE EVENTS OUT_DIR\n");
    return 2;
  }
  using Clock = std::chrono::steady_clock;
  const auto since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
  const Clock::time_point started = Clock::now();
  // 1. Read the file whole.
  const int fd = ::open(argv[1], O_RDONLY);
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0) {
    std::perror(argv[1]);
    return 2;
  }
  std::string text(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  text.resize(got);

  // 2. Split and parse: the header names the columns.
  std::string_view rest = text;
  const auto next_line = [&]() {
    const std::size_t nl = rest.find('\n');
    std::string_view line = rest.substr(0, nl);
    rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
    return line;
  };
  constexpr std::array<std::string_view, 11> kNames{"job_id",     "user",     "node_num", "gpu_num",
                                                    "cpu_num",    "type",     "state",    "submit_time",
                                                    "start_time", "end_time", "duration"};
  std::array<int, kNames.size()> column{};
  column.fill(-1);
  {
    std::string_view header = next_line();
    for (int c = 0; !header.empty(); ++c) {
      const std::size_t comma = header.find(',');
      const std::string_view name = header.substr(0, comma);
      for (std::size_t k = 0; k < kNames.size(); ++k) {
        if (name == kNames[k]) column[k] = c;
      }
      header = comma == std::string_view::npos ? std::string_view{} : header.substr(comma + 1);
    }
  }
  std::vector<Job> jobs;
  jobs.reserve(text.size() / 100);
  TimestampParser parse_time;
  std::array<std::string_view, 32> cells{};
  while (!rest.empty()) {
    std::string_view line = next_line();
    if (line.empty()) continue;
    std::size_t n = 0;
    for (std::size_t from = 0; n < cells.size();) {
      const std::size_t comma = line.find(',', from);
      cells[n++] = line.substr(from, comma == std::string_view::npos ? std::string_view::npos : comma - from);
      if (comma == std::string_view::npos) break;
      from = comma + 1;
    }
    const auto cell = [&](std::size_t k) {
      return column[k] >= 0 && static_cast<std::size_t>(column[k]) < n ? cells[static_cast<std::size_t>(column[k])]
                                                                       : std::string_view{};
    };
    Job j;
    j.id = cell(0);
    j.user = cell(1);
    j.nodes = static_cast<int>(parse_int(cell(2)));
    j.gpus = static_cast<int>(parse_int(cell(3)));
    j.cpus = static_cast<int>(parse_int(cell(4)));
    j.type = cell(5);
    j.state = cell(6);
    j.submit = parse_time(cell(7));
    parse_time(cell(8));
    parse_time(cell(9));
    j.duration = parse_int(cell(10));
    jobs.push_back(j);
  }
  if (jobs.empty()) {
    std::fprintf(stderr, "%s: no jobs\n", argv[1]);
    return 2;
  }

  const double parsed_s = since(started);
  const Clock::time_point heap_started = Clock::now();
  // 3. The heap: submissions in file order, each job's end (it starts when submitted), and ticks
  // evenly spread over the span for the events a replay has beyond those.
  const std::int64_t events = parse_int(argv[2]);
  const std::int64_t t0 = jobs.front().submit;
  const std::int64_t span = std::max<std::int64_t>(1, jobs.back().submit + 86400 - t0);
  const std::int64_t ticks = std::max<std::int64_t>(1, events - 2 * static_cast<std::int64_t>(jobs.size()));
  const std::int64_t tick_ms = std::max<std::int64_t>(1, span * 1000 / ticks);
  using Event = std::pair<std::int64_t, std::uint32_t>;  // (ms, what: job index x 2 + end, or ~0 tick)
  std::priority_queue<Event, std::vector<Event>, std::greater<>> heap;
  constexpr std::uint32_t kTick = ~std::uint32_t{0};
  heap.push({t0 * 1000, 0});
  heap.push({t0 * 1000, kTick});
  std::int64_t popped = 0;
  std::int64_t ticks_left = ticks;
  while (!heap.empty()) {
    const Event e = heap.top();
    heap.pop();
    ++popped;
    if (e.second == kTick) {
      if (--ticks_left > 0) heap.push({e.first + tick_ms, kTick});
      continue;
    }
    const std::uint32_t index = e.second / 2;
    if (e.second % 2 == 0) {  // a submission: the job starts, its end and the next submission follow
      Job& j = jobs[index];
      j.start = j.submit;
      j.end = j.submit + j.duration;
      heap.push({j.end * 1000, e.second + 1});
      if (index + 1 < jobs.size()) heap.push({jobs[index + 1].submit * 1000, e.second + 2});
    }
  }

  const double heap_s = since(heap_started);
  const Clock::time_point write_started = Clock::now();
  // 4. Format and write.
  Out out;
  out.buf.reserve(jobs.size() * 230);
  out.text(
      "job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time,jct,"
      "outcome,attempts,preemptions,failures,lost_gpu_time,overhead_gpu_time,failure_reason,failure_log,"
      "checkpoint_gpu_time,recovery_wait,manual_interventions,ettr,switch_groups,wait,slowdown,submit_s,start_s,"
      "end_s\n");
  for (const Job& j : jobs) {
    out.text(j.id), out.ch(','), out.text(j.user), out.ch(','), out.num(j.nodes), out.ch(','), out.num(j.gpus);
    out.ch(','), out.num(j.cpus), out.ch(','), out.text(j.type), out.ch(','), out.text(j.state), out.ch(',');
    out.timestamp(j.submit), out.ch(','), out.timestamp(j.start), out.ch(','), out.timestamp(j.end), out.ch(',');
    out.num(j.duration), out.text(",0,"), out.tenths(10 * j.gpus * j.duration), out.ch(','), out.num(j.duration);
    out.text(",ran,1,0,0,0,0,,,0,0,0,1.0000,0,0,1.0000,");
    out.tenths(10 * (j.submit - t0)), out.ch(','), out.tenths(10 * (j.start - t0)), out.ch(',');
    out.tenths(10 * (j.end - t0)), out.ch('\n');
  }
  Out timeline;
  timeline.text(
      "time,elapsed_s,allocated_gpus,gpu_allocation,allocated_cpus,running_jobs,queued_jobs,queued_gpus,down_nodes,"
      "queued_jobs_Pretrain,queued_jobs_Eval,queued_jobs_SFT,queued_jobs_MLLM,queued_jobs_Debug,queued_jobs_Other,"
      "queued_gpus_Pretrain,queued_gpus_Eval,queued_gpus_SFT,queued_gpus_MLLM,queued_gpus_Debug,queued_gpus_Other\n");
  for (std::int64_t t = 0; t < span; t += 600) {
    timeline.timestamp(t0 + t), timeline.ch(','), timeline.num(t), timeline.text(",0,0.0000,0,0,0,0,0");
    timeline.text(",0,0,0,0,0,0,0,0,0,0,0,0\n");
  }
  const std::string dir = argv[3];
  if (!write_file(dir + "/jobs.csv", out.buf) || !write_file(dir + "/timeline.csv", timeline.buf)) {
    std::perror(dir.c_str());
    return 2;
  }
  std::printf(
      "floor: %zu jobs, %lld heap pops, %zu + %zu bytes written; read and parse %.2f s, heap %.2f s, "
      "format and write %.2f s\n",
      jobs.size(), static_cast<long long>(popped), out.buf.size(), timeline.buf.size(), parsed_s, heap_s,
      since(write_started));
  return 0;
}
