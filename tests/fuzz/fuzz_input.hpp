#pragma once
// Shared by the libFuzzer targets: the input as a file (the readers under test take paths, as
// users give them), and the one rule every target checks: bad input is an InputError, anything
// else (another exception, a crash, a sanitizer report) is a finding.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

namespace acmesim::fuzz {

/// A file of this process's own holding `data`, rewritten on every call (tmpfs when TMPDIR is one).
inline std::string as_file(std::string_view data, const std::string& suffix) {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("acmesim-fuzz-" + std::to_string(::getpid()) + suffix)).string();
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) __builtin_trap();
  if (!data.empty()) std::fwrite(data.data(), 1, data.size(), file);
  std::fclose(file);
  return path;
}

inline std::string_view view(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace acmesim::fuzz
