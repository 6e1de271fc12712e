#pragma once
#include <string>
#include <vector>

namespace acmesim {

/// `acmesim failures JOBS.csv...`: prints the Table-3-style failure breakdown of one or more
/// runs (pooled). Returns the exit code.
int failures_command(const std::vector<std::string>& paths);

}  // namespace acmesim
