#pragma once
/// A CDF given at points (x, percent <= x), increasing in both; sampled by log-linear
/// interpolation between points, as the paper's own tables are read [AcmeTrace T1-T7]. Used by
/// the workload profiles (durations) and by the cluster model (launch latency).
/// Cost: inverse() is O(points).
#include <utility>
#include <vector>

namespace acmesim {

struct PointCdf {
  std::vector<std::pair<double, double>> points;  // (x > 0, percent in [0, 100]); last percent == 100
  /// x at cumulative share u in [0, 1): the first point's x below it, log-linear between points.
  double inverse(double u) const;
  bool empty() const { return points.empty(); }
};

}  // namespace acmesim
