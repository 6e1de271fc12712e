#pragma once
/// Failures read back from files: a run's jobs.csv (its `failure_log` column) or an AcmeTrace
/// file (its `state` and `gpu_time`, reason Unknown), plain or gzip, into a FailureBreakdown
/// (sim/metrics/failure_breakdown.hpp). A `gpu_num` column, when there is one, gives each
/// failure's GPU demand (and, with its GPU time, its time to failure).
#include <string>

#include "sim/metrics/failure_breakdown.hpp"

namespace acmesim {

/// Adds the failures of a jobs.csv (or AcmeTrace CSV) file to `into`. InputError with
/// file:line, the column, what was expected and what was found on a malformed cell.
void add_failures_from_csv(const std::string& path, FailureBreakdown& into);

}  // namespace acmesim
