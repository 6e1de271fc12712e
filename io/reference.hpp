#pragma once
/// Stats references (configs/reference/*.yaml): the paper's numbers for `acmesim stats --compare`.
///
///   name: seren
///   source: [AcmeTrace T1-T7]
///   metrics:
///     avg_run_time_gpu: 5230      # a cluster_summary.csv column
///     Eval: {duration_cdf: {128: 49.7}}   # nested maps flatten with '.': Eval.duration_cdf.128
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace acmesim {

/// A reference row: metric key -> value.
struct ReferenceRow {
  std::string name;
  std::string source;
  std::vector<std::pair<std::string, double>> values;  // file order
  std::optional<double> find(const std::string& key) const;
};

/// Loads a reference file. A key that is not in `metric_keys` (the metrics the stats compute)
/// is an InputError with file:line:col.
ReferenceRow load_reference(const std::string& path, const std::vector<std::string>& metric_keys);

/// "seren" and "kalos" name the bundled references under `reference_dir`; anything else is a path.
std::string resolve_reference(const std::string& name_or_path, const std::string& reference_dir);

}  // namespace acmesim
