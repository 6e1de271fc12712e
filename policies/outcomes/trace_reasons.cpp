// Outcome model `trace-reasons`: every job ends as the trace recorded it (state and runtime
// exactly as under `trace`, so the workload is the trace's), and each recorded FAILED GPU job is
// given one of Table 3's reasons [Acme Table 3; 2nd] such that, over the trace's FAILED GPU jobs,
// the reasons' shares of failures and of failed GPU time are the table's, and within those the
// jobs whose runtime (their time to failure) and GPU demand are most like a reason's row get it.
// docs/failures.md, "Outcome models", gives the method; in short:
//
// Each reason is a bin with a number of jobs (Table 3's count shares, apportioned by largest
// remainders to the categories and then within each to its reasons: counts are met to the job)
// and a GPU time to reach (its share of the failed GPU time). Jobs are ranked by GPU time, largest
// first; each goes to the reason with the most GPU time still to reach per job still to take
// among those it fits in (GPU time still to reach >= its own), else to the reason with the most
// GPU time still to reach: GPU-time shares are met as closely as the largest jobs allow. Jobs
// whose GPU times are within `exchange_ratio` of each other (at most `exchange_block` of them)
// form a block, and the block's reasons are then permuted among its jobs by Metropolis swaps
// towards a draw from P ~ product of the jobs' likelihoods under their reasons (log-normal in time
// to failure and in GPU demand around Table 3's means), given the block's counts. So the GPU-time
// ranking decides how many jobs of a size class get each reason, and runtime and demand decide
// which. Jobs of `gpu_error_free_types` (Eval: [Acme §5; 2nd]) get no GPU error (NVLink, CUDA, ECC)
// while other jobs are left to take them.
//
// Sorting the jobs is O(n log n); the fill is O(n x reasons), the swaps O(n).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <boost/random/uniform_01.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "policies/outcomes/table3.hpp"
#include "sim/policy_api/outcome.hpp"
#include "sim/policy_api/policy_args.hpp"

namespace acmesim::policies {

namespace {

using table3::kRows;
constexpr std::size_t kReasons = kRows.size();

// The GPU and NVLink errors: the paper found none among evaluation failures [Acme §5; 2nd].
bool is_gpu_error(FailureReason r) {
  return r == FailureReason::NVLinkError || r == FailureReason::CUDAError || r == FailureReason::ECCError;
}

/// Largest-remainder apportionment of `total` in proportion to `weights` (ties: the first).
std::vector<std::size_t> apportion(std::size_t total, const std::vector<double>& weights) {
  const double sum = std::accumulate(weights.begin(), weights.end(), 0.0);
  std::vector<std::size_t> out(weights.size(), 0);
  if (sum <= 0 || total == 0) return out;
  std::vector<double> remainder(weights.size());
  std::size_t given = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    const double exact = static_cast<double>(total) * weights[i] / sum;
    out[i] = static_cast<std::size_t>(std::floor(exact));
    remainder[i] = exact - std::floor(exact);
    given += out[i];
  }
  std::vector<std::size_t> order(weights.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return remainder[a] > remainder[b]; });
  for (std::size_t k = 0; given < total; ++k, ++given) ++out[order[k % order.size()]];
  return out;
}

/// One failed GPU job as the fill sees it.
struct Item {
  std::size_t job;  // JobId
  double gpu_ms;    // GPUs x recorded runtime
  double log_gpus;
  double log_minutes;  // of the recorded runtime (at least one second): its time to failure
  bool gpu_error_free;
};

struct Bin {
  std::size_t slots = 0;
  double gpu_ms = 0;       // GPU time to reach
  bool gpu_error = false;  // closed to gpu_error_free items
};

// Metropolis swap proposals per item of a block.
constexpr std::size_t kSwapsPerItem = 8;

struct Exchange {
  double ratio;
  std::size_t block;
};

/// The bin of each item (items ranked by GPU time, largest first); `forced` counts the
/// gpu_error_free items that had to take a GPU-error bin because no other was left.
struct FillResult {
  std::vector<std::uint8_t> bin;
  std::size_t forced = 0;
};

