// The evaluation model and its two policies: hand-computed makespans on tiny suites, the NIC
// sharing arithmetic, and the invariants of the plans on the bundled 63-dataset suite.
#include "sim/model/eval/eval_sim.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>

#include "io/eval_suite.hpp"
#include "io/policy_yaml.hpp"
#include "policies/catalog.hpp"
#include "sim/core/error.hpp"
#include "tools/eval_bench.hpp"

using namespace acmesim;

namespace {

struct Ds {
  double inference_s;
  double preprocess_s = 0;
  double metric_s = 0;
  std::uint32_t samples = 1000;
};

/// `bytes` is both the checkpoint and the suite's reference size, so actual inference = priors.
EvalSuite make_suite(const std::vector<Ds>& datasets, double init_s, std::int64_t bytes) {
  EvalSuite s;
  s.name = "tiny";
  s.reference_checkpoint_bytes = bytes;
  s.model_init = from_seconds(init_s);
  for (std::size_t i = 0; i < datasets.size(); ++i) {
    EvalDataset d;
    d.name = fmt::format("d{}", i);
    d.samples = datasets[i].samples;
    d.inference = from_seconds(datasets[i].inference_s);
    d.preprocess = from_seconds(datasets[i].preprocess_s);
    d.metric = from_seconds(datasets[i].metric_s);
    s.datasets.push_back(d);
  }
  return s;
}

/// policy("coupled"), policy("{name: decoupled, elastic: false}") or policy("decoupled", "{elastic: false}").
PolicyArgs policy(const std::string& block, const std::string& params = "") {
  if (params.empty()) return policy_from_text("evaluation", block, "<test>", 1);
  YAML::Node node = YAML::Load(params);
  node["name"] = block;
  return policy_args_from_yaml(node, "evaluation", block, YamlOrigin{"<test>", {}}, 1);
}

/// coupled with one trial per dataset in suite order (no SizePartitioner packing).
PolicyArgs per_dataset() { return policy("coupled", "{max_task_size: 0}"); }

EvalResult run(const EvalSuite& suite, EvalResources where, const PolicyArgs& args, EvalPlan* plan_out = nullptr,
               const EvalOptions& options = {}) {
  const Catalog catalog = builtin_catalog();
  const EvalRequest request{suite.reference_checkpoint_bytes, &suite};
  const EvalPlan plan = catalog.evaluations.make(args)->plan(request, where);
  if (plan_out) *plan_out = plan;
  return simulate_evaluation(request, where, plan, EvalHardware{}, options);
}

std::int64_t ms(const SimTime t) { return t.time_since_epoch().count(); }

// 25 Gb/s = 3.125 GB/s: 3.125 GB takes exactly 1 s through an unshared NIC and 125 ms over PCIe (25 GB/s).
constexpr std::int64_t k1s = 3'125'000'000;

EvalSuite bundled_suite() {
  return load_eval_suite(std::string(ACMESIM_SOURCE_DIR) + "/configs/eval/opencompass63.yaml");
}

}  // namespace

