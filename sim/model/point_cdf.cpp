#include "sim/model/point_cdf.hpp"

#include <cmath>

namespace acmesim {

double PointCdf::inverse(double u) const {
  const double pct = 100.0 * u;
  if (points.empty()) return 0;
  if (pct <= points.front().second) return points.front().first;
  for (std::size_t i = 1; i < points.size(); ++i) {
    const auto [x1, f1] = points[i];
    if (pct <= f1) {
      const auto [x0, f0] = points[i - 1];
      if (f1 <= f0) return x1;
      const double w = (pct - f0) / (f1 - f0);
      return std::exp(std::log(x0) + w * (std::log(x1) - std::log(x0)));
    }
  }
  return points.back().first;
}

}  // namespace acmesim
