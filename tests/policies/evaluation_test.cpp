// The coupled baseline's partitioning (OpenCompass's SizePartitioner, heuristic strategy):
// hand-computed plans on tiny suites, one hand-computed run of a packed trial, and the bundled
// suite's split counts against the per-row table they were derived from.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "io/eval_suite.hpp"
#include "io/policy_yaml.hpp"
#include "policies/catalog.hpp"
#include "sim/model/eval/eval_sim.hpp"

using namespace acmesim;

namespace {

struct Row {
  std::uint32_t samples;
  PromptTemplate prompt = PromptTemplate::Gen;
  std::uint32_t labels = 0;
  bool long_chain = false;
  double inference_s = 10;
};

EvalSuite suite_of(const std::vector<Row>& rows) {
  EvalSuite s;
  s.name = "tiny";
  s.reference_checkpoint_bytes = 3'125'000'000;  // 1 s through an unshared 25 Gb/s NIC
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EvalDataset d;
    d.name = fmt::format("d{}", i);
    d.samples = rows[i].samples;
    d.inference = from_seconds(rows[i].inference_s);
    d.prompt = rows[i].prompt;
    d.labels = rows[i].labels;
    d.long_chain = rows[i].long_chain;
    s.datasets.push_back(d);
  }
  return s;
}

EvalPlan plan_of(const EvalSuite& suite, const std::string& policy, EvalResources where = {1, 8}) {
  const Catalog catalog = builtin_catalog();
  const EvalRequest request{suite.reference_checkpoint_bytes, &suite};
  return catalog.evaluations.make(policy_from_text("evaluation", policy, "<test>", 1))->plan(request, where);
}

/// The plan's trials as lists of pieces, for comparing with a hand-made partition.
std::vector<std::vector<TrialPiece>> trials_of(const EvalPlan& plan) {
  std::vector<std::vector<TrialPiece>> out;
  for (const PlannedTrial& t : plan.trials) {
    CHECK_FALSE(t.gpu.has_value());  // coupled uses the shared queue
    out.push_back(t.pieces);
  }
  return out;
}

constexpr PromptTemplate kPpl = PromptTemplate::Ppl;
constexpr PromptTemplate kClp = PromptTemplate::Clp;

}  // namespace

TEST_CASE("coupled splits a dataset whose cost exceeds max_task_size into equal sample ranges, one trial each") {
  // A generation dataset of 12 samples costs 12 x 20 = 240 > 100: 100 / 20 = 5 samples per range,
  // ceil(12 / 5) = 3 ranges, each counted as a full 100, so none shares a trial.
  const EvalSuite suite = suite_of({{12, PromptTemplate::Gen, 0, false, 12}});
  const EvalPlan plan = plan_of(suite, "{name: coupled, max_task_size: 100}");
  CHECK(trials_of(plan) == std::vector<std::vector<TrialPiece>>{{{0, 0, 3}}, {{0, 1, 3}}, {{0, 2, 3}}});
  // The ranges are samples [0,4), [4,8), [8,12): 4 s of the 12 s of inference each.
  const EvalResult r = simulate_evaluation(EvalRequest{suite.reference_checkpoint_bytes, &suite}, {1, 8}, plan);
  REQUIRE(r.pieces.size() == 3);
  for (const EvalPieceRecord& p : r.pieces) CHECK((p.inference_end - p.inference_start) == seconds(4));
}

