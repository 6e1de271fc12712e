#pragma once
/// Small pieces shared by the schedulers: a per-pass memo of demands that did not fit, a
/// scheduler's own ordered view of the jobs it started, and the EASY reservation.
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/policy_api/scheduler.hpp"

namespace acmesim::policies {

/// Demands that did not fit during one pass. If a demand failed, any demand at least as large
/// in every dimension (nodes, GPUs and CPUs per node, memory per node) fails too, whatever the
/// placement (each placement finds a fit whenever one exists), so a look-ahead over a long
/// queue skips most jobs in O(k) without asking the placement. k, the frontier of minimal
/// failed demands, stays tiny in practice (demands are few distinct shapes); it is capped.
/// A shape numbered by ShapeNumbers has its answer kept until the memo next changes (add() or
/// clear()): then a look-ahead asks the frontier once per distinct shape between changes and
/// answers every other job of that shape in O(1) (the 1M-job Seren trace has 13 GPU shapes).
/// Only valid while the cluster does not gain resources: clear() after any preemption.
class FitMemo {
 public:
  static constexpr std::uint32_t kUnnumbered = ~std::uint32_t{0};
  /// What the memo compares: a demand's per-node maxima, computed once (two divisions each),
  /// and the shape's number if it has one (ShapeNumbers).
  struct Shape {
    int nodes = 0;
    int gpus_per_node = 0;
    int cpus_per_node = 0;
    int mem_gib_per_node = 0;
    std::uint32_t number = kUnnumbered;
    Shape() = default;
    explicit Shape(const Demand& d)
        : nodes{d.nodes},
          gpus_per_node{d.gpus_per_node_max()},
          cpus_per_node{d.cpus_per_node_max()},
          mem_gib_per_node{d.mem_gib_per_node} {}
    bool cpu_only() const { return gpus_per_node == 0; }
    /// At least `f` in every dimension, and of the same kind (GPU or CPU-only).
    bool covers(const Shape& f) const {
      return nodes >= f.nodes && gpus_per_node >= f.gpus_per_node && cpus_per_node >= f.cpus_per_node &&
             mem_gib_per_node >= f.mem_gib_per_node && cpu_only() == f.cpu_only();
    }
    /// The demand the shape stands for, whatever its number.
    auto dimensions() const { return std::tuple{nodes, gpus_per_node, cpus_per_node, mem_gib_per_node}; }
  };

  bool known_not_to_fit(const Shape& d) const {
    if (d.number == kUnnumbered) return on_frontier(d);
    if (d.number >= by_number_.size()) by_number_.resize(std::size_t{d.number} + 1);
    Known& known = by_number_[d.number];
    if (known.generation != generation_) known = Known{generation_, on_frontier(d)};
    return known.no_fit;
  }
  void add(const Shape& d) {
    if (failed_.size() < kMax) {
      failed_.push_back(d);
      ++generation_;
    }
  }
  void clear() {
    failed_.clear();
    ++generation_;
  }

  /// fit() unless the memo already knows the answer.
  std::optional<Allocation> fit(SchedulingPass& pass, JobId job) { return fit(pass, job, Shape{pass.job(job).demand}); }
  /// The same with the job's shape at hand (a queue that keeps it saves the trace lookup).
  std::optional<Allocation> fit(SchedulingPass& pass, JobId job, const Shape& d) {
    if (known_not_to_fit(d)) return std::nullopt;
    auto where = pass.fit(job);
    if (!where) add(d);
    return where;
  }

 private:
  bool on_frontier(const Shape& d) const {
    return std::ranges::any_of(failed_, [&](const Shape& f) { return d.covers(f); });
  }
  /// A numbered shape's answer, valid while `generation` is the memo's.
  struct Known {
    std::uint64_t generation = 0;
    bool no_fit = false;
  };
  static constexpr std::size_t kMax = 16;  // our choice: bounds the memo's own cost per check
  std::vector<Shape> failed_;
  std::uint64_t generation_ = 1;          // changes with failed_; no Known starts valid
  mutable std::vector<Known> by_number_;  // a cache of on_frontier() by shape number
};

/// Numbers the distinct shapes of the jobs a scheduler queues, so that FitMemo keeps one answer
/// per shape. O(log s) per job over the s distinct shapes seen.
class ShapeNumbers {
 public:
  FitMemo::Shape numbered(const Demand& demand) {
    FitMemo::Shape shape{demand};
    shape.number = numbers_.try_emplace(shape.dimensions(), static_cast<std::uint32_t>(numbers_.size())).first->second;
    return shape;
  }

