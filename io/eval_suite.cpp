#include "io/eval_suite.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <set>

#include "io/yaml.hpp"
#include "sim/core/error.hpp"

namespace acmesim {

namespace {

const std::vector<std::string> kTopKeys{"name", "description", "reference_checkpoint_gb", "model_init_s", "datasets"};
const std::vector<std::string> kDatasetKeys{"name",     "samples", "inference_s", "preprocess_s", "metric_s",
                                            "template", "labels",  "long_chain",  "note"};
constexpr PromptTemplate kTemplates[] = {PromptTemplate::Gen, PromptTemplate::Clp, PromptTemplate::Ppl};
// OpenCompass's perplexity templates have one prompt per answer label; a million is far beyond
// any real one and keeps the coupled policy's cost, samples x labels x 10, inside 64 bits.
constexpr std::uint32_t kMaxLabels = 1'000'000;

/// `template`, `labels`, `long_chain`: how the coupled policy's SizePartitioner prices the
/// dataset [OpenCompass SizePartitioner].
void read_pricing(const yaml::Node& item, EvalDataset& d) {
  if (item.has("template")) {
    const yaml::Node node = item["template"];
    const std::string text = node.as<std::string>();
    const auto* known =
        std::find_if(std::begin(kTemplates), std::end(kTemplates), [&](PromptTemplate t) { return name(t) == text; });
    if (known == std::end(kTemplates)) node.fail("one of gen, clp, ppl");
    d.prompt = *known;
  }
  if (d.prompt == PromptTemplate::Ppl) {
    d.labels = item.need<std::uint32_t>("labels", {.min = 1, .max = kMaxLabels});
  } else if (item.has("labels")) {
    item["labels"].fail(fmt::format("no labels with template {} (only a ppl template has them)", name(d.prompt)));
  }
  if (item.has("long_chain")) d.long_chain = item["long_chain"].as<bool>();
}

EvalSuite read_suite(const yaml::Node& root) {
  if (!root || root.is_null()) root.fail("a suite: a mapping with name and datasets");
  root.only_keys(kTopKeys);

  EvalSuite s;
  s.source = root.file();
  s.name = root.get<std::string>("name", root.file());
  if (root.has("reference_checkpoint_gb")) {
    s.reference_checkpoint_bytes =
        checkpoint_bytes(root["reference_checkpoint_gb"].as<double>({.min = 0.001, .max = kMaxCheckpointGb}));
  }
  if (root.has("model_init_s")) s.model_init = from_seconds(root["model_init_s"].as<double>(yaml::seconds_range()));

  const yaml::Node list = root.required("datasets", "a non-empty list of datasets");
  if (!list.is_list() || list.size() == 0) list.fail("a non-empty list of datasets");
  std::set<std::string> seen;
  for (const yaml::Node& entry : list.items("a non-empty list of datasets")) {
    entry.only_keys(kDatasetKeys);
    EvalDataset d;
    d.name = entry.need<std::string>("name");
    if (d.name.empty()) entry["name"].fail("a dataset name");
    if (!seen.insert(d.name).second) entry["name"].fail("a name no other dataset has");
    const yaml::Node item = entry.named(fmt::format("dataset '{}'", d.name));
    d.inference = from_seconds(item.need<double>("inference_s", yaml::seconds_range()));
    d.metric = from_seconds(item.need<double>("metric_s", yaml::seconds_range()));
    if (item.has("preprocess_s")) d.preprocess = from_seconds(item["preprocess_s"].as<double>(yaml::seconds_range()));
    if (item.has("samples")) d.samples = item["samples"].as<std::uint32_t>({.min = 1});
    read_pricing(item, d);
    s.datasets.push_back(std::move(d));
  }
  return s;
}

}  // namespace

EvalSuite parse_eval_suite(const std::string& name, const std::string& yaml_text) {
  return yaml::guard(name, [&] { return read_suite(yaml::parse_text(name, yaml_text, "suite")); });
}

EvalSuite load_eval_suite(const std::string& path) {
  return parse_eval_suite(path, yaml::read_file(path, "evaluation suite"));
}

}  // namespace acmesim
