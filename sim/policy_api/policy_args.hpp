#pragma once
/// One policy's YAML block: `scheduler: fifo` or `scheduler: {name: fifo, key: value, ...}`.
/// Policies read their parameters where they use them, with a default (get<T>), and the loader
/// then rejects every key nobody read, so a typo is an error, not a silently ignored setting
/// (style.md §2.4).
#include <cstdint>
#include <set>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "sim/core/error.hpp"
#include "sim/core/rng.hpp"

namespace acmesim {

class PolicyArgs {
public:
  PolicyArgs() = default;
  /// `where` is "file:line:col" of the block, for messages; `seed` is the scenario's.
  PolicyArgs(std::string slot, std::string name, YAML::Node params, std::string where, std::uint64_t seed)
      : slot_{std::move(slot)}, name_{std::move(name)}, params_{std::move(params)}, where_{std::move(where)},
        seed_{seed} {}

  /// Just a name, no parameters (tests, `compare`).
  static PolicyArgs named(std::string slot, std::string name, std::uint64_t seed = 1) {
    return PolicyArgs{std::move(slot), std::move(name), YAML::Node{YAML::NodeType::Map}, "<built-in>", seed};
  }

  const std::string& slot() const { return slot_; }
  const std::string& name() const { return name_; }
  const std::string& where() const { return where_; }
  std::uint64_t seed() const { return seed_; }

  /// The value of `key`, or `fallback` if absent. A value of the wrong type is an InputError.
  template <class T>
  T get(const std::string& key, T fallback) const {
    read_.insert(key);
    const YAML::Node value = params_[key];
    if (!value) return fallback;
    try {
      return value.as<T>();
    } catch (const YAML::Exception&) {
      throw InputError(fmt::format("{}:{}:{}: {} '{}': key '{}': expected {}, found '{}'", where_file(),
                                   value.Mark().line + 1, value.Mark().column + 1, slot_, name_, key,
                                   type_name<T>(), YAML::Dump(value)));
    }
  }
  /// The raw node of `key` (maps and lists), marking it read. Null if absent.
  YAML::Node node(const std::string& key) const {
    read_.insert(key);
    return params_[key];
  }
  /// A random stream named after this slot and policy ("scheduler/fifo").
  Rng rng(std::string_view purpose = {}) const {
    return Rng{seed_, fmt::format("{}/{}{}{}", slot_, name_, purpose.empty() ? "" : "/", purpose)};
  }
  /// InputError naming every key that was given but never read.
  void reject_unread() const;
  /// The file the block came from ("--set key" or "<built-in>" when it did not come from a
  /// file); policies resolve relative paths against its directory.
  std::string where_file() const { return where_.substr(0, where_.find(':')); }

private:
  template <class T>
  static const char* type_name() {
    if constexpr (std::is_same_v<T, bool>) return "true or false";
    else if constexpr (std::is_integral_v<T>) return "a whole number";
    else if constexpr (std::is_floating_point_v<T>) return "a number";
    else return "a string";
  }

  std::string slot_;
  std::string name_;
  YAML::Node params_;
  std::string where_;
  std::uint64_t seed_ = 1;
  mutable std::set<std::string> read_;
};

}  // namespace acmesim
