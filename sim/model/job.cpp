#include "sim/model/job.hpp"

#include <algorithm>

namespace acmesim {

namespace {
constexpr std::array<std::string_view, kJobTypeCount> kTypeNames{"Pretrain", "Eval", "SFT", "MLLM", "Debug", "Other"};
constexpr std::array<std::string_view, kFinalStateCount> kStateNames{"COMPLETED", "CANCELLED", "FAILED", "TIMEOUT",
                                                                     "NODE_FAIL"};
}  // namespace

std::string_view name(JobType type) { return kTypeNames[static_cast<std::size_t>(type)]; }
std::string_view name(FinalState state) { return kStateNames[static_cast<std::size_t>(state)]; }

std::optional<JobType> parse_job_type(std::string_view text) {
  for (std::size_t i = 0; i < kTypeNames.size(); ++i) {
    if (text == kTypeNames[i]) return kJobTypes[i];
  }
  if (text == "Evaluation") return JobType::Eval;
  return std::nullopt;
}

std::optional<FinalState> parse_final_state(std::string_view text) {
  for (std::size_t i = 0; i < kStateNames.size(); ++i) {
    if (text == kStateNames[i]) return kFinalStates[i];
  }
  return std::nullopt;
}

double JobStatus::slowdown(SimTime submitted, Duration runtime) const {
  const double bound = static_cast<double>(std::max(runtime, seconds(10)).count());
  return std::max(1.0, static_cast<double>((*ended - submitted).count()) / bound);
}

}  // namespace acmesim
