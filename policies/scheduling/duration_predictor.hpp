#pragma once
/// The duration predictor of `qssf`: what a scheduler can know of a job's duration at its
/// submission, from the durations of the same user's jobs that have already ended. Helios'
/// QSSF (Hu et al., SC'21) matches a job to the user's history of similar jobs (same name and
/// GPU demand) and falls back to a learned model; AcmeTrace has no job names, so "similar" here
/// is "same user and same GPU count", then "same user", then "same type", then everyone.
/// Each level predicts the mean of the last `history` durations it saw (our choice, as Helios
/// uses a recent-history estimate). Cost: O(1) expected per learn and predict (hash lookups;
/// the tables are never iterated, so their order cannot leak into a decision).
#include <array>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "sim/model/job.hpp"

namespace acmesim::policies {

class DurationPredictor {
 public:
  /// `fallback`: the prediction before anything has ended.
  explicit DurationPredictor(int history = 5, Duration fallback = seconds(3600))
      : history_{std::max(1, history)}, fallback_{fallback} {}

  Duration predict(const JobSpec& job) const {
    for (const Window* w : {find(by_user_gpus_, key(job.user.value(), job.demand.gpus)),
                            find(by_user_, job.user.value()), &by_type_[static_cast<std::size_t>(job.type)], &all_}) {
      if (w && w->count > 0) return w->mean();
    }
    return fallback_;
  }

  /// `job` ended after running `runtime`.
  void learn(const JobSpec& job, Duration runtime) {
    by_user_gpus_[key(job.user.value(), job.demand.gpus)].add(runtime, history_);
    by_user_[job.user.value()].add(runtime, history_);
    by_type_[static_cast<std::size_t>(job.type)].add(runtime, history_);
    all_.add(runtime, history_);
  }

 private:
  struct Window {
    std::vector<std::int64_t> last;  // ring of the last `history` durations, ms
    std::int64_t sum = 0;
    std::size_t next = 0;
    std::size_t count = 0;
    void add(Duration d, int history) {
      if (last.size() < static_cast<std::size_t>(history)) {
        last.push_back(d.count());
      } else {
        sum -= last[next];
        last[next] = d.count();
        next = (next + 1) % last.size();
      }
      sum += d.count();
      count = last.size();
    }
    Duration mean() const { return Duration{sum / static_cast<std::int64_t>(count)}; }
  };
  static std::uint64_t key(std::uint32_t user, int gpus) {
    return (std::uint64_t{user} << 32) | static_cast<std::uint32_t>(gpus);
  }
  template <class Map, class K>
  static const Window* find(const Map& map, K k) {
    const auto it = map.find(k);
    return it == map.end() ? nullptr : &it->second;
  }

  int history_;
  Duration fallback_;
  std::unordered_map<std::uint64_t, Window> by_user_gpus_;
  std::unordered_map<std::uint32_t, Window> by_user_;
  std::array<Window, kJobTypeCount> by_type_;
  Window all_;
};

}  // namespace acmesim::policies
