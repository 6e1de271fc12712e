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
///
/// Unknown keys are errors naming the valid ones; every error says file:line:col.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/time.hpp"

namespace acmesim {

struct EvalDataset {
  std::string name;
  std::uint32_t samples = 1;  // the splittable size: a dataset splits into at most this many pieces
  Duration inference{};       // prior GPU time for the whole dataset, at the suite's reference checkpoint
  Duration preprocess{};      // dataset load + tokenisation + retrieval, paid by every trial that runs a piece
  Duration metric{};          // metric computation for the whole dataset (CPU or API bound)
};

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
