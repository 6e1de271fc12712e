#include "app/failures.hpp"

#include <fmt/format.h>

#include "io/failures_csv.hpp"

namespace acmesim {

int failures_command(const std::vector<std::string>& paths) {
  FailureBreakdown pooled;
  for (const std::string& path : paths) add_failures_from_csv(path, pooled);
  fmt::print("failure breakdown of {} file{} (Table 3 of the Acme paper: share of failures and of failed GPU time)\n",
             paths.size(), paths.size() == 1 ? "" : "s");
  fmt::print("{}", format_failure_breakdown(pooled));
  return 0;
}

}  // namespace acmesim