TEST_CASE(
    "coupled packs datasets below max_task_size in decreasing cost, closing a trial when the next would overflow") {
  // Costs (max_task_size 100): d0 CLP 1 x 20 = 20, d1 PPL 10 x 5 labels = 50, d2 PPL 10 x 7 = 70,
  // d3 PPL 15 x 2 = 30, d4 PPL 10 x 3 = 30. Decreasing cost, ties in suite order: d2 70, d1 50,
  // d3 30, d4 30, d0 20. Next fit: [d2] (70 + 50 > 100), [d1 d3] (80 + 30 > 100), [d4 d0] (50).
  // First-fit would have put d3 beside d2; OpenCompass never looks back at a closed task.
  const EvalSuite suite = suite_of({{1, kClp}, {10, kPpl, 5}, {10, kPpl, 7}, {15, kPpl, 2}, {10, kPpl, 3}});
  const EvalPlan plan = plan_of(suite, "{name: coupled, max_task_size: 100}");
  CHECK(trials_of(plan) ==
        std::vector<std::vector<TrialPiece>>{{{2, 0, 1}}, {{1, 0, 1}, {3, 0, 1}}, {{4, 0, 1}, {0, 0, 1}}});
  CHECK_FALSE(plan.stage_model);
  CHECK_FALSE(plan.cpu_metrics);
}

TEST_CASE("coupled prices a long-chain dataset ten times, so it splits where its plain twin fits one trial") {
  // max_task_size 1000: d0, 30 generated samples, costs 600 and stays whole; d1, the same but
  // long_chain, costs 30 x 200 = 6,000: 1000 / 200 = 5 samples per range, 6 ranges. The ranges
  // (counted 1000 each) go first, then d0.
  const EvalSuite suite = suite_of({{30}, {30, PromptTemplate::Gen, 0, true}});
  std::vector<std::vector<TrialPiece>> expected;
  for (std::uint32_t p = 0; p < 6; ++p) expected.push_back({{1, p, 6}});
  expected.push_back({{0, 0, 1}});
  CHECK(trials_of(plan_of(suite, "{name: coupled, max_task_size: 1000}")) == expected);
  SECTION("a perplexity dataset is priced by its labels whatever gen_task_coef is; x10 applies to it too") {
    // gen_task_coef 40: d0 costs 1,200 and splits in ceil(30 / 25) = 2; d2 (PPL, 4 labels, 30
    // samples, long_chain) costs 30 x 40 = 1,200: ceil(30 / 25) = 2 ranges, after d0's in suite order.
    const EvalSuite more = suite_of({{30}, {30, PromptTemplate::Gen, 0, true}, {30, kPpl, 4, true}});
    const EvalPlan plan = plan_of(more, "{name: coupled, max_task_size: 1000, gen_task_coef: 40}");
    // d1: 30 x 400 = 12,000, 1000 / 400 = 2 per range, 15 ranges; then d0's 2 and d2's 2.
    REQUIRE(plan.trials.size() == 19);
    CHECK(plan.trials[14].pieces == std::vector<TrialPiece>{{1, 14, 15}});
    CHECK(plan.trials[15].pieces == std::vector<TrialPiece>{{0, 0, 2}});
    CHECK(plan.trials[17].pieces == std::vector<TrialPiece>{{2, 0, 2}});
  }
}

TEST_CASE("coupled splits a dataset costing more per sample than max_task_size into one-sample ranges") {
  // 3 long-chain generated samples cost 200 each > max_task_size 100: OpenCompass's
  // 100 // 200 = 0 samples per range would divide by zero; acmesim takes one sample per range.
  const EvalSuite suite = suite_of({{3, PromptTemplate::Gen, 0, true}});
  CHECK(trials_of(plan_of(suite, "{name: coupled, max_task_size: 100}")) ==
        std::vector<std::vector<TrialPiece>>{{{0, 0, 3}}, {{0, 1, 3}}, {{0, 2, 3}}});
}

TEST_CASE("coupled with max_task_size 0 runs one trial per dataset in suite order") {
  const EvalSuite suite = suite_of({{1, kClp}, {100000, PromptTemplate::Gen, 0, true}, {10, kPpl, 7}});
  CHECK(trials_of(plan_of(suite, "{name: coupled, max_task_size: 0}")) ==
        std::vector<std::vector<TrialPiece>>{{{0, 0, 1}}, {{1, 0, 1}}, {{2, 0, 1}}});
}