template <class LogLikelihood>
FillResult fill(const std::vector<const Item*>& items, const std::vector<Bin>& bins, LogLikelihood&& loglik,
                const Exchange& exchange, Rng& rng) {
  const std::size_t n = items.size();
  FillResult result;
  result.bin.assign(n, 0);
  std::vector<std::size_t> left(bins.size());
  std::vector<double> need(bins.size());
  std::size_t open_items = 0;    // items that may take a GPU-error bin, not yet placed
  std::size_t closed_slots = 0;  // GPU-error slots not yet taken
  for (std::size_t b = 0; b < bins.size(); ++b) {
    left[b] = bins[b].slots;
    need[b] = bins[b].gpu_ms;
    if (bins[b].gpu_error) closed_slots += bins[b].slots;
  }
  for (const Item* item : items) open_items += item->gpu_error_free ? 0 : 1;

  // The bin for an item of `gpu_ms` among those `allowed`: the most GPU time to reach per slot
  // among the bins it fits in, else the most GPU time to reach. bins.size() if none is allowed.
  const auto pick = [&](double gpu_ms, auto&& allowed) {
    std::size_t fit = bins.size(), any = bins.size();
    for (std::size_t b = 0; b < bins.size(); ++b) {
      if (left[b] == 0 || !allowed(b)) continue;
      if (any == bins.size() || need[b] > need[any]) any = b;
      if (need[b] >= gpu_ms &&
          (fit == bins.size() || need[b] / static_cast<double>(left[b]) > need[fit] / static_cast<double>(left[fit]))) {
        fit = b;
      }
    }
    return fit != bins.size() ? fit : any;
  };

  std::vector<std::size_t> members;
  std::size_t start = 0;
  while (start < n) {
    std::size_t end = start;
    while (end < n && end - start < exchange.block && items[end]->gpu_ms * exchange.ratio >= items[start]->gpu_ms) {
      ++end;
    }
    const std::vector<double> need_at_start = need;
    for (std::size_t i = start; i < end; ++i) {
      const Item& item = *items[i];
      // An item that may take a GPU-error bin must, once the others left could not fill them.
      const bool must_take_gpu_error = !item.gpu_error_free && open_items <= closed_slots;
      std::size_t b = pick(item.gpu_ms, [&](std::size_t c) {
        return item.gpu_error_free ? !bins[c].gpu_error : (!must_take_gpu_error || bins[c].gpu_error);
      });
      if (b == bins.size()) {  // a gpu_error_free item and only GPU-error slots left
        b = pick(item.gpu_ms, [](std::size_t) { return true; });
        ++result.forced;
      }
      result.bin[i] = static_cast<std::uint8_t>(b);
      --left[b];
      need[b] -= item.gpu_ms;
      if (!item.gpu_error_free) --open_items;
      if (bins[b].gpu_error) --closed_slots;
    }
    // Permute the block's bins among its items of one kind (so every item keeps a bin it may
    // take) by Metropolis swaps of two items' bins: the permutation tends to a draw from
    // P(assignment) ~ product of the items' likelihoods under their bins, given the block's counts.
    for (const bool kind : {false, true}) {
      members.clear();
      for (std::size_t i = start; i < end; ++i) {
        if (items[i]->gpu_error_free == kind) members.push_back(i);
      }
      if (members.size() < 2) continue;
      const bool mixed = std::any_of(members.begin(), members.end(),
                                     [&](std::size_t i) { return result.bin[i] != result.bin[members[0]]; });
      if (!mixed) continue;
      boost::random::uniform_int_distribution<std::size_t> any{0, members.size() - 1};
      for (std::size_t k = 0; k < kSwapsPerItem * members.size(); ++k) {
        const std::size_t i = members[any(rng)];
        const std::size_t j = members[any(rng)];
        const std::size_t bi = result.bin[i], bj = result.bin[j];
        if (bi == bj) continue;
        const double gain =
            loglik(*items[i], bj) + loglik(*items[j], bi) - loglik(*items[i], bi) - loglik(*items[j], bj);
        if (gain >= 0 || boost::random::uniform_01<double>{}(rng) < std::exp(gain)) {
          result.bin[i] = static_cast<std::uint8_t>(bj);
          result.bin[j] = static_cast<std::uint8_t>(bi);
        }
      }
    }
    need = need_at_start;
    for (std::size_t i = start; i < end; ++i) need[result.bin[i]] -= items[i]->gpu_ms;
    start = end;
  }
  return result;
}

double log_normal_mu(double mean, double sigma) { return std::log(mean) - sigma * sigma / 2; }

