#pragma once
/// Named, seeded random streams [Design rng]. Each consumer owns an Rng built from
/// the scenario seed and a fixed purpose string, so adding a consumer never shifts another's
/// numbers. The engine is std::mt19937_64 (bit-exact by the standard); distributions must come
/// from boost::random, whose code is the same under every standard library.
#include <cstdint>
#include <random>
#include <string_view>

namespace acmesim {

constexpr std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

constexpr std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t hash = 14695981039346656037ULL;
  for (char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;
  }
  return hash;
}

class Rng {
 public:
  using result_type = std::mt19937_64::result_type;
  Rng(std::uint64_t seed, std::string_view purpose) : engine_{splitmix64(seed ^ fnv1a(purpose))} {}
  static constexpr result_type min() { return std::mt19937_64::min(); }
  static constexpr result_type max() { return std::mt19937_64::max(); }
  result_type operator()() { return engine_(); }

 private:
  std::mt19937_64 engine_;
};

}  // namespace acmesim
