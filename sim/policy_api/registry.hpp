#pragma once
/// Name -> factory tables, one per policy slot. The catalog is a value built by
/// policies/catalog.cpp and passed in: no self-registration, no globals [Design catalog].
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/policy_api/policy_args.hpp"

namespace acmesim {

template <class Interface>
class Registry {
 public:
  using Factory = std::function<std::unique_ptr<Interface>(const PolicyArgs&)>;
  struct Entry {
    std::string name;
    std::string summary;
    Factory make;
  };

  explicit Registry(std::string slot) : slot_{std::move(slot)} {}

  void add(std::string name, std::string summary, Factory make) {
    entries_.push_back(Entry{std::move(name), std::move(summary), std::move(make)});
    std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) { return a.name < b.name; });
  }

  /// Builds the policy `args.name()`; InputError listing the known names if there is none,
  /// or naming the first parameter key the policy did not read.
  std::unique_ptr<Interface> make(const PolicyArgs& args) const {
    for (const Entry& e : entries_) {
      if (e.name == args.name()) {
        auto policy = e.make(args);
        args.reject_unread();
        return policy;
      }
    }
    throw unknown_name_error(args.where(), slot_, "policy", names(), args.name());
  }

  /// Every parameter of the policy `name` (none if there is no such policy): it is built from
  /// PolicyArgs::describing, which records each parameter the policy reads.
  std::vector<ParamInfo> parameters(const std::string& name) const {
    for (const Entry& e : entries_) {
      if (e.name != name) continue;
      const PolicyArgs args = PolicyArgs::describing(slot_, name);
      e.make(args);
      return args.parameters();
    }
    return {};
  }

  bool contains(const std::string& name) const {
    return std::any_of(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.name == name; });
  }
  std::vector<std::string> names() const {
    std::vector<std::string> all;
    for (const Entry& e : entries_) all.push_back(e.name);
    return all;
  }
  const std::string& slot() const { return slot_; }
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  std::string slot_;
  std::vector<Entry> entries_;
};

template <class Policy, class Interface>
std::unique_ptr<Interface> make_policy(const PolicyArgs& args) {
  return std::make_unique<Policy>(args);
}

}  // namespace acmesim