 private:
  std::map<std::tuple<int, int, int, int>, std::uint32_t> numbers_;
};

/// What an EASY look-ahead asks of a queued job (its demand's per-node shape, its GPUs, its
/// runtime estimate), kept in its queue entry so that a walk does not fetch the job from the trace.
struct LookAhead {
  FitMemo::Shape shape;
  int gpus;
  Duration estimate;
};

/// Queued jobs in submission order, (submitted, id), each with what a look-ahead asks of it
/// (`Info`, copied at enqueue), in one contiguous array: a look-ahead over hundreds of jobs reads
/// memory in order instead of walking a tree and fetching every job from the trace. Cost: push
/// O(1) amortized for a job submitted no earlier than the last (every first submission), O(q)
/// for a requeued job that lands before it; erase O(1) (the entry is marked dead). A walk costs
/// the entries it passes, dead ones included: when it passed more dead entries than half the
/// live ones it visited, it packs the live entries of the stretch it walked to the stretch's end
/// (O(stretch), the rest of the array does not move), so jobs started from the middle of a long
/// queue do not slow later walks. Dead entries are dropped from the whole array when they
/// outnumber the live ones, at a push (amortized O(1) per erase), never during a walk.
template <class Info>
class SubmitOrderQueue {
 public:
  struct Entry {
    SimTime submitted;
    JobId job;
    bool live = true;
    Info info;
    bool before(SimTime s, JobId j) const { return submitted != s ? submitted < s : job < j; }
    bool after(SimTime s, JobId j) const { return submitted != s ? s < submitted : j < job; }
  };

  /// Adds a job; false if it landed before the last entry (a requeue), not at the end.
  bool push(SimTime submitted, JobId job, Info info) {
    compact();
    Entry entry{submitted, job, true, info};
    const bool at_end = entries_.empty() || entries_.back().before(submitted, job);
    if (at_end) {
      entries_.push_back(entry);
    } else {
      const auto at = std::ranges::partition_point(entries_, [&](const Entry& e) { return e.before(submitted, job); });
      first_ = std::min(first_, static_cast<std::size_t>(at - entries_.begin()));
      entries_.insert(at, entry);
    }
    ++live_;
    return at_end;
  }

  bool empty() const { return live_ == 0; }
  std::size_t size() const { return live_; }
  /// The first live entry; the queue must not be empty.
  const Entry& front() const { return entries_[first_]; }
  void pop_front() { erase(first_); }

  /// Where a walk stopped: the live entries it visited and the key of the last one.
  struct Walked {
    int visited = 0;
    SimTime submitted;
    JobId job{0};
  };

  /// Visits up to `limit` live entries in order, after the first `skip` of them; `visit(entry)`
  /// returns true to erase the entry (its job started).
  template <class Visit>
  Walked walk(std::size_t skip, int limit, Visit visit) {
    return walk_from(first_, skip, limit, visit);
  }
  /// The same from the first entry after (submitted, job) in queue order. O(log q) to find it.
  template <class Visit>
  Walked walk_after(SimTime submitted, JobId job, int limit, Visit visit) {
    const auto at = std::ranges::partition_point(entries_, [&](const Entry& e) { return !e.after(submitted, job); });
    return walk_from(static_cast<std::size_t>(at - entries_.begin()), 0, limit, visit);
  }

 private:
  template <class Visit>
  Walked walk_from(std::size_t i, std::size_t skip, int limit, Visit& visit) {
    Walked walked;
    const std::size_t begin = i;
    std::size_t dead = 0;
    for (; i < entries_.size() && walked.visited < limit; ++i) {
      if (!entries_[i].live) {
        ++dead;
        continue;
      }
      if (skip > 0) {
        --skip;
        continue;
      }
      ++walked.visited;
      walked.submitted = entries_[i].submitted;
      walked.job = entries_[i].job;
      if (visit(std::as_const(entries_[i]))) erase(i);
    }
    if (dead > static_cast<std::size_t>(walked.visited) / 2 + 16) pack(begin, i);
    return walked;
  }
  /// Moves the live entries of [begin, end) to its end, in order. What is left before them is
  /// dead and takes the first moved entry's key, so the array stays sorted for binary searches.
  void pack(std::size_t begin, std::size_t end) {
    std::size_t to = end;
    for (std::size_t i = end; i-- > begin;) {
      if (entries_[i].live) entries_[--to] = entries_[i];
    }
    Entry filler = entries_[to < entries_.size() ? to : end - 1];
    filler.live = false;
    std::fill(entries_.begin() + static_cast<std::ptrdiff_t>(begin), entries_.begin() + static_cast<std::ptrdiff_t>(to),
              filler);
    if (first_ >= begin && first_ < end) first_ = to;
    while (first_ < entries_.size() && !entries_[first_].live) ++first_;
  }
  void erase(std::size_t i) {
    entries_[i].live = false;
    --live_;
    while (first_ < entries_.size() && !entries_[first_].live) ++first_;
  }
  void compact() {
    if (entries_.size() - live_ <= live_ + 64) return;
    std::erase_if(entries_, [](const Entry& e) { return !e.live; });
    first_ = 0;
  }

  std::vector<Entry> entries_;
  std::size_t first_ = 0;  // no live entry before it
  std::size_t live_ = 0;
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
    if (entries_.size() > 2 * pass.running_count() + 64) sweep(pass);
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
