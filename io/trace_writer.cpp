#include "io/trace_writer.hpp"

#include <fmt/format.h>

#include "io/gzip_filter.hpp"
#include "io/output_file.hpp"
#include "io/text_buffer.hpp"
#include "io/timestamp.hpp"
#include "sim/core/error.hpp"

namespace acmesim {

void write_acme_trace(const std::string& path, const Trace& trace, TraceSchema schema, double shared_mem_gb) {
  const bool kalos = schema == TraceSchema::Kalos;
  OutputFile file{path};
  boost::iostreams::filtering_ostream out;
  const bool gz = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  if (gz) {
    boost::iostreams::gzip_params params(boost::iostreams::gzip::default_compression);
    params.mtime = 0;  // no timestamp: same content, same bytes
    out.push(boost::iostreams::gzip_compressor(params));
  }
  out.push(file.sink());
  TextBuffer buffer;
  buffer.append(acme_header(schema));
  buffer.push_back('\n');
  TimestampWriter writer{trace.epoch_unix_seconds, trace.utc_offset_minutes};
  for (const JobSpec& job : trace.jobs) {
    if (!job.recorded_start) throw SimulationError(fmt::format("synth: job {} has no start to write", job.trace_id));
    const SimTime start = *job.recorded_start;
    const SimTime end = start + job.runtime;
    const std::int64_t duration = job.runtime.count() / 1000;
    const std::int64_t queue = (start - job.submitted).count() / 1000;
    const auto time = [&](TextBuffer& cell, SimTime t) { writer.append(cell, t.time_since_epoch().count()); };
    append_acme_row(buffer, schema, [&](AcmeColumn column, TextBuffer& cell) {
      const auto number = [&](std::int64_t value) { cell.append_integer(value); };
      if (append_request_cell(cell, column, job, trace.user_name(job.user))) return;
      switch (column) {
        case kSharedMem:
          cell.append_fixed(job.demand.cpu_only() ? 0.0 : shared_mem_gb, 1);
          break;
        case kState:
          cell.append(name(job.recorded_state));
          break;
        case kSubmit:
          time(cell, job.submitted);
          break;
        case kStart:
          time(cell, start);
          break;
        case kEnd:
          time(cell, end);
          break;
        case kFailTime:
          if (has_fail_time(job.recorded_state)) time(cell, end);
          break;
        case kStopTime:
          if (has_stop_time(job.recorded_state)) time(cell, end);
          break;
        case kDuration:
          number(duration);
          break;
        // Seren writes queue as an integer, Kalos as a float; gpu_time is a float in both [AcmeTrace README].
        case kQueue:
          number(queue);
          if (kalos) cell.append(".0");
          break;
        case kGpuTime:
          number(duration * job.demand.gpus);
          cell.append(".0");
          break;
        default:
          break;  // the request columns, written above
      }
    });
    buffer.push_back('\n');
    if (buffer.size() > (1U << 20)) {
      out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
      buffer.clear();
    }
  }
  out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
  out.reset();   // flushes and finishes the gzip stream
  file.close();  // InputError if any of it could not be written
}

}  // namespace acmesim