class TraceReasons final : public OutcomeModel {
 public:
  explicit TraceReasons(const PolicyArgs& args)
      : rng_{args.rng()},
        // [Acme Table 3; est]: how widely a reason's times to failure and GPU demands spread
        // around the table's means (the table gives means only).
        ttf_sigma_{args.number("ttf_sigma", 1.5, Range::above(0),
                               "log-normal sigma of a reason's time to failure around Table 3's mean")},
        demand_sigma_{args.number("demand_sigma", 1.0, Range::above(0),
                                  "log-normal sigma of a reason's GPU demand around Table 3's mean")},
        exchange_{
            args.number(
                "exchange_ratio", 2.0, Range::at_least(1),
                "jobs whose GPU times are within this factor exchange reasons by likelihood (1: equal ones only)"),
            static_cast<std::size_t>(
                args.whole("exchange_block", 256, Range{1, 1e6}, "most jobs in one block that exchange reasons"))} {
    // [Acme §5; 2nd]: no GPU or NVLink failure among evaluation failures.
    for (const JobType t : args.job_types("gpu_error_free_types", {JobType::Eval},
                                          "job types never given NVLinkError, CUDAError or ECCError")) {
      gpu_error_free_[static_cast<std::size_t>(t)] = true;
    }
    means_from_table();
  }

  void prepare(const std::vector<JobSpec>& jobs) override {
    std::size_t ids = 0;
    for (const JobSpec& j : jobs) ids = std::max<std::size_t>(ids, j.id.value() + std::size_t{1});
    reason_.assign(ids, FailureReason::None);
    std::vector<Item> items;
    for (const JobSpec& j : jobs) {
      if (j.recorded_state != FinalState::Failed || j.demand.cpu_only()) continue;
      const double ms = static_cast<double>(std::max<std::int64_t>(j.runtime.count(), 1000));
      items.push_back(Item{j.id.value(), static_cast<double>(j.demand.gpus) * static_cast<double>(j.runtime.count()),
                           std::log(static_cast<double>(j.demand.gpus)), std::log(ms / 60000.0),
                           gpu_error_free_[static_cast<std::size_t>(j.type)]});
    }
    // Largest GPU time first; ties in a seeded random order (then trace order).
    std::vector<std::uint64_t> tie(items.size());
    for (auto& t : tie) t = rng_();
    std::vector<std::size_t> order(items.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      if (items[a].gpu_ms != items[b].gpu_ms) return items[a].gpu_ms > items[b].gpu_ms;
      if (tie[a] != tie[b]) return tie[a] < tie[b];
      return a < b;
    });
    std::vector<const Item*> ranked;
    ranked.reserve(items.size());
    for (const std::size_t k : order) ranked.push_back(&items[k]);
    const double total_gpu_ms =
        std::accumulate(items.begin(), items.end(), 0.0, [](double s, const Item& it) { return s + it.gpu_ms; });

