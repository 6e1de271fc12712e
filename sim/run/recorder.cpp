#include "sim/run/recorder.hpp"

#include <algorithm>
#include <boost/container/small_vector.hpp>

namespace acmesim {

void Recorder::placed(JobStatus& status, const Allocation& where) const {
  if (nodes_per_switch_ <= 0 || where.empty()) return;
  // Leaf-switch groups spanned: O(nodes of the job), the allocation is short.
  boost::container::small_vector<std::uint32_t, 8> groups;
  for (const Slice& s : where) groups.push_back(s.node.value() / static_cast<std::uint32_t>(nodes_per_switch_));
  std::sort(groups.begin(), groups.end());
  const auto spanned = static_cast<std::uint16_t>(std::unique(groups.begin(), groups.end()) - groups.begin());
  status.switch_groups = std::max(status.switch_groups, spanned);
}

RunResult Recorder::finish() && {
  if (result_.last_end > down_since_) account_down(result_.last_end);
  return std::move(result_);
}

}  // namespace acmesim
