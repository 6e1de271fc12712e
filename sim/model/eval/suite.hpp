#pragma once
/// The evaluation workload: a dataset suite (read from YAML) and an evaluation request (a model
/// checkpoint plus a suite). Plain values; the evaluation simulation (eval_sim.hpp) runs them.
///
/// Suite YAML (configs/eval/opencompass63.yaml is the bundled one):
///
///   name: opencompass-63
///   reference_checkpoint_gb: 14.6   # the checkpoint the inference priors were measured for
///   model_init_s: 15                # per trial: framework start-up after the bytes arrived
///   datasets:
///     - {name: HumanEval, samples: 164, inference_s: 107.4, preprocess_s: 22, metric_s: 42}
///     - {name: MMLU, samples: 14042, inference_s: 3482, metric_s: 10, template: ppl, labels: 4}
///     - {name: BBH, samples: 6511, inference_s: 4818, metric_s: 20, long_chain: true}
///
/// `template`, `labels` and `long_chain` are what OpenCompass's SizePartitioner prices a dataset
/// by (the `coupled` policy's partitioning [OpenCompass SizePartitioner]); `template` defaults
/// to gen, `labels` is required with ppl and refused otherwise, `long_chain` defaults to false.
/// Unknown keys are errors naming the valid ones; every error says file:line:col.
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/time.hpp"

namespace acmesim {

/// The kind of OpenCompass prompt template a dataset is inferred with [OpenCompass SizePartitioner]:
/// generation, conditional log-probability, or perplexity ranking over its answer labels.
enum class PromptTemplate : std::uint8_t { Gen, Clp, Ppl };

struct EvalDataset {
  std::string name;
  std::uint32_t samples = 1;  // the splittable size: a dataset splits into at most this many pieces
  Duration inference{};       // prior GPU time for the whole dataset, at the suite's reference checkpoint
  Duration preprocess{};      // dataset load + tokenisation + retrieval, paid by every trial that runs a piece
  Duration metric{};          // metric computation for the whole dataset (CPU or API bound)
  PromptTemplate prompt = PromptTemplate::Gen;
  std::uint32_t labels = 0;  // Ppl: answer labels, one forward pass each per sample; 0 for Gen and Clp
  bool long_chain = false;   // OpenCompass prices it x10 (chain-of-thought or long-prompt datasets)
};

/// "gen", "clp" or "ppl", as the suite YAML writes it.
std::string_view name(PromptTemplate t);

/// The largest checkpoint the evaluation model takes, in GB (100 TB): far beyond any model, and
/// small enough that its bytes, and the seconds to load them, stay exact integers.
inline constexpr double kMaxCheckpointGb = 100'000;
/// A checkpoint's size in GB (at most kMaxCheckpointGb) as bytes, rounded to the nearest.
inline std::int64_t checkpoint_bytes(double gb) { return std::llround(gb * 1e9); }

struct EvalSuite {
  std::string name;
  std::string source;  // file, for messages
  std::int64_t reference_checkpoint_bytes = 14'600'000'000;
  Duration model_init{};  // per trial, after the checkpoint bytes are in: build modules, cast, CUDA init
  std::vector<EvalDataset> datasets;
};

/// One checkpoint to evaluate on a suite. Inference priors scale linearly with checkpoint size
/// ([est]: prefill FLOPs and decode bytes per token grow with params).
struct EvalRequest {
  std::int64_t checkpoint_bytes = 14'600'000'000;
  const EvalSuite* suite = nullptr;  // must outlive the request

  /// The prior (or actual, when noise is applied by the caller) inference time of `d` for
  /// this checkpoint, in integer ms: d.inference * checkpoint_bytes / reference bytes.
  Duration inference_of(const EvalDataset& d) const;
};

}  // namespace acmesim
