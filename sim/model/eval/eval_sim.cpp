#include "sim/model/eval/eval_sim.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/random/lognormal_distribution.hpp>
#include <cmath>
#include <deque>
#include <optional>

#include "sim/core/error.hpp"
#include "sim/core/rng.hpp"
#include "sim/model/eval/events.hpp"

namespace acmesim {

namespace {

using eval::EvalEngine;
using eval::GpuStepDone;
using eval::MetricDone;
using eval::TransferDue;

constexpr std::int32_t kPrecursor = -1;  // owner of a NIC transfer that is a node's precursor

struct Transfer {
  std::int32_t owner;      // GPU index, or kPrecursor
  std::int64_t remaining;  // bytes
};

struct NodeState {
  std::vector<Transfer> transfers;  // in start order
  SimTime last_update{};
  std::uint64_t version = 0;
  bool staged = false;
  std::vector<std::uint32_t> waiting;  // GPUs that wait for the precursor before taking a trial
};

enum class Step { None, Loading, HostLoad, Init, Piece, Metric };

struct GpuState {
  std::uint32_t node = 0;
  std::deque<std::uint32_t> pinned;  // plan indices
  std::optional<std::uint32_t> trial;
  std::size_t next_piece = 0;
  Step step = Step::None;
  SimTime step_start{};
  std::int64_t step_inference_ms = 0;  // of the current Piece step
  std::uint32_t metric_dataset = 0;
};

class EvalSimulation {
 public:
  EvalSimulation(const EvalRequest& request, const EvalResources& resources, const EvalPlan& plan,
                 const EvalHardware& hardware, const EvalOptions& options)
      : request_{request},
        suite_{*request.suite},
        plan_{plan},
        hardware_{hardware},
        nic_bytes_per_s_{hardware.storage_nic_bits_per_s / 8},
        inference_{actual_inference(request, options)} {
    if (nic_bytes_per_s_ <= 0 || hardware.pcie_bytes_per_s <= 0) {
      throw InputError("evaluation hardware: NIC and PCIe bandwidths must be positive");
    }
    result_.gpus = resources.gpus();
    nodes_.resize(static_cast<std::size_t>(resources.nodes));
    gpus_.resize(static_cast<std::size_t>(resources.gpus()));
    for (std::size_t g = 0; g < gpus_.size(); ++g) {
      gpus_[g].node = static_cast<std::uint32_t>(g / static_cast<std::size_t>(resources.gpus_per_node));
    }
    validate();
    for (std::uint32_t t = 0; t < plan_.trials.size(); ++t) {
      if (plan_.trials[t].gpu)
        gpus_[*plan_.trials[t].gpu].pinned.push_back(t);
      else
        shared_.push_back(t);
    }
    result_.trials.resize(plan_.trials.size());
    result_.metrics.resize(suite_.datasets.size());
    if (plan_.stage_model) result_.staged.resize(nodes_.size());
  }

  EvalResult run() {
    if (plan_.stage_model) {
      for (std::uint32_t n = 0; n < nodes_.size(); ++n) add_transfer(n, kPrecursor);
    }
    for (std::uint32_t g = 0; g < gpus_.size(); ++g) start_next_trial(g);
    while (auto event = engine_.next()) {
      std::visit([this](const auto& e) { on(e); }, event->body);
    }
    finish();
    return std::move(result_);
  }

 private:
  void validate() const {
    std::vector<std::vector<bool>> seen(suite_.datasets.size());
    std::vector<std::uint32_t> parts(suite_.datasets.size(), 0);
    for (const PlannedTrial& t : plan_.trials) {
      if (t.gpu && *t.gpu >= gpus_.size()) {
        throw SimulationError(fmt::format("evaluation plan pins a trial to GPU {} of {}", *t.gpu, gpus_.size()));
      }
      if (t.pieces.empty()) throw SimulationError("evaluation plan has a trial without pieces");
      for (const TrialPiece& p : t.pieces) {
        if (p.dataset >= suite_.datasets.size() || p.parts == 0 || p.part >= p.parts ||
            p.parts > suite_.datasets[p.dataset].samples) {
          throw SimulationError(
              fmt::format("evaluation plan has an invalid piece {}/{} of dataset {}", p.part, p.parts, p.dataset));
        }
        if (parts[p.dataset] == 0) {
          parts[p.dataset] = p.parts;
          seen[p.dataset].assign(p.parts, false);
        }
        if (parts[p.dataset] != p.parts || seen[p.dataset][p.part]) {
          throw SimulationError(
              fmt::format("evaluation plan runs piece {}/{} of dataset '{}' twice or with "
                          "inconsistent splits",
                          p.part, p.parts, suite_.datasets[p.dataset].name));
        }
        seen[p.dataset][p.part] = true;
      }
    }
    for (std::size_t d = 0; d < suite_.datasets.size(); ++d) {
      if (parts[d] == 0 || std::find(seen[d].begin(), seen[d].end(), false) != seen[d].end()) {
        throw SimulationError(
            fmt::format("evaluation plan does not run every piece of dataset '{}'", suite_.datasets[d].name));
      }
    }
  }

