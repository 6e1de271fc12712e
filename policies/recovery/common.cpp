#include "policies/recovery/common.hpp"

#include <boost/random/lognormal_distribution.hpp>
#include <cmath>

namespace acmesim::policies {

CheckpointModel::CheckpointModel(const PolicyArgs& args, bool default_async) {
  // the issue: recovery applies to pretraining jobs by default
  const std::vector<JobType> types = args.job_types("types", {JobType::Pretrain}, "job types that checkpoint");
  if (types.empty()) args.invalid("types", "a non-empty list of job types, e.g. [Pretrain, SFT]");
  types_.insert(types.begin(), types.end());
  // [Acme §6.1]: the FT system checkpoints every 30 minutes.
  interval_ = from_seconds(60.0 * args.number("interval_min", 30.0, Range::above(0), "minutes between checkpoints"));
  async_ = args.word("mode", default_async ? "async" : "sync", {"sync", "async"},
                     "sync: training stalls for the save; async: only for the copy to host memory") == "async";
  // [BLOOM; derived]: 14 B per parameter; 123B -> 1.72 TB. Our model, not from the
  // paper: checkpoints grow with the job, 1.68 GB per GPU (123B on 1,024 GPUs).
  gb_per_gpu_ = args.number("checkpoint_gb_per_gpu", 1.68, Range::above(0), "checkpoint GB per GPU of the job");
  fixed_gb_ = args.number("checkpoint_gb", 0.0, Range::at_least(0), "> 0: one checkpoint size in GB for every job");
  // [Acme §6.1; derived]: effective 2.2 GB/s, from "up to 43 %" sync slowdown of 123B at 30 min.
  storage_gbps_ = args.number("storage_gbps", 2.2, Range::above(0), "GB/s a checkpoint is saved at");
  // [Acme §6.1; derived]: async blocking is a near-constant 12-13 s (7B: 12 s, 123B: 13 s);
  // our fit: 12 s + size / (1.6 GB/s per GPU), which gives 12.5 s and 13.0 s (3.6x, 59.9x).
  async_fixed_s_ = args.number("async_fixed_s", 12.0, Range::at_least(0), "fixed seconds of an async stall");
  host_copy_gbps_per_gpu_ =
      args.number("host_copy_gbps_per_gpu", 1.6, Range::above(0), "GB/s per GPU of the async copy to host memory");
  // [MegaScale + RSC; est]: init + checkpoint load ~3 min (7B) to ~8 min (123B); our model:
  // 2 min of initialisation plus the load at 4 GB/s (123B: 2 + 7.2 min).
  init_s_ = args.number("init_s", 120.0, Range::at_least(0), "seconds of initialisation at each restart");
  load_gbps_ = args.number("load_gbps", 4.0, Range::above(0), "GB/s a checkpoint is loaded at");
}

double CheckpointModel::size_gb(const JobSpec& job) const {
  return fixed_gb_ > 0 ? fixed_gb_ : gb_per_gpu_ * std::max(job.demand.gpus, 1);
}

CheckpointPlan CheckpointModel::plan(const JobSpec& job) const {
  const double size = size_gb(job);
  const Duration save = from_seconds(size / storage_gbps_);
  if (!async_) return CheckpointPlan{interval_, save, Duration{0}};
  const Duration copy = from_seconds(async_fixed_s_ + size / (host_copy_gbps_per_gpu_ * std::max(job.demand.gpus, 1)));
  return CheckpointPlan{interval_, copy, save};  // the upload runs behind training
}

Duration CheckpointModel::restart_overhead(const JobSpec& job) const {
  return from_seconds(init_s_ + size_gb(job) / load_gbps_);
}

Responder::Responder(const PolicyArgs& args)
    // [est]: a crash is noticed within about a minute.
    : detect_{from_seconds(args.number("detect_s", 60.0, Range::at_least(0), "seconds until a person notices"))},
      // [Acme Table 3, Fig 14; est]: response log-normal, median 40 min by day, 120 min at night
      // (00-08 local), sigma 0.8; mean ~92 min overall, as Table 3's 78-96 min time to restart.
      day_median_min_{args.number("day_median_min", 40.0, Range::above(0), "median response by day, minutes")},
      night_median_min_{args.number("night_median_min", 120.0, Range::above(0), "median response at night, minutes")},
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
