#include "sim/model/eval/suite.hpp"

#include <catch2/catch.hpp>

#include "io/eval_suite.hpp"
#include "io/policy_yaml.hpp"
#include "policies/catalog.hpp"
#include "sim/core/error.hpp"

using namespace acmesim;

namespace {
std::string error_of(const std::string& yaml) {
  try {
    parse_eval_suite("s.yaml", yaml);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("the bundled suite has the paper's 63 datasets and the Fig 13 HumanEval numbers") {
  const EvalSuite s = load_eval_suite(std::string(ACMESIM_SOURCE_DIR) + "/configs/eval/opencompass63.yaml");
  CHECK(s.datasets.size() == 63);
  CHECK(s.reference_checkpoint_bytes == 14'600'000'000);
  const auto he = std::find_if(s.datasets.begin(), s.datasets.end(), [](auto& d) { return d.name == "HumanEval"; });
  REQUIRE(he != s.datasets.end());
  CHECK(he->metric == seconds(42));
  CHECK(he->samples == 164);
}

TEST_CASE("a suite file names the line and column of an unknown or malformed key") {
  CHECK(error_of("datasets:\n  - {name: a, inference_s: 1, metric_s: 1, inferense_s: 2}\n") ==
        "s.yaml:2:44: datasets[0]: expected a known key (name, samples, inference_s, preprocess_s, metric_s, "
        "template, labels, long_chain, note), found 'inferense_s' (did you mean 'inference_s'?)");
  CHECK(error_of("datasets:\n  - {name: a, inference_s: fast, metric_s: 1}\n") ==
        "s.yaml:2:28: dataset 'a'.inference_s: expected a number in [0, 315360000], found 'fast'");
  CHECK(error_of("datasets:\n  - {name: a, inference_s: 1}\n") ==
        "s.yaml:2:5: dataset 'a'.metric_s: expected a number in [0, 315360000] (a required key), found ''");
  CHECK(error_of("datasets:\n  - {name: a, inference_s: 1, metric_s: 1, samples: 2.5}\n") ==
        "s.yaml:2:53: dataset 'a'.samples: expected a whole number >= 1, found '2.5'");
  CHECK(error_of("model_init: 3\n").rfind("s.yaml:1:1: suite: expected a known key (", 0) == 0);
  CHECK(error_of("model_init: 3\n").find("found 'model_init'") != std::string::npos);
  CHECK(error_of("datasets: []\n").rfind("s.yaml:1:11: datasets: expected a non-empty list", 0) == 0);
}

TEST_CASE("a suite row reads its template, labels and long-chain flag, generation and plain by default") {
  const EvalSuite s = parse_eval_suite("s.yaml",
                                       "datasets:\n"
                                       "  - {name: a, inference_s: 1, metric_s: 1}\n"
                                       "  - {name: b, inference_s: 1, metric_s: 1, template: ppl, labels: 4}\n"
                                       "  - {name: c, inference_s: 1, metric_s: 1, template: clp, long_chain: true}\n");
  REQUIRE(s.datasets.size() == 3);
  CHECK(s.datasets[0].prompt == PromptTemplate::Gen);
  CHECK(s.datasets[0].labels == 0);
  CHECK_FALSE(s.datasets[0].long_chain);
  CHECK(s.datasets[1].prompt == PromptTemplate::Ppl);
  CHECK(s.datasets[1].labels == 4);
  CHECK(s.datasets[2].prompt == PromptTemplate::Clp);
  CHECK(s.datasets[2].long_chain);
}

TEST_CASE("a suite file names the place of a bad template, missing or stray labels and a bad long-chain flag") {
  CHECK(error_of("datasets:\n  - {name: a, inference_s: 1, metric_s: 1, template: mcq}\n") ==
        "s.yaml:2:54: dataset 'a'.template: expected one of gen, clp, ppl, found 'mcq'");
  CHECK(error_of("datasets:\n  - {name: a, inference_s: 1, metric_s: 1, template: ppl}\n") ==
        "s.yaml:2:5: dataset 'a'.labels: expected a whole number in [1, 1000000] (a required key), found ''");
  CHECK(error_of("datasets:\n  - {name: a, inference_s: 1, metric_s: 1, template: ppl, labels: 0}\n") ==
        "s.yaml:2:67: dataset 'a'.labels: expected a whole number in [1, 1000000], found '0'");
  CHECK(error_of("datasets:\n  - {name: a, inference_s: 1, metric_s: 1, labels: 4}\n") ==
        "s.yaml:2:52: dataset 'a'.labels: expected no labels with template gen (only a ppl template has them), "
        "found '4'");
  CHECK(error_of("datasets:\n  - {name: a, inference_s: 1, metric_s: 1, long_chain: maybe}\n") ==
        "s.yaml:2:56: dataset 'a'.long_chain: expected true or false, found 'maybe'");
}

TEST_CASE("the evaluation slot lists coupled and decoupled and rejects an unknown parameter") {
  const Catalog catalog = builtin_catalog();
  CHECK(catalog.evaluations.names() == std::vector<std::string>{"coupled", "decoupled"});
  const PolicyArgs typo = policy_from_text("evaluation", "{name: decoupled, elastc: false}", "x.yaml", 1);
  CHECK_THROWS_WITH(catalog.evaluations.make(typo),
                    Catch::Contains("expected a known key") && Catch::Contains("found 'elastc'"));
}
