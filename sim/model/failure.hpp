#pragma once
/// Failure reasons and categories, named after the Acme paper's Table 3 [Acme §5, Table 3; 2nd].
/// Used by job outcome models (a job that
/// ends FAILED says why), by failure injection (a node failure has a kind) and by the metrics.
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace acmesim {

/// [Acme Table 3]: infrastructure (platform, network, storage; mid-run), framework
/// (runtime errors; mostly at the start), script (user programming errors; at the start).
/// Unknown: a failure whose reason nobody recorded (the `trace` outcome model's FAILED jobs).
enum class FailureCategory : std::uint8_t { Infrastructure, Framework, Script, Unknown };
inline constexpr std::size_t kFailureCategoryCount = 4;

/// Table 3's reasons, in the table's order [Acme Table 3; 2nd]. `None` = no failure.
enum class FailureReason : std::uint8_t {
  None,
  // Infrastructure
  NVLinkError,
  CUDAError,
  NodeFailure,
  ECCError,
  NetworkError,
  ConnectionError,
  S3StorageError,
  NCCLTimeoutError,
  NCCLRemoteError,
  // Framework
  DataloaderKilled,
  AttributeError,
  OutOfMemoryError,
  RuntimeError,
  AssertionError,
  ValueError,
  ZeroDivisionError,
  ModelLoadingError,
  DatasetLoadingError,
  // Script
  FileNotFoundError,
  OSError,
  TypeError,
  NameError,
  PermissionError,
  ImportError,
  KeyError,
  SyntaxError,
  ArgumentError,
  CalledProcessError,
  IndexError,
  // A failed job whose reason is not known (recorded FAILED state, or a replayed event without one).
  Unknown,
};
inline constexpr std::size_t kFailureReasonCount = static_cast<std::size_t>(FailureReason::Unknown) + 1;

std::string_view name(FailureReason reason);
std::string_view name(FailureCategory category);
FailureCategory category(FailureReason reason);
/// Accepts the names above (case-sensitive, as in Table 3).
std::optional<FailureReason> parse_failure_reason(std::string_view text);

}  // namespace acmesim