  // --- storage NIC: processor sharing among the transfers of one node -------------------------

  /// Brings every transfer on `node` up to now: each got 1/k of the NIC since the last change.
  void advance(NodeState& node) {
    const std::int64_t elapsed = (engine_.now() - node.last_update).count();
    const auto k = static_cast<std::int64_t>(node.transfers.size());
    if (elapsed > 0 && k > 0) {
      const std::int64_t progress = elapsed * nic_bytes_per_s_ / (1000 * k);
      for (Transfer& t : node.transfers) t.remaining = std::max<std::int64_t>(0, t.remaining - progress);
    }
    node.last_update = engine_.now();
  }

  /// One pending event per node: the earliest completion at the current share. Bumping the
  /// version makes any earlier event of this node stale.
  void reschedule(std::uint32_t n) {
    NodeState& node = nodes_[n];
    ++node.version;
    if (node.transfers.empty()) return;
    const auto k = static_cast<std::int64_t>(node.transfers.size());
    std::int64_t least = node.transfers.front().remaining;
    for (const Transfer& t : node.transfers) least = std::min(least, t.remaining);
    // ceil(least * k / rate): at that instant floor(elapsed * rate / k) >= least.
    const std::int64_t ms = (least * k * 1000 + nic_bytes_per_s_ - 1) / nic_bytes_per_s_;
    engine_.schedule(engine_.now() + Duration{ms}, TransferDue{n, node.version});
  }

  void add_transfer(std::uint32_t n, std::int32_t owner) {
    NodeState& node = nodes_[n];
    advance(node);
    node.transfers.push_back(Transfer{owner, request_.checkpoint_bytes});
    reschedule(n);
  }

  void on(const TransferDue& e) {
    NodeState& node = nodes_[e.node];
    if (e.version != node.version) return;  // the sharing changed since: stale
    advance(node);
    std::vector<std::int32_t> done;
    std::erase_if(node.transfers, [&](const Transfer& t) {
      if (t.remaining > 0) return false;
      done.push_back(t.owner);
      return true;
    });
    reschedule(e.node);
    for (const std::int32_t owner : done) {
      if (owner == kPrecursor) {
        node.staged = true;
        result_.staged[e.node] = engine_.now();
        const std::vector<std::uint32_t> waiting = std::move(node.waiting);
        node.waiting.clear();
        for (const std::uint32_t g : waiting) start_next_trial(g);
      } else {
        const auto g = static_cast<std::uint32_t>(owner);
        result_.trials[*gpus_[g].trial].loaded = engine_.now();
        begin_step(g, Step::Init, suite_.model_init);
      }
    }
  }

  Duration host_load_time() const {
    const std::int64_t bytes = request_.checkpoint_bytes;
    return Duration{(bytes * 1000 + hardware_.pcie_bytes_per_s - 1) / hardware_.pcie_bytes_per_s};
  }

  // --- GPUs and trials --------------------------------------------------------------------------

  void start_next_trial(std::uint32_t g) {
    GpuState& gpu = gpus_[g];
    if (plan_.stage_model && !nodes_[gpu.node].staged) {
      // Trials are submitted once the node's precursor is done: the GPU is not held meanwhile.
      nodes_[gpu.node].waiting.push_back(g);
      return;
    }
    std::deque<std::uint32_t>& from = gpu.pinned.empty() ? shared_ : gpu.pinned;
    if (from.empty()) {
      gpu.trial.reset();
      gpu.step = Step::None;
      return;
    }
    const std::uint32_t t = from.front();
    from.pop_front();
    gpu.trial = t;
    gpu.next_piece = 0;
    EvalTrialRecord& rec = result_.trials[t];
    rec.gpu = g;
    rec.node = gpu.node;
    rec.start = engine_.now();
    gpu.step_start = engine_.now();
    if (plan_.stage_model) {
      begin_step(g, Step::HostLoad, host_load_time());
    } else {
      gpu.step = Step::Loading;
      add_transfer(gpu.node, static_cast<std::int32_t>(g));
    }
  }

  void begin_step(std::uint32_t g, Step step, Duration length) {
    GpuState& gpu = gpus_[g];
    gpu.step = step;
    gpu.step_start = engine_.now();
    engine_.schedule(engine_.now() + length, GpuStepDone{g});
  }

  /// Starts the next piece of the GPU's trial, or ends the trial.
  void next_piece(std::uint32_t g) {
    GpuState& gpu = gpus_[g];
    const PlannedTrial& trial = plan_.trials[*gpu.trial];
    if (gpu.next_piece == trial.pieces.size()) {
      EvalTrialRecord& rec = result_.trials[*gpu.trial];
      rec.end = engine_.now();
      result_.gpu_held_ms += (rec.end - rec.start).count();
      start_next_trial(g);
      return;
    }
    const TrialPiece& p = trial.pieces[gpu.next_piece];
    const EvalDataset& d = suite_.datasets[p.dataset];
    // Telescoping bounds: the pieces of a dataset add up to its inference time exactly.
    const std::int64_t total = inference_[p.dataset].count();
    const std::int64_t n = d.samples;
    const std::int64_t lo = std::int64_t{p.part} * n / p.parts;
    const std::int64_t hi = std::int64_t{p.part + 1} * n / p.parts;
    gpu.step_inference_ms = total * hi / n - total * lo / n;
    begin_step(g, Step::Piece, d.preprocess + Duration{gpu.step_inference_ms});
  }