TEST_CASE("a packed coupled trial loads the model once and computes each dataset's metrics on its GPU in turn") {
  // Two generation datasets of 1000 samples cost 20,000 each: one trial at the default 40,000.
  // Load 1 s + init 10 s; d0 5 + 100 s, metrics 20 s on the GPU; d1 5 + 50 s, metrics 10 s = 201 s.
  EvalSuite suite = suite_of({{1000, PromptTemplate::Gen, 0, false, 100}, {1000, PromptTemplate::Gen, 0, false, 50}});
  suite.model_init = seconds(10);
  suite.datasets[0].preprocess = seconds(5);
  suite.datasets[1].preprocess = seconds(5);
  suite.datasets[0].metric = seconds(20);
  suite.datasets[1].metric = seconds(10);
  const EvalPlan plan = plan_of(suite, "coupled", {1, 1});
  REQUIRE(plan.trials.size() == 1);
  const EvalResult r = simulate_evaluation(EvalRequest{suite.reference_checkpoint_bytes, &suite}, {1, 1}, plan);
  CHECK(r.trials[0].loaded.time_since_epoch().count() == 1'000);
  CHECK(r.metrics[0].on_gpu);
  CHECK(r.metrics[0].start.time_since_epoch().count() == 116'000);
  CHECK(r.metrics[1].start.time_since_epoch().count() == 191'000);
  CHECK(r.makespan == seconds(201));
  CHECK(r.load_wait_ms == 11'000);
}

TEST_CASE("coupled splits the bundled suite's rows into as many ranges as SizePartitioner at its defaults") {
  // The row-level counts ceil(N / (40000 // factor)) for every row costing over 40,000.
  const EvalSuite suite = load_eval_suite(std::string(ACMESIM_SOURCE_DIR) + "/configs/eval/opencompass63.yaml");
  const EvalPlan plan = plan_of(suite, "coupled", {4, 8});
  std::map<std::string, std::uint32_t> parts;
  std::map<std::string, std::size_t> trial_of;
  for (std::size_t t = 0; t < plan.trials.size(); ++t) {
    for (const TrialPiece& p : plan.trials[t].pieces) {
      parts[suite.datasets[p.dataset].name] = p.parts;
      trial_of[suite.datasets[p.dataset].name] = t;
    }
  }
  const std::map<std::string, std::uint32_t> split{{"BBH", 33},          {"Jigsaw-multilingual", 32},
                                                   {"MATH", 25},         {"AGIEval-GEN", 17},
                                                   {"StrategyQA", 12},   {"Flores", 11},
                                                   {"GSM8K", 7},         {"ReCoRD", 5},
                                                   {"CivilComments", 5}, {"TriviaQA", 5},
                                                   {"TyDiQA-GoldP", 3},  {"DROP", 3},
                                                   {"LAMBADA", 3},       {"NaturalQuestions", 2},
                                                   {"DRCD", 2},          {"CMRC2018", 2},
                                                   {"MMLU", 2},          {"TNEWS", 2},
                                                   {"CMMLU", 2},         {"HellaSwag", 2}};
  std::uint32_t ranges = 0;
  for (const auto& [name, n] : parts) {
    INFO(name);
    const auto it = split.find(name);
    CHECK(n == (it == split.end() ? 1u : it->second));
    if (n > 1) ranges += n;
  }
  CHECK(ranges == 175);
  CHECK(plan.trials.size() == 186);
  // Every range is a trial of its own and the ranges come first, BBH's (the costliest) at the head.
  CHECK(plan.trials[0].pieces == std::vector<TrialPiece>{{42, 0, 33}});
  for (std::size_t t = 0; t < ranges; ++t) CHECK(plan.trials[t].pieces.size() == 1);
  // GAOKAO-Bench-GEN (32,220) is whole and shares no trial: the next chunk would overflow it.
  CHECK(plan.trials[trial_of["GAOKAO-Bench-GEN"]].pieces.size() == 1);
  // HumanEval (164 x 20 = 3,280) shares its trial with other small datasets.
  CHECK(plan.trials[trial_of["HumanEval"]].pieces.size() > 1);
}
