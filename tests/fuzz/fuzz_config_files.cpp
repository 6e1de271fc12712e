// libFuzzer target: the other YAML loaders, chosen by the first byte: a workload profile
// (synth --profile), an evaluation suite (eval-bench --suite), an eval-cluster file, a
// reference of paper figures (stats --compare) and a sweep file (validated when it is small).
#include "io/eval_cluster_config.hpp"
#include "io/eval_suite.hpp"
#include "io/profile.hpp"
#include "io/reference.hpp"
#include "io/sweep_file.hpp"
#include "policies/catalog.hpp"
#include "sim/core/error.hpp"
#include "tests/fuzz/fuzz_input.hpp"
#include "tools/workload/trace_stats.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string text{acmesim::fuzz::view(data + 1, size - 1)};
  try {
    switch (data[0] % 5) {
      case 0:
        acmesim::parse_profile("fuzz/profile.yaml", text);
        break;
      case 1:
        acmesim::parse_eval_suite("fuzz/suite.yaml", text);
        break;
      case 2:
        acmesim::load_eval_cluster_config(acmesim::fuzz::as_file(text, ".yaml"));
        break;
      case 3:
        acmesim::load_reference(acmesim::fuzz::as_file(text, ".yaml"), acmesim::trace_stat_keys());
        break;
      default: {
        const acmesim::SweepFile sweep = acmesim::parse_sweep("fuzz/sweep.yaml", text);
        const std::vector<acmesim::SweepPoint> points = acmesim::sweep_points(sweep);
        if (points.size() <= 64) acmesim::validate_sweep(sweep, points, acmesim::builtin_catalog());
        break;
      }
    }
  } catch (const acmesim::InputError&) {
  }
  return 0;
}
