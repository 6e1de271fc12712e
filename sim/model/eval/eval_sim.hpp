#pragma once
/// One evaluation request carried out on an otherwise idle set of nodes, under a plan decided by
/// an evaluation policy: a small discrete-event model of its own (events in sim/model/eval/events.hpp).
///
/// What it models (docs/evaluation.md has the reasoning and sources):
///  - Remote model loading goes through the node's storage NIC, shared equally by every transfer
///    on that node at that moment (processor sharing, a fluid model). When the set of transfers
///    on a node changes, the remaining bytes of each are brought up to date and the node's next
///    completion is rescheduled; the old event becomes stale (version counter), never searched.
///  - A staged model (precursor per node) costs one NIC transfer per node; trials on that node
///    wait for it and then read host memory over their own PCIe link (not shared).
///  - A trial holds one GPU for: load, model init, then per piece: preprocessing + inference,
///    and, when metrics are not moved to CPUs, the metrics of each dataset whose last piece it ran.
///  - Each dataset's metrics run once, after all its pieces' inference (OpenCompass runs one
///    eval task per model-dataset pair [OpenCompass NaivePartitioner]). CPU metric jobs start at
///    once: an 8-GPU Acme node has 128 CPU threads [Acme Table 1] and a metric job uses a few.
///
/// Cost: O(log pending events) per event; a NIC change costs O(transfers on that node) (<= GPUs+1).
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/time.hpp"
#include "sim/model/eval/plan.hpp"
#include "sim/model/eval/suite.hpp"

namespace acmesim {

struct EvalHardware {
  // [Acme §6.2, Fig 16]: model loading from remote storage is limited
  // by a 25 Gb/s storage NIC per node, shared by the trials on it.
  std::int64_t storage_nic_bits_per_s = 25'000'000'000;
  // [PCIe4; est]: PCIe Gen4 x16 moves ~25 GB/s in practice; each GPU has its own link.
  std::int64_t pcie_bytes_per_s = 25'000'000'000;
};

struct EvalOptions {
  /// Actual inference time = prior x lognormal(0, sigma), one factor per dataset, from
  /// Rng{seed, "eval/runtime/<dataset>"}. 0 = actuals equal priors.
  double noise_sigma = 0.0;
  std::uint64_t seed = 1;
};

struct EvalTrialRecord {
  std::uint32_t gpu = 0;
  std::uint32_t node = 0;
  SimTime start{};   // GPU taken
  SimTime loaded{};  // checkpoint bytes in GPU memory (before model init)
  SimTime end{};     // GPU released
};

struct EvalPieceRecord {
  TrialPiece piece;
  std::uint32_t trial = 0;
  SimTime inference_start{};  // after preprocessing
  SimTime inference_end{};
};

struct EvalMetricRecord {
  SimTime start{};
  SimTime end{};
  bool on_gpu = false;
};

struct EvalResult {
  int gpus = 0;
  Duration makespan{};                    // request start -> last metric computed
  std::int64_t gpu_held_ms = 0;           // sum over trials of the time they held a GPU
  std::int64_t gpu_inference_ms = 0;      // of which running inference
  std::int64_t load_wait_ms = 0;          // held from taking the GPU to the end of model init
  std::vector<EvalTrialRecord> trials;    // by plan index
  std::vector<EvalPieceRecord> pieces;    // in completion order
  std::vector<EvalMetricRecord> metrics;  // by dataset
  std::vector<SimTime> staged;            // per node, when the precursor finished (stage_model only)
  std::uint64_t events = 0;
  std::string fingerprint;

  /// GPU time held by trials but not running inference: loading, init, preprocessing, metrics.
  std::int64_t gpu_idle_held_ms() const { return gpu_held_ms - gpu_inference_ms; }
};

/// Runs `plan` for `request` on `resources`. Throws SimulationError if the plan is not a valid
/// partition of the suite (every piece of every dataset exactly once) or pins a GPU out of range.
EvalResult simulate_evaluation(const EvalRequest& request, const EvalResources& resources, const EvalPlan& plan,
                               const EvalHardware& hardware = {}, const EvalOptions& options = {});

/// Actual inference time of every dataset for `request` (priors scaled to the checkpoint, times noise).
std::vector<Duration> actual_inference(const EvalRequest& request, const EvalOptions& options);

}  // namespace acmesim
