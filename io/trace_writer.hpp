#pragma once
/// Writes a trace in the exact AcmeTrace schema (io/acme_schema.hpp): what `acmesim synth`
/// produces, readable by the AcmeTrace notebooks and by read_acme_trace.
#include <string>

#include "io/acme_schema.hpp"
#include "io/acme_trace.hpp"

namespace acmesim {

/// Writes `trace` (every job's recorded start set) in `schema`: Seren's 13 columns or Kalos's 17,
/// with `shared_mem_gb` as every GPU job's shared_mem_per_pod (Kalos). Gzip-compressed when
/// `path` ends in ".gz", with no timestamp in the gzip header, so the bytes depend only on the
/// content.
void write_acme_trace(const std::string& path, const Trace& trace, TraceSchema schema, double shared_mem_gb);

}  // namespace acmesim
