#include "sim/model/checkpoint.hpp"

#include <algorithm>

namespace acmesim {

namespace {
/// Checkpoint positions p = k * interval (k >= 1) with from < p <= up_to.
std::int64_t positions(std::int64_t interval, std::int64_t from, std::int64_t up_to) {
  if (up_to <= from) return 0;
  return up_to / interval - from / interval;
}
}  // namespace

Duration checkpoint_wall_time(const CheckpointPlan& plan, Duration from, Duration to, Duration total) {
  if (!plan.enabled() || to <= from) return std::max(to - from, Duration{0});
  const std::int64_t n = positions(plan.interval.count(), from.count(), std::min(to.count(), total.count() - 1));
  return (to - from) + n * plan.stall;
}

AttemptSplit split_attempt(const CheckpointPlan& plan, Duration from, Duration total, Duration elapsed) {
  const std::int64_t e = elapsed.count();
  if (!plan.enabled()) return AttemptSplit{elapsed, Duration{0}, Duration{0}};
  const std::int64_t i = plan.interval.count();
  const std::int64_t s = plan.stall.count();
  const std::int64_t n = positions(i, from.count(), total.count() - 1);  // checkpoints this attempt takes
  const std::int64_t first = (from.count() / i + 1) * i;                 // position of the first
  const std::int64_t w0 = first - from.count();                          // work before it
  if (n == 0 || e <= w0) return AttemptSplit{elapsed, Duration{0}, Duration{0}};
  const std::int64_t after = e - w0;
  const std::int64_t cycle = i + s;
  std::int64_t work = 0;
  std::int64_t stall = 0;
  if (after >= (n - 1) * cycle + s) {  // past the last stall
    stall = n * s;
    work = e - stall;
  } else {
    const std::int64_t q = after / cycle;
    const std::int64_t r = after % cycle;
    if (r < s) {  // inside the stall of checkpoint q+1
      work = w0 + q * i;
      stall = q * s + r;
    } else {
      work = w0 + q * i + (r - s);
      stall = (q + 1) * s;
    }
  }
  // Checkpoint j (1-based) stalls from w0 + (j-1)*cycle and is durable stall + persist later.
  const std::int64_t first_durable = w0 + s + plan.persist.count();
  std::int64_t kept = 0;
  if (e >= first_durable) {
    const std::int64_t j = std::min(n, (e - first_durable) / cycle + 1);
    kept = first + (j - 1) * i - from.count();
  }
  return AttemptSplit{Duration{work}, Duration{stall}, Duration{kept}};
}

}  // namespace acmesim
