#pragma once
/// Running FNV-1a (64-bit) over the processed events of a run: a change in event order or
/// timing changes it before any metric moves (OMNeT++ fingerprints [Design fingerprint]).
#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace acmesim {

class Fingerprint {
 public:
  void add(std::uint64_t word) {
    for (int byte = 0; byte < 8; ++byte) {
      hash_ ^= (word >> (8 * byte)) & 0xffU;
      hash_ *= kPrime;
    }
  }
  /// Hashes text byte by byte (identities and checksums of text files: a sweep's plan, its journal lines).
  void add_text(std::string_view text) {
    for (const char c : text) {
      hash_ ^= static_cast<unsigned char>(c);
      hash_ *= kPrime;
    }
  }
  std::uint64_t value() const { return hash_; }
  std::string hex() const { return fmt::format("{:016x}", hash_); }

 private:
  static constexpr std::uint64_t kOffset = 14695981039346656037ULL;
  static constexpr std::uint64_t kPrime = 1099511628211ULL;
  std::uint64_t hash_ = kOffset;
};

}  // namespace acmesim
