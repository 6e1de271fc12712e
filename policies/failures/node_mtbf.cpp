// Failure model `node-mtbf`: every GPU node fails independently, with exponential or Weibull
// times between failures (counted while it is up), and is repaired after a time drawn from a
// two-class log-normal mixture (soft: reboot/reset; hard: part swap). The failure's kind is drawn
// from weights named after Table 3's reasons.
//
// Cost: the model keeps each node's next event in an ordered set: O(log nodes) per event,
// O(nodes) memory; the engine holds one pending node event at a time.
#include <cmath>
#include <set>
#include <tuple>
#include <vector>

#include <boost/random/discrete_distribution.hpp>
#include <boost/random/exponential_distribution.hpp>
#include <boost/random/lognormal_distribution.hpp>
#include <boost/random/uniform_01.hpp>
#include <boost/random/weibull_distribution.hpp>
#include <fmt/format.h>

#include "policies/factories.hpp"

namespace acmesim::policies {

namespace {

class NodeMtbf final : public FailureModel {
public:
  explicit NodeMtbf(const PolicyArgs& args)
      : rng_{args.rng()},
        where_{args.where()},
        per_gpu_{args.get<std::string>("per", "node") == "gpu"},
        // failure-data.md §11.1: 6.5e-3 hardware failures per node-day (Meta RSC-1, Kokolis et al. [Q]).
        rate_per_day_{args.get<double>("rate_per_day", 6.5e-3)},
        weibull_{args.get<std::string>("distribution", "exponential") == "weibull"},
        // failure-data.md §11.1 [E]: Weibull shape 0.7-0.8 for infant mortality after repair.
        shape_{args.get<double>("weibull_shape", 0.75)},
        // failure-data.md §11.2 [E]: 60 % soft repairs (median 1 h, sigma 1.0), 40 % hard
        // (on-prem preset: median 2 days, sigma 1.0).
        soft_share_{args.get<double>("repair_soft_share", 0.6)},
        soft_median_h_{args.get<double>("repair_soft_median_h", 1.0)},
        soft_sigma_{args.get<double>("repair_soft_sigma", 1.0)},
        hard_median_h_{args.get<double>("repair_hard_median_h", 48.0)},
        hard_sigma_{args.get<double>("repair_hard_sigma", 1.0)} {
    const std::string per = args.get<std::string>("per", "node");
    if (per != "node" && per != "gpu") fail("per", fmt::format("'node' or 'gpu', found '{}'", per));
    const std::string dist = args.get<std::string>("distribution", "exponential");
    if (dist != "exponential" && dist != "weibull") {
      fail("distribution", fmt::format("'exponential' or 'weibull', found '{}'", dist));
    }
    if (!(rate_per_day_ > 0)) fail("rate_per_day", fmt::format("a rate > 0, found {}", rate_per_day_));
    if (!(shape_ > 0)) fail("weibull_shape", fmt::format("a shape > 0, found {}", shape_));
    if (soft_share_ < 0 || soft_share_ > 1) fail("repair_soft_share", fmt::format("0..1, found {}", soft_share_));
    if (!(soft_median_h_ > 0 && hard_median_h_ > 0 && soft_sigma_ > 0 && hard_sigma_ > 0)) {
      fail("repair_*", "positive medians and sigmas");
    }
    // failure-data.md §11.1 [D]: kinds of hardware failures, Acme Table 3 counts of the
    // hardware-like rows (NVLink 54, CUDA 21, NodeFailure 16, ECC 12).
    std::vector<std::pair<FailureReason, double>> kinds{{FailureReason::NVLinkError, 54},
                                                        {FailureReason::CUDAError, 21},
                                                        {FailureReason::NodeFailure, 16},
                                                        {FailureReason::ECCError, 12}};
    if (const YAML::Node given = args.node("reasons")) {
      if (!given.IsMap() || given.size() == 0) fail("reasons", "a mapping of failure reason to weight");
      kinds.clear();
      for (const auto& entry : given) {
        const std::string text = entry.first.as<std::string>();
        const auto reason = parse_failure_reason(text);
        if (!reason) fail("reasons", fmt::format("a failure reason (e.g. NVLinkError, ECCError), found '{}'", text));
        double w = -1;
        try {
          w = entry.second.as<double>();
        } catch (const YAML::Exception&) {
        }
        if (!(w >= 0)) fail("reasons", fmt::format("a weight >= 0 for {}", text));
        kinds.emplace_back(*reason, w);
      }
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
  [[noreturn]] void fail(const char* key, const std::string& expected) const {
    throw InputError(fmt::format("{}: failures 'node-mtbf': key '{}': expected {}", where_, key, expected));
  }
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
  std::string where_;
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
