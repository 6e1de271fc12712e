// Failure model `node-mtbf`: every GPU node fails independently, with exponential or Weibull
// times between failures (counted while it is up), and is repaired after a time drawn from a
// two-class log-normal mixture (soft: reboot/reset; hard: part swap). The failure's kind is drawn
// from weights named after Table 3's reasons.
//
// Cost: the model keeps each node's next event in an ordered set: O(log nodes) per event,
// O(nodes) memory; the engine holds one pending node event at a time.
#include <fmt/format.h>

#include <boost/random/discrete_distribution.hpp>
#include <boost/random/exponential_distribution.hpp>
#include <boost/random/lognormal_distribution.hpp>
#include <boost/random/uniform_01.hpp>
#include <boost/random/weibull_distribution.hpp>
#include <cmath>
#include <set>
#include <tuple>
#include <vector>

#include "sim/policy_api/failure_model.hpp"
#include "sim/policy_api/policy_args.hpp"

namespace acmesim::policies {

namespace {

class NodeMtbf final : public FailureModel {
 public:
  explicit NodeMtbf(const PolicyArgs& args)
      : rng_{args.rng()},
        per_gpu_{args.word("per", "node", {"node", "gpu"}, "rate_per_day counts per node or per GPU") == "gpu"},
        // [RSC]: 6.5e-3 hardware failures per node-day (Meta RSC-1, Kokolis et al.).
        rate_per_day_{args.number("rate_per_day", 6.5e-3, Range::above(0), "failures per node (or GPU) per day")},
        weibull_{args.word("distribution", "exponential", {"exponential", "weibull"},
                           "distribution of the up time between failures") == "weibull"},
        // [OPT; est]: Weibull shape 0.7-0.8 for infant mortality after repair.
        shape_{args.number("weibull_shape", 0.75, Range::above(0), "Weibull shape (< 1: infant mortality)")},
        // [SuperBench + LANL; est]: 60 % soft repairs (median 1 h, sigma 1.0), 40 % hard
        // (on-prem preset: median 2 days, sigma 1.0).
        soft_share_{args.number("repair_soft_share", 0.6, Range{0, 1}, "share of repairs that are soft (reboot)")},
        soft_median_h_{args.number("repair_soft_median_h", 1.0, Range::above(0), "median soft repair, hours")},
        soft_sigma_{args.number("repair_soft_sigma", 1.0, Range::above(0), "log-normal sigma of soft repairs")},
        hard_median_h_{args.number("repair_hard_median_h", 48.0, Range::above(0), "median hard repair, hours")},
        hard_sigma_{args.number("repair_hard_sigma", 1.0, Range::above(0), "log-normal sigma of hard repairs")} {
    // [Acme Table 3; derived]: kinds of hardware failures, Acme Table 3 counts of the
    // hardware-like rows (NVLink 54, CUDA 21, NodeFailure 16, ECC 12).
    std::vector<std::pair<FailureReason, double>> kinds{{FailureReason::NVLinkError, 54},
                                                        {FailureReason::CUDAError, 21},
                                                        {FailureReason::NodeFailure, 16},
                                                        {FailureReason::ECCError, 12}};
    if (auto given =
            args.number_per_reason("reasons", "{NVLinkError: 54, CUDAError: 21, NodeFailure: 16, ECCError: 12}",
                                   Range::at_least(0), "weights of the kinds of failure")) {
      if (given->empty()) args.invalid("reasons", "a non-empty mapping of failure reason to weight");
      kinds = std::move(*given);
    }
    std::vector<double> w;
    for (const auto& [reason, weight] : kinds) {
      reasons_.push_back(reason);
      w.push_back(weight);
    }
    pick_ = boost::random::discrete_distribution<std::size_t, double>{w};
  }

  void start(const ClusterSpec& cluster, SimTime first) override {
    const double node_rate = rate_per_day_ * (per_gpu_ ? cluster.gpus_per_node : 1);  // per day
    mean_up_days_ = 1.0 / node_rate;
    for (int n = 0; n < cluster.gpu_nodes; ++n) {
      pending_.insert({first + time_to_failure(), 1, static_cast<std::uint32_t>(n)});
    }
  }

  std::optional<NodeEvent> next() override {
    if (pending_.empty()) return std::nullopt;
    const auto [at, failure, node] = *pending_.begin();
    pending_.erase(pending_.begin());
    if (failure) {
      const FailureReason reason = reasons_[pick_(rng_)];
      pending_.insert({at + repair_time(), 0, node});
      return NodeEvent{at, NodeId{node}, false, reason};
    }
    pending_.insert({at + time_to_failure(), 1, node});
    return NodeEvent{at, NodeId{node}, true, FailureReason::None};
  }

 private:
  Duration days(double d) const { return std::max(Duration{1}, from_seconds(d * 86400.0)); }
  Duration time_to_failure() {
    if (!weibull_) return days(boost::random::exponential_distribution<double>{1.0 / mean_up_days_}(rng_));
    // Scale so that the mean is the MTBF: mean = scale * Gamma(1 + 1/shape).
    const double scale = mean_up_days_ / std::tgamma(1.0 + 1.0 / shape_);
    return days(boost::random::weibull_distribution<double>{shape_, scale}(rng_));
  }
  Duration repair_time() {
    const bool soft = boost::random::uniform_01<double>{}(rng_) < soft_share_;
    const double median = soft ? soft_median_h_ : hard_median_h_;
    const double sigma = soft ? soft_sigma_ : hard_sigma_;
    return days(boost::random::lognormal_distribution<double>{std::log(median), sigma}(rng_) / 24.0);
  }

  Rng rng_;
  bool per_gpu_;
  double rate_per_day_;
  bool weibull_;
  double shape_;
  double soft_share_, soft_median_h_, soft_sigma_, hard_median_h_, hard_sigma_;
  std::vector<FailureReason> reasons_;
  boost::random::discrete_distribution<std::size_t, double> pick_;
  double mean_up_days_ = 1;
  // (time, 0 = repair / 1 = failure, node): repairs before failures at one instant.
  std::set<std::tuple<SimTime, int, std::uint32_t>> pending_;
};

}  // namespace

std::unique_ptr<FailureModel> make_node_mtbf(const PolicyArgs& args) { return std::make_unique<NodeMtbf>(args); }

}  // namespace acmesim::policies
