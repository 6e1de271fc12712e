#include "sim/policy_api/policy_args.hpp"

#include <vector>

namespace acmesim {

void PolicyArgs::reject_unread() const {
  if (!params_.IsMap()) return;
  for (const auto& entry : params_) {
    const std::string key = entry.first.as<std::string>();
    if (key == "name" || read_.count(key)) continue;
    std::vector<std::string> known;
    for (const auto& k : read_) known.push_back(k);
    const YAML::Mark mark = entry.first.Mark();
    const std::string place =
        mark.line >= 0 ? fmt::format("{}:{}:{}", where_file(), mark.line + 1, mark.column + 1) : where_;
    throw InputError(fmt::format("{}: {} '{}': unknown key '{}' (known: {})", place, slot_, name_, key,
                                 known.empty() ? std::string("none, it takes no parameters")
                                               : fmt::format("{}", fmt::join(known, ", "))));
  }
}

}  // namespace acmesim