  void on(const GpuStepDone& e) {
    GpuState& gpu = gpus_[e.gpu];
    switch (gpu.step) {
      case Step::HostLoad:
        result_.trials[*gpu.trial].loaded = engine_.now();
        begin_step(e.gpu, Step::Init, suite_.model_init);
        return;
      case Step::Init: {
        const EvalTrialRecord& rec = result_.trials[*gpu.trial];
        result_.load_wait_ms += (engine_.now() - rec.start).count();
        next_piece(e.gpu);
        return;
      }
      case Step::Piece: {
        const TrialPiece p = plan_.trials[*gpu.trial].pieces[gpu.next_piece++];
        result_.gpu_inference_ms += gpu.step_inference_ms;
        result_.pieces.push_back(
            EvalPieceRecord{p, *gpu.trial, engine_.now() - Duration{gpu.step_inference_ms}, engine_.now()});
        if (++pieces_done_[p.dataset] == p.parts) {
          const Duration metric = suite_.datasets[p.dataset].metric;
          result_.metrics[p.dataset].start = engine_.now();
          if (plan_.cpu_metrics) {
            engine_.schedule(engine_.now() + metric, MetricDone{p.dataset});
          } else {
            result_.metrics[p.dataset].on_gpu = true;
            gpu.metric_dataset = p.dataset;
            begin_step(e.gpu, Step::Metric, metric);
            return;
          }
        }
        next_piece(e.gpu);
        return;
      }
      case Step::Metric:
        result_.metrics[gpu.metric_dataset].end = engine_.now();
        next_piece(e.gpu);
        return;
      case Step::None:
      case Step::Loading:
        break;
    }
    throw SimulationError(fmt::format("GPU {} ended a step it was not running {}", e.gpu, engine_.where()));
  }

  void on(const MetricDone& e) { result_.metrics[e.dataset].end = engine_.now(); }

  void finish() {
    for (std::size_t d = 0; d < suite_.datasets.size(); ++d) {
      if (pieces_done_[d] == 0 || result_.metrics[d].end < result_.metrics[d].start) {
        throw SimulationError(fmt::format("dataset '{}' was not fully evaluated", suite_.datasets[d].name));
      }
    }
    for (const GpuState& g : gpus_) {
      if (g.trial) throw SimulationError("a GPU still holds a trial at the end of the evaluation");
    }
    SimTime last{};
    for (const EvalMetricRecord& m : result_.metrics) last = std::max(last, m.end);
    for (const EvalTrialRecord& t : result_.trials) last = std::max(last, t.end);
    result_.makespan = last - SimTime{};
    result_.events = engine_.processed();
    result_.fingerprint = engine_.fingerprint().hex();
  }

  const EvalRequest& request_;
  const EvalSuite& suite_;
  const EvalPlan& plan_;
  EvalHardware hardware_;
  std::int64_t nic_bytes_per_s_;
  std::vector<Duration> inference_;  // actual, by dataset
  EvalEngine engine_;
  std::vector<NodeState> nodes_;
  std::vector<GpuState> gpus_;
  std::deque<std::uint32_t> shared_;
  std::vector<std::uint32_t> pieces_done_ = std::vector<std::uint32_t>(suite_.datasets.size(), 0);
  EvalResult result_;
};

}  // namespace

std::vector<Duration> actual_inference(const EvalRequest& request, const EvalOptions& options) {
  std::vector<Duration> out;
  out.reserve(request.suite->datasets.size());
  for (const EvalDataset& d : request.suite->datasets) {
    const Duration prior = request.inference_of(d);
    if (options.noise_sigma <= 0) {
      out.push_back(prior);
      continue;
    }
    Rng rng{options.seed, "eval/runtime/" + d.name};
    boost::random::lognormal_distribution<double> factor{0.0, options.noise_sigma};
    out.push_back(Duration{std::llround(static_cast<double>(prior.count()) * factor(rng))});
  }
  return out;
}

EvalResult simulate_evaluation(const EvalRequest& request, const EvalResources& resources, const EvalPlan& plan,
                               const EvalHardware& hardware, const EvalOptions& options) {
  if (request.suite == nullptr) throw SimulationError("evaluation request without a suite");
  if (resources.nodes < 1 || resources.gpus_per_node < 1) {
    throw InputError(fmt::format("evaluation resources: expected at least 1 node and 1 GPU per node, found {} x {}",
                                 resources.nodes, resources.gpus_per_node));
  }
  EvalSimulation sim{request, resources, plan, hardware, options};
  return sim.run();
}

}  // namespace acmesim
