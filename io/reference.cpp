#include "io/reference.hpp"

#include <algorithm>
#include <filesystem>

#include "io/yaml.hpp"

namespace acmesim {

std::optional<double> ReferenceRow::find(const std::string& key) const {
  for (const auto& [k, v] : values) {
    if (k == key) return v;
  }
  return std::nullopt;
}

namespace {

void flatten(const yaml::Node& node, const std::vector<std::string>& metric_keys, ReferenceRow& row) {
  for (const auto& [key, value] : node.entries("a mapping of metric names to numbers")) {
    if (value.is_map()) {
      flatten(value, metric_keys, row);
      continue;
    }
    // The field of a metric is its full key: "metrics.Eval.duration_cdf.128" -> "Eval.duration_cdf.128".
    const std::string metric = value.field().substr(std::string("metrics.").size());
    if (std::find(metric_keys.begin(), metric_keys.end(), metric) == metric_keys.end()) {
      throw input_error(key.place(), "metrics",
                        "a known metric: a cluster_summary.csv column or a key like 'Eval.duration_cdf.128' "
                        "(`acmesim stats --format csv` lists them all)",
                        metric);
    }
    row.values.emplace_back(metric, value.named(metric).as<double>());
  }
}

ReferenceRow read_reference(const yaml::Node& root, const std::vector<std::string>& metric_keys) {
  root.only_keys({"name", "source", "metrics"});
  ReferenceRow row;
  row.name = root.get<std::string>("name", std::filesystem::path(root.file()).stem().string());
  row.source = root.get<std::string>("source", "");
  const yaml::Node metrics = root.required("metrics", "a mapping of metric names to numbers");
  if (!metrics.is_map()) metrics.fail("a mapping of metric names to numbers");
  flatten(metrics, metric_keys, row);
  return row;
}

}  // namespace

ReferenceRow load_reference(const std::string& path, const std::vector<std::string>& metric_keys) {
  return yaml::guard(path, [&] { return read_reference(yaml::parse_file(path, "reference"), metric_keys); });
}

std::string resolve_reference(const std::string& name_or_path, const std::string& reference_dir) {
  if (name_or_path == "seren" || name_or_path == "kalos") {
    return (std::filesystem::path(reference_dir) / (name_or_path + ".yaml")).string();
  }
  return name_or_path;
}

}  // namespace acmesim
