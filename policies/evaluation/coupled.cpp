// coupled: the pre-Acme baseline. Each trial loads the model from remote storage itself, runs
// its datasets' inference and then computes their metrics while still holding its GPU
// [Acme §6.2, Fig 13]. The trials are the tasks OpenCompass's default inference partitioner of
// 2023, SizePartitioner with its `heuristic` strategy, makes of the suite
// [OpenCompass SizePartitioner]:
//   1. cost(d) = samples x factor; factor = the number of answer labels for a perplexity (ppl)
//      template, gen_task_coef (20) for a generation or CLP template; x10 for the long-chain
//      datasets (OpenCompass's bbh*, gsm8k*, math*, strategyqa*, agieval-jec*,
//      agieval-gaokao-mathcloze, agieval-math, *professional_law; the suite's `long_chain`).
//   2. Datasets in decreasing cost (ties: suite order). One costing more than max_task_size
//      splits into ceil(samples / (max_task_size / factor)) equal sample ranges (integer
//      division; at least one sample per range), each counted as a full max_task_size.
//   3. The chunks (ranges and whole datasets) in decreasing counted cost (ties: the order of 2)
//      fill tasks one after another: a task is closed when the next chunk would take it past
//      max_task_size (next fit). A task is a trial; its chunks run in that order.
//   4. Trials are submitted in task order to the shared queue (lowest-numbered idle GPU first).
// max_task_size 0 gives one trial per dataset in suite order (the paper's words for the baseline,
// "one trial per dataset" [Acme §6.2]). Cost: O(D log D + P log P) for D datasets, P chunks.
//
// Where this differs from OpenCompass: it partitions the suite's rows, while OpenCompass
// partitions dataset configs (MMLU's 57 subjects are 57 of them), and a row's ranges differ by
// at most one sample where OpenCompass's last range takes the remainder (same count of ranges).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/policy_api/evaluation.hpp"
#include "sim/policy_api/policy_args.hpp"

namespace acmesim::policies {

namespace {

class Coupled final : public EvaluationPolicy {
 public:
  explicit Coupled(const PolicyArgs& args)
      // OpenCompass's defaults of 2023: --max-partition-size 40000, --gen-task-coef 20
      // [OpenCompass SizePartitioner]. The bounds keep samples x factor inside 64 bits.
      : max_task_size_{args.whole("max_task_size", 40'000, Range{0, 1e9},
                                  "SizePartitioner's most cost units per trial; 0 = one trial per dataset")},
        gen_task_coef_{
            args.whole("gen_task_coef", 20, Range{1, 1e6}, "cost units per sample of a generation or CLP dataset")} {}

  EvalPlan plan(const EvalRequest& request, const EvalResources&) const override {
    EvalPlan plan;
    const auto& datasets = request.suite->datasets;
    const auto n = static_cast<std::uint32_t>(datasets.size());
    if (max_task_size_ == 0) {
      plan.trials.reserve(n);
      for (std::uint32_t d = 0; d < n; ++d) plan.trials.push_back(PlannedTrial{{TrialPiece{d, 0, 1}}, std::nullopt});
      return plan;
    }

    // 1. Cost per dataset.
    const std::int64_t max_size = max_task_size_;
    std::vector<std::int64_t> factor(n);
    std::vector<std::int64_t> cost(n);
    for (std::uint32_t d = 0; d < n; ++d) {
      const EvalDataset& ds = datasets[d];
      const std::int64_t base = ds.prompt == PromptTemplate::Ppl ? std::int64_t{ds.labels} : gen_task_coef_;
      factor[d] = std::max<std::int64_t>(1, base) * (ds.long_chain ? 10 : 1);
      cost[d] = std::int64_t{ds.samples} * factor[d];
    }

    // 2. Split, in decreasing cost.
    std::vector<std::uint32_t> order(n);
    for (std::uint32_t d = 0; d < n; ++d) order[d] = d;
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return cost[a] > cost[b]; });
    struct Chunk {
      std::int64_t size;
      TrialPiece piece;
    };
    std::vector<Chunk> chunks;
    for (const std::uint32_t d : order) {
      if (cost[d] <= max_size) {
        chunks.push_back(Chunk{cost[d], TrialPiece{d, 0, 1}});
        continue;
      }
      const std::int64_t samples = datasets[d].samples;
      const std::int64_t step = std::max<std::int64_t>(1, max_size / factor[d]);
      const auto parts = static_cast<std::uint32_t>((samples + step - 1) / step);
      for (std::uint32_t p = 0; p < parts; ++p) chunks.push_back(Chunk{max_size, TrialPiece{d, p, parts}});
    }

    // 3. Next-fit packing in decreasing counted cost.
    std::stable_sort(chunks.begin(), chunks.end(), [](const Chunk& a, const Chunk& b) { return a.size > b.size; });
    PlannedTrial task;
    std::int64_t filled = 0;
    for (std::size_t i = 0; i < chunks.size(); ++i) {
      filled += chunks[i].size;
      task.pieces.push_back(chunks[i].piece);
      if (i + 1 == chunks.size() || filled + chunks[i + 1].size > max_size) {
        plan.trials.push_back(std::move(task));
        task = PlannedTrial{};
        filled = 0;
      }
    }
    return plan;
  }

 private:
  int max_task_size_;
  int gen_task_coef_;
};

}  // namespace

std::unique_ptr<EvaluationPolicy> make_coupled(const PolicyArgs& args) { return std::make_unique<Coupled>(args); }

}  // namespace acmesim::policies
