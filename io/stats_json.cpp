#include "io/stats_json.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

namespace acmesim {

std::string format_stats_json(const StatsJson& stats) {
  using Json = nlohmann::ordered_json;
  Json j;
  j["trace"] = stats.trace;
  if (stats.reference_name) j["reference"] = {{"name", *stats.reference_name}, {"source", stats.reference_source}};
  Json metrics = Json::object();
  for (const StatsJsonMetric& m : stats.metrics) {
    const Json value = m.value ? Json(*m.value) : Json();
    if (!m.reference) {
      metrics[m.key] = value;
      continue;
    }
    Json e{{"value", value}, {"reference", *m.reference}, {"diff", m.diff}};
    e["rel_error"] = std::isfinite(m.rel_error) ? Json(m.rel_error) : Json();
    if (m.target_met) e["target_met"] = *m.target_met;
    metrics[m.key] = e;
  }
  j["metrics"] = metrics;
  // Invalid UTF-8 (a trace path or a value in another encoding) becomes U+FFFD, never an abort.
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace acmesim