TEST_CASE(
    "coupled with one trial per dataset runs two datasets on one GPU one after the other, each loading, inferring and "
    "computing metrics") {
  const EvalSuite suite = make_suite({{100, 5, 20}, {50, 5, 10}}, 10, k1s);
  const EvalResult r = run(suite, {1, 1}, per_dataset());
  // d0: load 1 + init 10 + preprocess 5 + inference 100 + metric 20 = 136 s
  // d1: from 136: 1 + 10 + 5 + 50 + 10 = 76 s -> 212 s
  CHECK(ms(r.trials[0].end) == 136'000);
  CHECK(ms(r.trials[1].start) == 136'000);
  CHECK(ms(r.trials[1].loaded) == 137'000);
  CHECK(r.makespan.count() == 212'000);
  CHECK(r.gpu_held_ms == 212'000);
  CHECK(r.gpu_inference_ms == 150'000);
  CHECK(r.gpu_idle_held_ms() == 62'000);
  CHECK(r.metrics[0].on_gpu);
  CHECK(ms(r.metrics[1].start) == 202'000);
}

TEST_CASE("decoupled on one GPU stages once, splits the large dataset and moves metrics to the CPU") {
  const EvalSuite suite = make_suite({{100, 5, 20}, {50, 5, 10}}, 10, k1s);
  EvalPlan plan;
  const EvalResult r = run(suite, {1, 1}, policy("decoupled"), &plan);
  // Work 105 + 55 = 160 s on one GPU: "large" is > 80 s, so d0 splits in ceil(105/80) = 2 pieces.
  // One trial; d0 first (longer metrics). Precursor 1 s; host load 0.125 s; init 10 s.
  REQUIRE(plan.trials.size() == 1);
  CHECK(plan.trials[0].pieces ==
        std::vector<TrialPiece>{TrialPiece{0, 0, 2}, TrialPiece{0, 1, 2}, TrialPiece{1, 0, 1}});
  CHECK(ms(r.staged[0]) == 1'000);
  CHECK(ms(r.trials[0].start) == 1'000);
  CHECK(ms(r.trials[0].loaded) == 1'125);
  // d0: 11.125 + (5 + 50) + (5 + 50) = 121.125; metric on CPU until 141.125.
  // d1: 121.125 + 5 + 50 = 176.125 (GPU released); metric until 186.125.
  CHECK(ms(r.metrics[0].start) == 121'125);
  CHECK(ms(r.metrics[0].end) == 141'125);
  CHECK(ms(r.trials[0].end) == 176'125);
  CHECK(r.makespan.count() == 186'125);
  CHECK(r.gpu_held_ms == 175'125);
  CHECK_FALSE(r.metrics[0].on_gpu);
}

TEST_CASE("a dataset split across two GPUs runs its pieces in parallel and its metrics after the last piece") {
  // 120 s over 10 samples, 4 s preprocessing, 30 s metrics, one node of 2 GPUs.
  // Work 124 s, share 62 s: large is > 31 s, so ceil(124/31) = 4 pieces, each planned at
  // 120/4 + 4 = 34 s; equal work keeps their order: p0 -> GPU0, p1 -> GPU1, p2 -> GPU0, p3 -> GPU1.
  // Pieces cover samples [0,2) [2,5) [5,7) [7,10): 24, 36, 24 and 36 s of actual inference.
  const EvalSuite suite = make_suite({{120, 4, 30, 10}}, 10, k1s);
  EvalPlan plan;
  const EvalResult r = run(suite, {1, 2}, policy("decoupled"), &plan);
  REQUIRE(plan.trials.size() == 2);
  CHECK(plan.trials[0].pieces == std::vector<TrialPiece>{TrialPiece{0, 0, 4}, TrialPiece{0, 2, 4}});
  CHECK(plan.trials[1].pieces == std::vector<TrialPiece>{TrialPiece{0, 1, 4}, TrialPiece{0, 3, 4}});
  // Both GPUs: staged at 1 s, host load to 1.125, init to 11.125; then GPU0: 2 x (4 + 24) -> 67.125,
  // GPU1: 2 x (4 + 36) -> 91.125; metrics from 91.125 for 30 s.
  CHECK(ms(r.trials[0].end) == 67'125);
  CHECK(ms(r.trials[1].end) == 91'125);
  CHECK(r.gpu_inference_ms == 120'000);
  CHECK(ms(r.metrics[0].start) == 91'125);
  CHECK(r.makespan.count() == 121'125);
}

TEST_CASE("eight trials loading at once share the node's NIC equally; a staged model crosses it once") {
  const EvalSuite suite = make_suite(std::vector<Ds>(8, Ds{60}), 0, 14'000'000'000);
  SECTION("coupled: each trial gets 1/8 of 3.125 GB/s: 14 GB * 8 / 3.125 GB/s = 35.84 s") {
    const EvalResult r = run(suite, {1, 8}, per_dataset());
    for (const EvalTrialRecord& t : r.trials) CHECK(ms(t.loaded) == 35'840);
    CHECK(r.makespan.count() == 95'840);
    CHECK(r.load_wait_ms == 8 * 35'840);
  }
  SECTION("staged: the precursor alone takes 14 / 3.125 = 4.48 s, then each trial reads host memory in 0.56 s") {
    const EvalResult r = run(suite, {1, 8}, policy("decoupled", "{elastic: false}"));
    CHECK(ms(r.staged[0]) == 4'480);
    for (const EvalTrialRecord& t : r.trials) {
      CHECK(ms(t.start) == 4'480);
      CHECK(ms(t.loaded) == 5'040);
    }
    CHECK(r.makespan.count() == 65'040);
  }
}

TEST_CASE("a trial that starts loading while another is mid-transfer slows it down from that instant") {
  // 6.25 GB: 2 s alone, 4 s when two share the NIC. One node, two GPUs, suite order:
  // t=0 d0 (GPU0) and d1 (GPU1) load together until 4 s; d1 ends at 4.5 s and GPU1 takes d2;
  // d0 ends at 5 s and GPU0 takes d3. d2 loaded 1.5625 GB alone by 5 s, then shares: its other
  // 4.6875 GB at 1.5625 GB/s end at 8 s; d3 has 1.5625 GB left then, alone: 8.5 s.
  const EvalSuite suite = make_suite({{1}, {0.5}, {10}, {10}}, 0, 6'250'000'000);
  const EvalResult r = run(suite, {1, 2}, per_dataset());
  CHECK(ms(r.trials[0].loaded) == 4'000);
  CHECK(ms(r.trials[1].loaded) == 4'000);
  CHECK(ms(r.trials[2].start) == 4'500);
  CHECK(ms(r.trials[2].loaded) == 8'000);
  CHECK(ms(r.trials[3].start) == 5'000);
  CHECK(ms(r.trials[3].loaded) == 8'500);
  CHECK(r.makespan.count() == 18'500);
}

TEST_CASE("no policy ever runs more trials on a node than it has GPUs, nor two on one GPU") {
  const EvalSuite suite = bundled_suite();
  for (const char* p : {"coupled", "{name: coupled, max_task_size: 0}", "decoupled",
                        "{name: decoupled, elastic: false}", "{name: decoupled, stage_model: false}"}) {
    for (const int nodes : {1, 3}) {
      const PolicyArgs args = policy(p);
      const EvalResult r = run(suite, {nodes, 8}, args, nullptr, EvalOptions{0.2, 7});
      std::map<std::uint32_t, std::vector<std::pair<std::int64_t, int>>> edges;  // node -> (time, +1/-1)
      std::map<std::uint32_t, std::int64_t> gpu_free;
      std::vector<std::size_t> order(r.trials.size());
      for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::sort(order.begin(), order.end(), [&](auto a, auto b) { return r.trials[a].start < r.trials[b].start; });
      for (const std::size_t i : order) {
        const EvalTrialRecord& t = r.trials[i];
        CHECK(ms(t.start) >= gpu_free[t.gpu]);
        gpu_free[t.gpu] = ms(t.end);
        CHECK(t.node == t.gpu / 8);
        edges[t.node].emplace_back(ms(t.start), +1);
        edges[t.node].emplace_back(ms(t.end), -1);
      }
      for (auto& [n, e] : edges) {
        std::sort(e.begin(), e.end());  // ends (-1) before starts (+1) at equal times
        int running = 0;
        int peak = 0;
        for (const auto& [at, delta] : e) peak = std::max(peak, running += delta);
        CHECK(peak <= 8);
      }
    }
  }
}

TEST_CASE("metrics never start before the last piece of their dataset has finished inference") {
  const EvalSuite suite = bundled_suite();
  for (const char* params : {"{}", "{cpu_metrics: false}"}) {
    const EvalResult r = run(suite, {4, 8}, policy("decoupled", params), nullptr, EvalOptions{0.2, 3});
    std::vector<std::int64_t> last_inference(suite.datasets.size(), -1);
    for (const EvalPieceRecord& p : r.pieces) {
      last_inference[p.piece.dataset] = std::max(last_inference[p.piece.dataset], ms(p.inference_end));
    }
    for (std::size_t d = 0; d < suite.datasets.size(); ++d) {
      REQUIRE(last_inference[d] >= 0);
      CHECK(ms(r.metrics[d].start) >= last_inference[d]);
      CHECK((r.metrics[d].end - r.metrics[d].start) == suite.datasets[d].metric);
    }
  }
}

TEST_CASE("decoupled with every technique switched off is exactly coupled with one trial per dataset") {
  const EvalSuite suite = bundled_suite();
  for (const int nodes : {1, 4}) {
    EvalPlan a;
    EvalPlan b;
    const EvalOptions noisy{0.2, 11};
    const EvalResult coupled = run(suite, {nodes, 8}, per_dataset(), &a, noisy);
    const EvalResult off = run(
        suite, {nodes, 8}, policy("decoupled", "{stage_model: false, cpu_metrics: false, elastic: false}"), &b, noisy);
    CHECK(a == b);
    CHECK(coupled.fingerprint == off.fingerprint);
    CHECK(coupled.makespan == off.makespan);
    CHECK(coupled.gpu_held_ms == off.gpu_held_ms);
  }
}

TEST_CASE("the elastic plan runs every piece of every dataset once, at most one trial per GPU") {
  const EvalSuite suite = bundled_suite();
  EvalPlan plan;
  run(suite, {4, 8}, policy("decoupled"), &plan);
  CHECK(plan.trials.size() == 32);
  std::vector<std::uint32_t> gpus;
  for (const PlannedTrial& t : plan.trials) gpus.push_back(*t.gpu);
  std::sort(gpus.begin(), gpus.end());
  CHECK(std::adjacent_find(gpus.begin(), gpus.end()) == gpus.end());
  // simulate_evaluation validated the partition; the bundled suite's large datasets are split.
  std::uint32_t split = 0;
  for (const PlannedTrial& t : plan.trials) {
    for (const TrialPiece& p : t.pieces) split += (p.parts > 1 && p.part == 0);
  }
  CHECK(split > 0);
}

TEST_CASE("a plan that skips a dataset or runs a piece twice is a SimulationError") {
  const EvalSuite suite = make_suite({{10}, {10}}, 0, k1s);
  const EvalRequest request{k1s, &suite};
  EvalPlan plan;
  plan.trials.push_back(PlannedTrial{{TrialPiece{0, 0, 1}}, std::nullopt});
  CHECK_THROWS_AS(simulate_evaluation(request, {1, 1}, plan), SimulationError);
  plan.trials.push_back(PlannedTrial{{TrialPiece{0, 0, 1}}, std::nullopt});
  CHECK_THROWS_AS(simulate_evaluation(request, {1, 1}, plan), SimulationError);
  plan.trials.back() = PlannedTrial{{TrialPiece{1, 0, 1}}, 5u};
  CHECK_THROWS_AS(simulate_evaluation(request, {1, 1}, plan), SimulationError);
}

TEST_CASE("eval-bench output is byte-identical for the same seed and changes with the seed") {
  const Catalog catalog = builtin_catalog();
  const EvalSuite suite = bundled_suite();
  EvalBenchArgs args;
  args.runs = 2;
  args.ablation = true;
  const std::string first = eval_bench_table(args, suite, eval_bench(args, suite, catalog));
  const std::string again = eval_bench_table(args, suite, eval_bench(args, suite, catalog));
  CHECK(first == again);
  args.seed = 2;
  CHECK(eval_bench_table(args, suite, eval_bench(args, suite, catalog)) != first);
}

TEST_CASE("eval-bench speeds up the bundled suite more on four nodes than on one") {
  const Catalog catalog = builtin_catalog();
  const EvalSuite suite = bundled_suite();
  EvalBenchArgs args;
  args.runs = 3;
  const std::vector<EvalBenchRow> rows = eval_bench(args, suite, catalog);
  REQUIRE(rows.size() == 4);
  CHECK(rows[1].policy == "decoupled");
  CHECK(rows[1].mean_speedup() > 1.0);
  CHECK(rows[3].mean_speedup() > rows[1].mean_speedup());
}

TEST_CASE("eval-bench measures speedups over the first coupled policy, whatever its parameters") {
  const Catalog catalog = builtin_catalog();
  const EvalSuite suite = bundled_suite();
  EvalBenchArgs args;
  args.runs = 2;
  args.nodes = {4};
  args.policies = {"decoupled", "{name: coupled, max_task_size: 0}", "coupled"};
  const std::vector<EvalBenchRow> rows = eval_bench(args, suite, catalog);
  REQUIRE(rows.size() == 3);
  for (std::size_t run = 0; run < 2; ++run) {
    const auto base = static_cast<double>(rows[1].runs[run].makespan.count());
    CHECK(rows[0].speedups[run] == base / static_cast<double>(rows[0].runs[run].makespan.count()));
    CHECK(rows[1].speedups[run] == 1.0);
  }
  // Only the one-trial-per-dataset row runs HumanEval alone: the Fig 13 profile comes from it.
  CHECK(eval_bench_table(args, suite, rows).find("HumanEval trial under {name: coupled, max_task_size: 0} on 4") !=
        std::string::npos);
}
