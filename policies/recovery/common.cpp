#include "policies/recovery/common.hpp"

#include <algorithm>
#include <boost/random/lognormal_distribution.hpp>
#include <cmath>

namespace acmesim::policies {

CheckpointModel::CheckpointModel(const PolicyArgs& args) {
  // the issue: recovery applies to pretraining jobs by default
  const std::vector<JobType> types = args.job_types("types", {JobType::Pretrain}, "job types that checkpoint");
  if (types.empty()) args.invalid("types", "a non-empty list of job types, e.g. [Pretrain, SFT]");
  types_.insert(types.begin(), types.end());
  // [Acme §6.1]: the FT system checkpoints every 30 minutes.
  fixed_interval_ = from_seconds(
      60.0 * args.number("interval_min", 30.0, Range::duration(0, 60, true), "minutes between checkpoints"));
  const std::string rule = args.word("interval", "fixed", {"fixed", "young", "daly"},
                                     "fixed: interval_min; young or daly: the optimum for the job's size [Daly]");
  rule_ = rule == "young" ? Rule::Young : rule == "daly" ? Rule::Daly : Rule::Fixed;
  // [RSC; derived]: 24 h / (7.9 h x 128 nodes), the all-cause rate of node-mtbf's defaults.
  interruptions_per_node_day_ = args.number("interruptions_per_node_day", 23.7e-3, Range::above(0),
                                            "the interruption rate young and daly optimise for");
  // One default for every recovery policy, so that changing the recovery changes nothing else.
  async_ = args.word("mode", "sync", {"sync", "async"},
                     "sync: training stalls for the save; async: only for the snapshot to host memory") == "async";
  restore_from_memory_ = args.word("restore", "storage", {"storage", "memory"},
                                   "where a restart loads the checkpoint from: storage, or host memory of "
                                   "the job's nodes and a peer (async only)") == "memory";
  if (restore_from_memory_ && !async_)
    args.invalid("restore", "storage unless mode is async (memory holds the snapshot)");
  // Size: 14 B per parameter (bf16 weights, fp32 master weights, two Adam moments) [BLOOM; derived].
  bytes_per_param_ = args.number("bytes_per_param", 14.0, Range::above(0), "checkpoint bytes per model parameter");
  model_b_ = args.number("model_b", 0.0, Range::at_least(0), "> 0: billions of parameters of every covered job");
  // Our model when model_b is 0: parameters grow with the job, 0.12 B per GPU (123B on 1,024 GPUs).
  params_b_per_gpu_ =
      args.number("params_b_per_gpu", 0.12, Range::above(0), "billions of parameters per GPU when model_b is 0");
  fixed_gb_ =
      args.number("checkpoint_gb", 0.0, Range::at_least(0), "> 0: the checkpoint size in GB, overriding the rest");
  // [Acme §6.1; derived]: the storage back end gives one job 2.2 GB/s, solved from the "up to 43 %"
  // sync slowdown of the 123B model at 30 min (the paper publishes no storage bandwidth).
  storage_gbps_ = args.number("storage_gbps", 2.2, Range::above(0), "GB/s the storage back end gives one job");
  // [Acme Fig 16]: each node reaches storage through a 25 Gb/s NIC.
  node_storage_gbps_ = args.number("node_storage_gbps", 3.125, Range::above(0), "GB/s of one node's path to storage");
  // [Acme §6.1; derived]: a fixed 12 s per snapshot, solved from the 3.6x of the 7B model; the
  // copy itself runs at PCIe speed [PCIe4; est], so the 123B ratio is a prediction.
  snapshot_s_ = args.number("snapshot_s", 12.0, Range::duration(0, 1), "fixed seconds of an async snapshot");
  pcie_gbps_ = args.number("pcie_gbps", 25.0, Range::above(0), "GB/s per GPU of the copy to host memory");
  // [Acme Table 1]: 200 Gb/s HDR InfiniBand per node, for restores from a peer's memory.
  peer_gbps_ = args.number("peer_gbps", 25.0, Range::above(0), "GB/s per node between host memories");
  // [MegaScale + RSC; est]: 2 min of initialisation at each restart.
  init_s_ = args.number("init_s", 120.0, Range::duration(0, 1), "seconds of initialisation at each restart");
}

double CheckpointModel::size_gb(const JobSpec& job) const {
  if (fixed_gb_ > 0) return fixed_gb_;
  const double params_b = model_b_ > 0 ? model_b_ : params_b_per_gpu_ * std::max(job.demand.gpus, 1);
  return params_b * bytes_per_param_;
}

double CheckpointModel::storage_gbps(const JobSpec& job) const {
  return std::min(node_storage_gbps_ * std::max(job.demand.nodes, 1), storage_gbps_);
}

double CheckpointModel::stall_s(const JobSpec& job) const {
  const double size = size_gb(job);
  if (!async_) return size / storage_gbps(job);
  return snapshot_s_ + size / std::max(job.demand.gpus, 1) / pcie_gbps_;
}

Duration CheckpointModel::interval(const JobSpec& job) const {
  if (rule_ == Rule::Fixed) return fixed_interval_;
  // M: the job's mean time between interruptions; delta: its stall per checkpoint [Daly].
  const double m = 86400.0 / (interruptions_per_node_day_ * std::max(job.demand.nodes, 1));
  const double delta = stall_s(job);
  double tau = std::sqrt(2.0 * delta * m);
  if (rule_ == Rule::Daly) {
    const double x = delta / (2.0 * m);
    tau = delta < 2.0 * m ? tau * (1.0 + std::sqrt(x) / 3.0 + x / 9.0) - delta : m;
  }
  return std::max(from_seconds(tau), seconds(1));
}

CheckpointPlan CheckpointModel::plan(const JobSpec& job) const {
  const Duration stall = from_seconds(stall_s(job));
  if (!async_) return CheckpointPlan{interval(job), stall, Duration{0}};
  // Durable once persisted behind training: to storage, or (restore from memory) to a peer's memory.
  const double size = size_gb(job);
  const double persist_s =
      restore_from_memory_ ? size / std::max(job.demand.nodes, 1) / peer_gbps_ : size / storage_gbps(job);
  return CheckpointPlan{interval(job), stall, from_seconds(persist_s)};
}

Duration CheckpointModel::restart_overhead(const JobSpec& job) const {
  const double size = size_gb(job);
  const double load_s =
      restore_from_memory_ ? size / std::max(job.demand.nodes, 1) / peer_gbps_ : size / storage_gbps(job);
  return from_seconds(init_s_ + load_s);
}

Responder::Responder(const PolicyArgs& args)
    // [est]: a crash is noticed within about a minute.
    : detect_{from_seconds(args.number("detect_s", 60.0, Range::duration(0, 1), "seconds until a person notices"))},
      // [Acme Table 3, Fig 14; est]: response log-normal, median 40 min by day, 120 min at night
      // (00-08 local), sigma 0.8; mean ~92 min overall, as Table 3's 78-96 min time to restart.
      day_median_min_{
          args.number("day_median_min", 40.0, Range::duration(0, 60, true), "median response by day, minutes")},
      night_median_min_{
          args.number("night_median_min", 120.0, Range::duration(0, 60, true), "median response at night, minutes")},
      sigma_{args.number("response_sigma", 0.8, Range::at_least(0), "log-normal sigma of the response")},
      night_start_h_{args.whole("night_start_h", 0, Range{0, 24}, "local hour the night starts")},
      night_end_h_{args.whole("night_end_h", 8, Range{0, 24}, "local hour the night ends")} {}

Duration Responder::delay(Rng& rng, Duration time_of_day) const {
  const int hour = static_cast<int>(time_of_day.count() / 3'600'000);
  const bool night = night_start_h_ <= night_end_h_ ? (hour >= night_start_h_ && hour < night_end_h_)
                                                    : (hour >= night_start_h_ || hour < night_end_h_);
  const double median = night ? night_median_min_ : day_median_min_;
  const double draw = boost::random::lognormal_distribution<double>{std::log(median), sigma_}(rng);
  return detect_ + from_seconds(60.0 * draw);
}

}  // namespace acmesim::policies
