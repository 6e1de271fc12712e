#include "io/eval_suite.hpp"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "sim/core/error.hpp"

namespace acmesim {

namespace {

const std::vector<std::string> kTopKeys{"name", "description", "reference_checkpoint_gb", "model_init_s", "datasets"};
const std::vector<std::string> kDatasetKeys{"name", "samples", "inference_s", "preprocess_s", "metric_s", "note"};

std::string where(const std::string& file, const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  if (mark.line < 0) return file;
  return fmt::format("{}:{}:{}", file, mark.line + 1, mark.column + 1);
}

void only_keys(const std::string& file, const std::string& what, const YAML::Node& node,
               const std::vector<std::string>& valid) {
  if (!node.IsMap()) {
    throw InputError(fmt::format("{}: {}: expected a mapping of keys to values, found '{}'", where(file, node), what,
                                 YAML::Dump(node)));
  }
  for (const auto& entry : node) {
    const std::string k = entry.first.as<std::string>();
    if (std::find(valid.begin(), valid.end(), k) == valid.end()) {
      throw InputError(fmt::format("{}: {}: unknown key '{}' (valid: {})", where(file, entry.first), what, k,
                                   fmt::join(valid, ", ")));
    }
  }
}

double number(const std::string& file, const std::string& what, const YAML::Node& node, double min_value) {
  double value = 0;
  try {
    value = node.as<double>();
  } catch (const YAML::Exception&) {
    throw InputError(
        fmt::format("{}: {}: expected a number >= {}, found '{}'", where(file, node), what, min_value, YAML::Dump(node)));
  }
  if (!(value >= min_value)) {
    throw InputError(
        fmt::format("{}: {}: expected a number >= {}, found '{}'", where(file, node), what, min_value, YAML::Dump(node)));
  }
  return value;
}

}  // namespace

EvalSuite parse_eval_suite(const std::string& name, const std::string& yaml_text) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::ParserException& e) {
    throw InputError(fmt::format("{}:{}:{}: not valid YAML: {}", name, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
  if (!root || root.IsNull()) throw InputError(fmt::format("{}: empty suite file: expected name and datasets", name));
  only_keys(name, "suite", root, kTopKeys);

  EvalSuite s;
  s.source = name;
  s.name = root["name"] ? root["name"].as<std::string>() : name;
  if (root["reference_checkpoint_gb"]) {
    const double gb = number(name, "reference_checkpoint_gb", root["reference_checkpoint_gb"], 0.001);
    s.reference_checkpoint_bytes = static_cast<std::int64_t>(gb * 1e9 + 0.5);
  }
  if (root["model_init_s"]) s.model_init = from_seconds(number(name, "model_init_s", root["model_init_s"], 0));

  const YAML::Node list = root["datasets"];
  if (!list || !list.IsSequence() || list.size() == 0) {
    throw InputError(fmt::format("{}: datasets: expected a non-empty list of datasets, found '{}'",
                                 list ? where(name, list) : name, list ? YAML::Dump(list) : "nothing"));
  }
  std::set<std::string> seen;
  for (const YAML::Node& item : list) {
    only_keys(name, "dataset", item, kDatasetKeys);
    EvalDataset d;
    if (!item["name"] || !item["name"].IsScalar() || item["name"].as<std::string>().empty()) {
      throw InputError(fmt::format("{}: dataset: expected a 'name', found none", where(name, item)));
    }
    d.name = item["name"].as<std::string>();
    if (!seen.insert(d.name).second) {
      throw InputError(fmt::format("{}: dataset '{}': name used twice", where(name, item["name"]), d.name));
    }
    const std::string what = fmt::format("dataset '{}'", d.name);
    for (const char* required : {"inference_s", "metric_s"}) {
      if (!item[required]) {
        throw InputError(fmt::format("{}: {}: expected key '{}', found none", where(name, item), what, required));
      }
    }
    d.inference = from_seconds(number(name, what + " inference_s", item["inference_s"], 0));
    d.metric = from_seconds(number(name, what + " metric_s", item["metric_s"], 0));
    if (item["preprocess_s"]) d.preprocess = from_seconds(number(name, what + " preprocess_s", item["preprocess_s"], 0));
    if (item["samples"]) {
      const double n = number(name, what + " samples", item["samples"], 1);
      if (n != static_cast<double>(static_cast<std::uint32_t>(n))) {
        throw InputError(fmt::format("{}: {} samples: expected a whole number >= 1, found '{}'",
                                     where(name, item["samples"]), what, YAML::Dump(item["samples"])));
      }
      d.samples = static_cast<std::uint32_t>(n);
    }
    s.datasets.push_back(std::move(d));
  }
  return s;
}

EvalSuite load_eval_suite(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot open the evaluation suite file", path));
  std::stringstream text;
  text << in.rdbuf();
  return parse_eval_suite(path, text.str());
}

}  // namespace acmesim
