#pragma once
/// Small pieces shared by the schedulers: a per-pass memo of demands that did not fit, a
/// scheduler's own ordered view of the jobs it started, and the EASY reservation.
#include <algorithm>
#include <cstdint>
#include <set>
#include <tuple>
#include <vector>

#include "sim/policy_api/scheduler.hpp"

namespace acmesim::policies {

/// Demands that did not fit during one pass. If a demand failed, any demand at least as large
/// in every dimension (nodes, GPUs and CPUs per node, memory per node) fails too, whatever the
/// placement (each placement finds a fit whenever one exists), so a look-ahead over a long
/// queue skips most jobs in O(k) without asking the placement. k, the frontier of minimal
/// failed demands, stays tiny in practice (demands are few distinct shapes); it is capped.
/// Only valid while the cluster does not gain resources: clear() after any preemption.
class FitMemo {
 public:
  bool known_not_to_fit(const Demand& d) const {
    for (const Demand& f : failed_) {
      if (d.nodes >= f.nodes && d.gpus_per_node_max() >= f.gpus_per_node_max() &&
          d.cpus_per_node_max() >= f.cpus_per_node_max() && d.mem_gib_per_node >= f.mem_gib_per_node &&
          d.cpu_only() == f.cpu_only()) {
        return true;
      }
    }
    return false;
  }
  void add(const Demand& d) {
    if (failed_.size() < kMax) failed_.push_back(d);
  }
  void clear() { failed_.clear(); }

  /// fit() unless the memo already knows the answer.
  std::optional<Allocation> fit(SchedulingPass& pass, JobId job) {
    const Demand& d = pass.job(job).demand;
    if (known_not_to_fit(d)) return std::nullopt;
    auto where = pass.fit(job);
    if (!where) add(d);
    return where;
  }

 private:
  static constexpr std::size_t kMax = 16;  // our choice: bounds the memo's own cost per check
  std::vector<Demand> failed_;
};

/// Starts an ordered queue's jobs from the front while the first fits: the first that does
/// not blocks the rest (strict priority order). Entries are tuples ending in the JobId;
/// `started(job)` runs after each start. O(log q) per start.
template <class Queue, class OnStart>
void start_in_order(SchedulingPass& pass, Queue& queue, OnStart started) {
  while (!queue.empty()) {
    const JobId head = std::get<JobId>(*queue.begin());
    auto where = pass.fit(head);
    if (!where) return;
    pass.start(head, *where);
    queue.erase(queue.begin());
    started(head);
  }
}

/// A scheduler's own ordered set of the jobs it started, keyed by what the policy needs
/// (estimated end, priority class, ...). The scheduler is not told when a job ends, so stale
/// entries (the job ended or was interrupted) are dropped when met (`live`) and by a sweep
/// whenever the set holds twice as many entries as jobs running. Cost: O(log n) per insert
/// and erase, amortized O(1) per job for the sweeps.
template <class Key>
class TrackedRunning {
 public:
  struct Entry {
    Key key;
    JobId job;
    std::uint32_t attempt;
    auto operator<=>(const Entry&) const = default;
  };
  using Set = std::set<Entry>;

  void add(const SchedulingPass& pass, Key key, JobId job) {
    entries_.insert(Entry{key, job, pass.status(job).attempt});
    if (entries_.size() > 2 * pass.running().size() + 64) sweep(pass);
  }
  /// True if `e`'s job is still running the attempt it was started for.
  static bool live(const SchedulingPass& pass, const Entry& e) {
    const JobView s = pass.status(e.job);
    return s.phase == JobPhase::Running && s.attempt == e.attempt;
  }
  void sweep(const SchedulingPass& pass) {
    for (auto it = entries_.begin(); it != entries_.end();) it = live(pass, *it) ? std::next(it) : entries_.erase(it);
  }
  Set& entries() { return entries_; }

  /// Calls f(key, gpus) on the live entries in key order until it returns true; stale entries
  /// met are dropped. O(entries walked).
  template <class F>
  void for_each_live(const SchedulingPass& pass, F f) {
    for (auto it = entries_.begin(); it != entries_.end();) {
      if (!live(pass, *it)) {
        it = entries_.erase(it);
        continue;
      }
      if (f(it->key, pass.job(it->job).demand.gpus)) return;
      ++it;
    }
  }

  /// Preemption candidates: live GPU jobs in key order until `freeable` (idle GPUs plus those of
  /// the jobs taken so far) reaches `need`, or `stop(entry)` says this and every later entry is
  /// off limits. Stale entries met are dropped. O(entries walked).
  template <class Stop>
  std::vector<JobId> victims_until(const SchedulingPass& pass, int need, int& freeable, Stop stop) {
    std::vector<JobId> victims;
    for (auto it = entries_.begin(); it != entries_.end() && freeable < need;) {
      if (stop(*it)) break;
      if (!live(pass, *it)) {
        it = entries_.erase(it);
        continue;
      }
      const int gpus = pass.job(it->job).demand.gpus;
      if (gpus > 0) {
        victims.push_back(it->job);
        freeable += gpus;
      }
      ++it;
    }
    return victims;
  }

 private:
  Set entries_;
};

/// The EASY rule around one reservation (Lifka, JSSPP 1995; Mu'alem and Feitelson, IEEE TPDS
/// 2001): the blocked job will have its GPUs at `shadow`, with `extra` GPUs to spare then. A
/// later job may start now if it fits and either ends (by its estimate) by the shadow time or
/// needs no more than the extra GPUs, which then shrink by its GPUs. The reservation counts
/// GPUs, not nodes. O(1) per question.
struct Reservation {
  SimTime shadow;
  int extra = 0;
  bool admits(SimTime now, Duration estimate, int gpus) const { return now + estimate <= shadow || gpus <= extra; }
  void took(SimTime now, Duration estimate, int gpus) {
    if (now + estimate > shadow) extra -= gpus;
  }
};

/// The reservation of a blocked job needing `need` GPUs: the idle GPUs now, then those freed by
/// running jobs in order of expected end. `ends(f)` calls f(end, gpus) on running jobs in that
/// order until f returns true. A CPU-only job waits for CPUs, which this plan does not track:
/// only jobs without GPUs may pass it (extra 0). A job blocked by fragments, not by the GPU
/// count, leaves the GPUs beyond its own as extra. If even the end of every running job does not
/// free enough GPUs (nodes down), there is no time-based backfill either. O(jobs visited).
template <class Ends>
Reservation reserve_gpus(const SchedulingPass& pass, int need, Ends ends) {
  const SimTime now = pass.now();
  int free = pass.cluster().idle_gpus();
  if (need == 0) return {now, 0};
  if (free >= need) return {now, free - need};
  Reservation found{now, 0};
  ends([&](SimTime end, int gpus) {
    free += gpus;
    if (free < need) return false;
    found = Reservation{std::max(end, now), free - need};
    return true;
  });
  return found;
}

/// The same from SchedulingPass::running(): the ends the running jobs' recorded durations
/// advertise (what a user who states the exact runtime tells the scheduler).
inline Reservation reserve_gpus_by_advertised_ends(const SchedulingPass& pass, int need) {
  return reserve_gpus(pass, need, [&pass](auto f) {
    for (const RunningJob& r : pass.running()) {
      if (f(r.expected_end, pass.job(r.job).demand.gpus)) return;
    }
  });
}

}  // namespace acmesim::policies
