#pragma once
/// `acmesim stats --format json`: the characterization of a trace as a JSON document. tools/
/// computes the metrics and their comparison with a reference; this writes them.
#include <optional>
#include <string>
#include <vector>

namespace acmesim {

struct StatsJsonMetric {
  std::string key;
  std::optional<double> value;      // nullopt: undefined (no job of that group)
  std::optional<double> reference;  // nullopt: no reference value; the rest is then unused
  double diff = 0;
  double rel_error = 0;            // written as null when not finite
  std::optional<bool> target_met;  // nullopt: no target, or the value is undefined
};

struct StatsJson {
  std::string trace;
  std::optional<std::string> reference_name;
  std::string reference_source;
  std::vector<StatsJsonMetric> metrics;  // in order
};

std::string format_stats_json(const StatsJson& stats);

}  // namespace acmesim
