#include "sim/model/failure.hpp"

namespace acmesim {

namespace {
constexpr std::array<std::string_view, kFailureReasonCount> kReasonNames{"None",
                                                                         "NVLinkError",
                                                                         "CUDAError",
                                                                         "NodeFailure",
                                                                         "ECCError",
                                                                         "NetworkError",
                                                                         "ConnectionError",
                                                                         "S3StorageError",
                                                                         "NCCLTimeoutError",
                                                                         "NCCLRemoteError",
                                                                         "DataloaderKilled",
                                                                         "AttributeError",
                                                                         "OutOfMemoryError",
                                                                         "RuntimeError",
                                                                         "AssertionError",
                                                                         "ValueError",
                                                                         "ZeroDivisionError",
                                                                         "ModelLoadingError",
                                                                         "DatasetLoadingError",
                                                                         "FileNotFoundError",
                                                                         "OSError",
                                                                         "TypeError",
                                                                         "NameError",
                                                                         "PermissionError",
                                                                         "ImportError",
                                                                         "KeyError",
                                                                         "SyntaxError",
                                                                         "ArgumentError",
                                                                         "CalledProcessError",
                                                                         "IndexError",
                                                                         "Unknown"};
constexpr std::array<std::string_view, kFailureCategoryCount> kCategoryNames{"Infrastructure", "Framework", "Script",
                                                                             "Unknown"};
}  // namespace

std::string_view name(FailureReason reason) { return kReasonNames[static_cast<std::size_t>(reason)]; }
std::string_view name(FailureCategory c) { return kCategoryNames[static_cast<std::size_t>(c)]; }

FailureCategory category(FailureReason reason) {
  if (reason >= FailureReason::NVLinkError && reason <= FailureReason::NCCLRemoteError) {
    return FailureCategory::Infrastructure;
  }
  if (reason >= FailureReason::DataloaderKilled && reason <= FailureReason::DatasetLoadingError) {
    return FailureCategory::Framework;
  }
  if (reason >= FailureReason::FileNotFoundError && reason <= FailureReason::IndexError) return FailureCategory::Script;
  return FailureCategory::Unknown;
}

std::optional<FailureReason> parse_failure_reason(std::string_view text) {
  for (std::size_t i = 1; i < kReasonNames.size(); ++i) {
    if (text == kReasonNames[i]) return static_cast<FailureReason>(i);
  }
  return std::nullopt;
}

}  // namespace acmesim
