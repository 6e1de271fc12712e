#include "io/policy_yaml.hpp"

#include <fmt/format.h>

#include "io/yaml.hpp"
#include "sim/core/error.hpp"

namespace acmesim {

namespace {

/// The override's place if `path` was overridden, else file:line:col (the file alone when the
/// node was made by an override and has no mark).
std::string place_of(const std::string& path, const YAML::Node& node, const YamlOrigin& origin,
                     const std::string& unmarked) {
  if (const yaml::Override* o = yaml::override_of(origin.overridden, path)) return o->place;
  const YAML::Mark mark = node.Mark();
  if (mark.line < 0) return unmarked;
  return place(origin.file, mark.line + 1, mark.column + 1);
}

/// Bounds on a policy parameter's value, our choice: far beyond any real parameter (a CDF, a
/// table of quotas), and what keeps a hostile one from exhausting the stack (deep nesting: each
/// level is a recursive call) or memory and time (an alias bomb: aliases are expanded, so a
/// few lines can stand for billions of values).
constexpr int kMaxDepth = 64;
constexpr std::size_t kMaxValues = 100'000;

struct TreeBudget {
  std::size_t values_left = kMaxValues;
};

ParamValue tree(const YAML::Node& node, const std::string& path, const YamlOrigin& origin, int depth,
                TreeBudget& budget) {
  ParamValue value;
  value.place = place_of(path, node, origin, origin.file);
  if (depth > kMaxDepth) {
    throw input_error(value.place, path, fmt::format("at most {} levels of nesting", kMaxDepth), "deeper nesting");
  }
  if (budget.values_left == 0) {
    throw input_error(value.place, path,
                      fmt::format("at most {} values in all (an alias counts at every use)", kMaxValues), "more");
  }
  --budget.values_left;
  switch (node.Type()) {
    case YAML::NodeType::Sequence:
      value.kind = ParamValue::Kind::List;
      for (std::size_t i = 0; i < node.size(); ++i) {
        value.items.push_back(tree(node[i], fmt::format("{}.{}", path, i), origin, depth + 1, budget));
      }
      break;
    case YAML::NodeType::Map:
      value.kind = ParamValue::Kind::Map;
      for (const auto& entry : node) {
        if (!entry.first.IsScalar()) {
          // Not dumped into the message: a key can be an alias bomb too.
          throw input_error(place_of(path, entry.first, origin, origin.file), path,
                            "a plain key (a name or a number, not a list or a mapping)", "a list or a mapping");
        }
        const std::string& key = entry.first.Scalar();
        const std::string key_path = path + "." + key;
        value.entries.push_back(ParamEntry{key, place_of(key_path, entry.first, origin, ""),
                                           tree(entry.second, key_path, origin, depth + 1, budget)});
      }
      break;
    case YAML::NodeType::Scalar:
      value.kind = ParamValue::Kind::Scalar;
      value.text = node.Scalar();
      break;
    default:
      value.kind = ParamValue::Kind::Null;
  }
  return value;
}

}  // namespace

ParamValue param_value_from_yaml(const YAML::Node& node, const std::string& path, const YamlOrigin& origin) {
  TreeBudget budget;
  return tree(node, path, origin, 0, budget);
}

PolicyArgs policy_args_from_yaml(const YAML::Node& block, const std::string& slot, const std::string& fallback_name,
                                 const YamlOrigin& origin, std::uint64_t seed) {
  if (!block) return PolicyArgs{slot, fallback_name, ParamValue{}, origin.file, seed, csv_table_reader()};
  const std::string where = place_of(slot, block, origin, origin.file);
  if (block.IsScalar()) return PolicyArgs{slot, block.Scalar(), ParamValue{}, where, seed, csv_table_reader()};
  if (!block.IsMap() || !block["name"] || !block["name"].IsScalar()) {
    throw input_error(where, slot, "a policy name, or a mapping with 'name' and the policy's parameters",
                      YAML::Dump(block));
  }
  ParamValue params = param_value_from_yaml(block, slot, origin);
  return PolicyArgs{slot, block["name"].Scalar(), std::move(params), where, seed, csv_table_reader()};
}

PolicyArgs policy_block(const yaml::Node& block, const std::string& slot, const std::string& fallback,
                        std::uint64_t seed) {
  if (block && !block.is_scalar()) {
    const std::string expected = "a policy name, or a mapping with 'name' and the policy's parameters";
    if (!block.is_map() || !block.has("name") || !block["name"].is_scalar()) block.fail(expected);
    block.entries(expected);  // every parameter key a plain scalar, as PolicyArgs reads them
  }
  return policy_args_from_yaml(block.raw(), slot, fallback, YamlOrigin{block.file(), block.overridden()}, seed);
}

PolicyArgs policy_from_text(const std::string& slot, const std::string& text, const std::string& where,
                            std::uint64_t seed) {
  return yaml::guard(where, [&] {
    const yaml::Node block = yaml::parse_text(where, text, slot);
    if (!block || block.is_null()) block.fail("a policy name, or a mapping with 'name' and the policy's parameters");
    return policy_block(block, slot, "", seed);
  });
}

}  // namespace acmesim