    // Every reason is a bin: its Table 3 count share of the jobs (apportioned to the categories,
    // then within each to its reasons, so category counts are as close as they can be), its
    // GPU-time share of their GPU time.
    std::vector<double> category_counts(kFailureCategoryCount - 1, 0.0);
    double all_pct = 0;
    for (const table3::Row& row : kRows) {
      category_counts[static_cast<std::size_t>(category(row.reason))] += row.count;
      all_pct += row.gpu_time_pct;
    }
    const std::vector<std::size_t> category_slots = apportion(ranked.size(), category_counts);
    std::vector<std::size_t> slots(kReasons, 0);
    for (std::size_t c = 0; c < category_slots.size(); ++c) {
      std::vector<std::size_t> rows;
      std::vector<double> counts;
      for (std::size_t r = 0; r < kReasons; ++r) {
        if (static_cast<std::size_t>(category(kRows[r].reason)) != c) continue;
        rows.push_back(r);
        counts.push_back(kRows[r].count);
      }
      const std::vector<std::size_t> within = apportion(category_slots[c], counts);
      for (std::size_t k = 0; k < rows.size(); ++k) slots[rows[k]] = within[k];
    }
    std::vector<Bin> bins(kReasons);
    for (std::size_t r = 0; r < kReasons; ++r) {
      bins[r] = Bin{slots[r], total_gpu_ms * kRows[r].gpu_time_pct / all_pct, is_gpu_error(kRows[r].reason)};
    }
    const FillResult filled = fill(
        ranked, bins, [&](const Item& item, std::size_t r) { return reason_loglik(item, r); }, exchange_, rng_);
    forced_ = filled.forced;
    for (std::size_t i = 0; i < ranked.size(); ++i) reason_[ranked[i]->job] = kRows[filled.bin[i]].reason;
    note_ = summary_note(items, total_gpu_ms);
  }

  JobOutcome decide(const JobSpec& job) override {
    const std::size_t i = job.id.value();
    const FailureReason reason = i < reason_.size() ? reason_[i] : FailureReason::None;
    return JobOutcome{job.recorded_state, job.runtime, reason};
  }

  std::string note() const override { return note_; }

 private:
  /// Each reason's log-normal centres (docs/failures.md): Table 3's mean time to failure, else
  /// the geometric mean of its category's given ones; its mean GPU demand, else one derived from
  /// its time to failure and GPU time per failure (share >= 1 %, anchored on DataloaderKilled,
  /// the one row with every column), else the geometric mean of its category's, else (script,
  /// whose rows give none) that of all the others. Every reason has both centres and all share the
  /// two sigmas, so between two reasons the log-likelihood ratio is linear in log GPUs and log
  /// minutes: a reason with the later mean time to failure always prefers the longer job, however
  /// far a trace's jobs are from the table's.
  void means_from_table() {
    const table3::Row& anchor = table3::row(FailureReason::DataloaderKilled);
    // [Acme Table 3; derived]: all failed jobs' GPU time, GPU-minutes.
    const double all_gpu_min = anchor.count * anchor.demand_gpus * anchor.ttf_min / (anchor.gpu_time_pct / 100.0);
    std::array<double, kReasons> ttf{}, demand{};
    // Sums of logs and counts per category, the last slot over all reasons.
    std::array<double, kFailureCategoryCount + 1> log_ttf{}, log_demand{};
    std::array<int, kFailureCategoryCount + 1> ttf_n{}, demand_n{};
    for (std::size_t r = 0; r < kReasons; ++r) {
      const table3::Row& row = kRows[r];
      ttf[r] = row.ttf_min;
      demand[r] = row.demand_gpus;
      if (demand[r] == 0 && ttf[r] > 0 && row.gpu_time_pct >= 1.0) {
        demand[r] = row.gpu_time_pct / 100.0 * all_gpu_min / (row.count * ttf[r]);
      }
      for (const std::size_t c : {static_cast<std::size_t>(category(row.reason)), kFailureCategoryCount}) {
        if (ttf[r] > 0) {
          log_ttf[c] += std::log(ttf[r]);
          ++ttf_n[c];
        }
        if (demand[r] > 0) {
          log_demand[c] += std::log(demand[r]);
          ++demand_n[c];
        }
      }
    }
    for (std::size_t r = 0; r < kReasons; ++r) {
      const auto c = static_cast<std::size_t>(category(kRows[r].reason));
      if (ttf[r] == 0) ttf[r] = std::exp(log_ttf[c] / ttf_n[c]);
      if (demand[r] == 0) {
        const std::size_t from = demand_n[c] > 0 ? c : kFailureCategoryCount;
        demand[r] = std::exp(log_demand[from] / demand_n[from]);
      }
      ttf_mu_[r] = log_normal_mu(ttf[r], ttf_sigma_);
      demand_mu_[r] = log_normal_mu(demand[r], demand_sigma_);
    }
  }

  double reason_loglik(const Item& item, std::size_t r) const {
    const double t = (item.log_minutes - ttf_mu_[r]) / ttf_sigma_;
    const double d = (item.log_gpus - demand_mu_[r]) / demand_sigma_;
    return -0.5 * (t * t + d * d);
  }

  std::string summary_note(const std::vector<Item>& items, double total_gpu_ms) const {
    std::array<std::size_t, kFailureCategoryCount> n{};
    std::array<double, kFailureCategoryCount> g{};
    for (const Item& item : items) {
      const auto c = static_cast<std::size_t>(category(reason_[item.job]));
      ++n[c];
      g[c] += item.gpu_ms;
    }
    const auto pct = [](double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; };
    const auto all = static_cast<double>(items.size());
    std::string out = fmt::format("trace-reasons: {} recorded FAILED GPU jobs given Table 3 reasons", items.size());
    for (const FailureCategory c :
         {FailureCategory::Infrastructure, FailureCategory::Framework, FailureCategory::Script}) {
      const auto i = static_cast<std::size_t>(c);
      out += fmt::format("; {} {} ({:.2f}% of them, {:.2f}% of their GPU time)", name(c), n[i],
                         pct(static_cast<double>(n[i]), all), pct(g[i], total_gpu_ms));
    }
    if (forced_ > 0) out += fmt::format("; {} jobs of gpu_error_free_types got a GPU error (no other left)", forced_);
    return out;
  }

  Rng rng_;
  double ttf_sigma_;
  double demand_sigma_;
  Exchange exchange_;
  std::array<bool, kJobTypeCount> gpu_error_free_{};
  std::array<double, kReasons> ttf_mu_{}, demand_mu_{};
  std::vector<FailureReason> reason_;  // by JobId
  std::size_t forced_ = 0;
  std::string note_;
};

}  // namespace

std::unique_ptr<OutcomeModel> make_trace_reasons(const PolicyArgs& args) {
  return std::make_unique<TraceReasons>(args);
}

}  // namespace acmesim::policies
