#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <deque>
#include <iterator>
#include <set>
#include <utility>
#include <vector>

#include "policies/scheduling/queue_tools.hpp"
#include "policies/scheduling/runtime_estimate.hpp"
#include "sim/policy_api/policy_args.hpp"
#include "sim/policy_api/scheduler.hpp"

namespace acmesim::policies {

namespace {

/// `conservative-backfill`: FIFO where every examined job gets a reservation (Mu'alem and
/// Feitelson, IEEE TPDS 2001): a later job may start now only if it delays no earlier job's
/// reservation. The plan is a profile of free GPUs over time built from the running jobs'
/// estimated ends (RuntimeEstimate); each of the first `max_job_test` queued jobs, in order,
/// takes the earliest slot where its GPUs are free for its estimated runtime, starting now if
/// the slot begins now and the placement finds it nodes. Like `easy-backfill`, the plan counts
/// GPUs, not nodes. Jobs beyond the window wait for a later pass.
///
/// The plan is kept while the cluster does what it predicted: jobs end exactly at their
/// estimated ends (the `exact` estimate), no other job leaves, no node fails or returns, and no
/// job is requeued ahead of the tail. A pass then starts the jobs reserved for now and retries
/// CPU-only jobs. A job reserved for now but blocked by fragments, or blocked by fragments
/// earlier and now fitting or able to get an earlier slot (it is reserved from the first step
/// after its plan's start, and a step now begins before that one; as_planned()), makes the plan
/// wrong from that job on only: its reservation and those after it are withdrawn and the window
/// is planned again from it (repair_from()). The window's jobs after the last one that may
/// start now stay unplanned (deferred) until one of them may (plan_deferred()). Every pass
/// gives exactly the schedule a plan from scratch would (a reservation never moves when time
/// reaches an estimated end; tested against `keep_plan: false`, which plans the whole window
/// from scratch at every pass). Anything else rebuilds the plan.
///
/// Cost of a pass that keeps the plan: O(d log r) for the d jobs that ended, O(w) over the w
/// <= max_job_test planned jobs, O(classes x steps) to test the deferred jobs (O(deferred) when
/// one may start), O(p) per job planned and per reservation withdrawn (p = profile steps, r + 2
/// x reservations), and per job without GPUs started in the last pass (its end becomes a
/// step). Of a rebuild: O(r) for the profile, then the same per job planned. In practice a
/// search starts at its job size's staircase hint (earliest()) and passes few steps (52 on
/// average on an overloaded Seren); the bound is the number of jobs planned: on the 1M-job
/// Seren trace on 200 nodes, 23 M (97 M before repairs and deferral), over 1.7 M passes, 82 %
/// of them in the 233 K passes that repair the plan.
class ConservativeBackfill final : public Scheduler {
 public:
  explicit ConservativeBackfill(const PolicyArgs& args)
      : estimate_{args},
        // Slurm's bf_max_job_test (slurm.conf; 500 in current releases).
        max_job_test_{args.whole("max_job_test", 500, Range::at_least(1),
                                 "queued jobs examined per pass (Slurm's bf_max_job_test)")},
        // false: plan from scratch at every pass (slow; the reference the kept plan is tested
        // against).
        keep_plan_{args.flag("keep_plan", true, "keep the plan while the cluster does what it predicted")},
        // false: every search starts at the plan's first step (the reference the hints are
        // tested against).
        slot_hints_{args.flag("slot_hints", true, "start each slot search past the slots already found too short")} {}

  void enqueue(const JobSpec& job) override {
    const Key key{job.submitted, job.id};
    // A job that lands before the tail (a requeue) changes everyone's plan.
    if (!queue_.empty() && key < *queue_.rbegin()) kept_ = false;
    queue_.insert(key);
  }

  void select(SchedulingPass& pass) override {
    bool keep = keep_plan_ && kept_ && as_planned(pass);
    // Jobs at the front that fit now delay nobody: no plan needed for them. A plan from
    // scratch starts them first too, so the kept plan stands only if it had them start now.
    while (!queue_.empty()) {
      const JobId head = queue_.begin()->second;
      auto where = pass.fit(head);
      if (!where) break;
      if (keep) keep = planned_now(pass, head);
      start(pass, head, *where);
      // A plan from scratch starts it before building its profile, from its estimated end.
      if (ends_off_plan_) keep = false;
      queue_.erase(queue_.begin());
    }
    if (queue_.empty()) {
      kept_ = false;  // no queue, no plan: the next one starts from scratch
    } else if (keep) {
      follow_plan(pass);
    } else {
      build_profile(pass);
      planned_.clear();
      deferred_.clear();
      deferred_known_ = false;
      if (keep_plan_) {
        plan_deferred(pass, max_job_test_);
      } else {  // the reference: every job of the window planned
        add_to_window(pass, max_job_test_);
        plan(pass, deferred_.size());
      }
      kept_ = true;
    }
    running_after_ = pass.running_count();
    if (ends_off_plan_) kept_ = false;
    ends_off_plan_ = false;
    if (!kept_) unsplit_ends_.clear();
  }

 private:
  using Key = std::pair<SimTime, JobId>;
  /// A step of the profile: `free_gpus` from `at` to the next step's `at`. `sources` counts
  /// what puts a step at that time (the plan's start, running jobs' estimated ends,
  /// reservations' ends), so that withdrawing a reservation removes its end step only if
  /// nothing else ends there (unreserve()). Trivially copyable, so that inserting one moves
  /// the steps after it with one memmove.
  struct Step {
    SimTime at;
    int free_gpus;
    int sources;
  };
  /// A summary of jobs for the test "may one of them start now?": per class of GPU counts
  /// (none, 1, 2-3, 4-7, ..., by bit width), the fewest GPUs and the shortest estimate among
  /// them, which together are a job that may start if any of them may (a job needs no fewer
  /// GPUs for no less time). O(1) to add a job, O(classes) to walk.
  class Shortest {
   public:
    void clear() { used_ = 0; }
    void add(int gpus, Duration length) {
      const auto c = static_cast<unsigned>(std::bit_width(static_cast<unsigned>(gpus)));
      Entry& e = classes_[c];
      if ((used_ & (1u << c)) == 0) {
        e = {gpus, length};
        used_ |= 1u << c;
      } else {
        e.gpus = std::min(e.gpus, gpus);
        e.length = std::min(e.length, length);
      }
    }
    /// True if `may(gpus, length)` holds for a class's fewest GPUs and shortest estimate.
    template <class May>
    bool any(May may) const {
      for (std::uint32_t rest = used_; rest != 0; rest &= rest - 1) {
        const Entry& e = classes_[static_cast<std::size_t>(std::countr_zero(rest))];
        if (may(e.gpus, e.length)) return true;
      }
      return false;
    }

   private:
    struct Entry {
      int gpus = 0;
      Duration length{};
    };
    std::array<Entry, 32> classes_{};  // a non-negative int has at most 31 bits
    std::uint32_t used_ = 0;           // bit c: class c has jobs
  };
  /// A queued job of the window that has no plan yet, with what a plan asks of it.
  struct Waiting {
    Key key;
    int gpus;
    Duration length;  // estimated runtime, at least 1 s
  };
  /// A queued job of the window and what the plan decided for it.
  struct Planned {
    Key key;
    int gpus;
    SimTime start;    // reservation start; unused for CPU-only jobs
    Duration length;  // the reservation's; unused for CPU-only jobs
    bool fragments;   // its slot was now but the placement found no nodes
    // fragments: the profile's first step after the plan's start when its slot was searched
    // from there (see as_planned())
    SimTime searched_from = SimTime::max();
    bool started = false;
    bool reopened = false;  // a plan from scratch may find it an earlier slot (as_planned())
  };

  /// True if everything since the last pass went as the kept plan predicted. Drops the
  /// estimated ends that have passed and moves the profile's start to now.
  bool as_planned(SchedulingPass& pass) {
    const SimTime now = pass.now();
    std::size_t ended = 0;
    auto& entries = running_.entries();
    while (!entries.empty() && entries.begin()->key <= now) {
      if (running_.live(pass, *entries.begin())) return false;  // overran its estimate
      entries.erase(entries.begin());
      ++ended;
    }
    // Any other job that left ended early or was interrupted.
    if (pass.running_count() + ended != running_after_) return false;
    std::size_t first = 0;
    while (first + 1 < profile_.size() && profile_[first + 1].at <= now) ++first;
    profile_.erase(profile_.begin(), profile_.begin() + static_cast<std::ptrdiff_t>(first));
    profile_.front().at = now;
    for (const SimTime end : unsplit_ends_) split_at(end);
    unsplit_ends_.clear();
    // Idle GPUs are the profile's free ones plus those reserved for now (not yet taken); a
    // node that failed or came back breaks this.
    int reserved_now = 0;
    const SimTime next = next_step();
    bool reopened = false;
    for (Planned& p : planned_) {
      if (p.gpus == 0) continue;
      // A job blocked by fragments was reserved at the first slot from the step after its
      // plan's start. A plan from scratch now searches from the step after now, over a
      // profile that only lost GPUs since (the jobs started since, which fitted around its
      // reservation) and gained steps where those jobs end. Every slot from the old first step
      // on was tried then and still fails, and the old slot still works, so the answer is the
      // same unless a step now begins between now and that old first step: a slot there is
      // new: the plan is wrong from the first such job on, and follow_plan() repairs it.
      if (p.fragments && next < p.searched_from && !reopened) p.reopened = reopened = true;
      if (p.start < now) return false;  // a reservation that did not start when due
      if (p.start == now) reserved_now += p.gpus;
    }
    return pass.cluster().idle_gpus() == profile_.front().free_gpus + reserved_now;
  }

  /// True if the kept plan has the queue's first job, `job`, start now (or it needs no GPUs),
  /// or if it is the first deferred job: then every planned job has started in this pass, so
  /// the GPUs stay free from now on in the profile, and it gets a reservation from now, as in
  /// a plan from scratch (where it is running).
  bool planned_now(const SchedulingPass& pass, JobId job) {
    for (Planned& p : planned_) {
      if (p.key.second != job) continue;
      p.started = true;
      return p.gpus == 0 || p.start == pass.now();
    }
    if (deferred_.empty() || deferred_.front().key.second != job) return false;
    const Waiting w = deferred_.front();
    deferred_.pop_front();
    if (w.gpus == 0) return true;
    if (!fits_now(w.gpus, w.length)) return false;
    reserve(0, w.gpus, w.length);
    return true;
  }

  /// Walks the kept plan: starts the jobs reserved for now, retries CPU-only jobs, then plans
  /// the jobs that entered the window. At the first job that does not behave as planned, the
  /// plan is wrong from that job on: the jobs before it are those a plan from scratch plans
  /// (and starts) first too, so the reservations from that job on are withdrawn and the
  /// window is planned again from it (repair_from()).
  void follow_plan(SchedulingPass& pass) {
    const SimTime now = pass.now();
    FitMemo memo;
    int in_window = 0;  // planned jobs still queued when this pass began
    for (std::size_t i = 0; i < planned_.size(); ++i) {
      Planned& p = planned_[i];
      if (p.started) continue;
      ++in_window;
      if (p.reopened) return repair_from(pass, i, in_window - 1);
      const bool cpu_only = p.gpus == 0;
      const bool due = !cpu_only && p.start == now;
      // Reserved later: the reservation stands, unless the job was blocked by fragments and
      // fits now (a plan from scratch might start it).
      const bool later = !cpu_only && !due;
      if (later && !p.fragments) continue;
      const auto where = memo.fit(pass, p.key.second);
      // Reserved for now but on no nodes, or blocked by fragments and fitting now: a plan from
      // scratch plans this job differently.
      if (where ? later : due) return repair_from(pass, i, in_window - 1);
      if (!where) continue;  // waits, as in a plan from scratch
      start(pass, p.key.second, *where);
      queue_.erase(p.key);
      p.started = true;
    }
    std::erase_if(planned_, [](const Planned& p) { return p.started; });
    // A plan from scratch examines the first max_job_test jobs of the queue: the planned
    // ones, then those behind them.
    plan_deferred(pass, max_job_test_ - in_window);
  }

  /// Plans the window again from planned_[first], whose plan was wrong, after the `examined`
  /// queued jobs before it in the window. A plan from scratch would have reached that job with
  /// the same profile (the running jobs' ends and the reservations of the jobs before it): the
  /// reservations from it on are withdrawn, last first, which undoes them exactly, and those
  /// jobs join the deferred ones. O(log p + steps spanned) per withdrawn reservation, O(p) to
  /// remove the end steps left without a source, then plan_deferred().
  void repair_from(SchedulingPass& pass, std::size_t first, int examined) {
    // They join the deferred jobs, ahead of them.
    for (std::size_t i = planned_.size(); i-- > first;) {
      const Planned& p = planned_[i];
      if (p.started) continue;
      if (p.gpus > 0 && p.start != SimTime::max()) unreserve(p.start, p.gpus, p.length);
      deferred_shortest_.add(p.gpus, p.length);
      deferred_.push_front(Waiting{p.key, p.gpus, p.length});
    }
    remove_unsourced();
    planned_.erase(planned_.begin() + static_cast<std::ptrdiff_t>(first), planned_.end());
    std::erase_if(planned_, [](const Planned& p) { return p.started; });
    plan_deferred(pass, max_job_test_ - examined);
  }

  /// The window's jobs after the planned ones are deferred: planned only when one of them may
  /// start now. Until then a plan for them decides nothing a pass does (none of them starts,
  /// and their reservations only constrain the jobs behind them), and a later pass plans
  /// them on the kept profile as a plan from scratch would. This makes the window's jobs
  /// after the last one that starts go unplanned, which on a backlogged cluster is most of
  /// them (and the plan a failed reservation withdraws is shorter).
  ///
  /// `budget` is the window's room after the planned jobs still queued. The jobs that joined
  /// the window since the last pass join the deferred ones (O(log q) plus O(1) each). Whether
  /// one may start is tested on a summary (Shortest: per class of GPU counts, the fewest GPUs
  /// and the shortest estimate, exact after each scan, a lower bound as jobs leave); one with
  /// g GPUs and estimate e may start only if the profile keeps g GPUs free from now for e
  /// (O(classes x steps until then)). If
  /// one may, they are scanned in order (O(deferred)): a job that needs no GPUs starts if it
  /// fits, as in plan(); at a job that has its GPUs free for its estimate and fits now, the
  /// deferred jobs up to it are planned.
  void plan_deferred(SchedulingPass& pass, int budget) {
    if (std::cmp_greater(deferred_.size(), budget)) {  // not expected: the window shrank
      deferred_.erase(deferred_.begin() + budget, deferred_.end());
      deferred_known_ = false;
    }
    add_to_window(pass, budget);
    if (deferred_known_ && !may_start()) return;
    FitMemo memo;
    deferred_shortest_.clear();
    for (std::size_t i = 0; i < deferred_.size();) {
      const Waiting w = deferred_[i];
      if (w.gpus == 0) {
        if (auto where = memo.fit(pass, w.key.second)) {
          start(pass, w.key.second, *where);
          queue_.erase(w.key);
          deferred_.erase(deferred_.begin() + static_cast<std::ptrdiff_t>(i));
          continue;
        }
      } else if (fits_now(w.gpus, w.length) && memo.fit(pass, w.key.second)) {
        plan(pass, i + 1);
        i = 0;
        deferred_shortest_.clear();
        continue;
      }
      deferred_shortest_.add(w.gpus, w.length);
      ++i;
    }
    deferred_known_ = true;
  }
  /// Adds the queued jobs after the planned and deferred ones to the deferred ones while the
  /// window has room. O(log q) plus O(1) per job added.
  void add_to_window(const SchedulingPass& pass, int budget) {
    auto it = !deferred_.empty() ? queue_.upper_bound(deferred_.back().key)
              : planned_.empty() ? queue_.begin()
                                 : queue_.upper_bound(planned_.back().key);
    for (; std::cmp_less(deferred_.size(), budget) && it != queue_.end(); ++it) {
      const JobSpec& job = pass.job(it->second);
      const Waiting w{*it, job.demand.gpus, reserved_length(job)};
      if (deferred_known_) deferred_shortest_.add(w.gpus, w.length);
      deferred_.push_back(w);
    }
  }
  /// How long a plan reserves a job's GPUs: its estimate, at least 1 s.
  Duration reserved_length(const JobSpec& job) const { return std::max(estimate_.of(job), Duration{1}); }
  /// False if no deferred job can start now (see plan_deferred()).
  bool may_start() const {
    return deferred_shortest_.any([&](int gpus, Duration shortest) {
      return gpus == 0 || (gpus <= profile_.front().free_gpus && fits_now(gpus, shortest));
    });
  }
  /// True if `gpus` stay free in the profile from now for `length`: a slot at the first step.
  /// O(steps until then).
  bool fits_now(int gpus, Duration length) const {
    const SimTime end = profile_.front().at + length;
    for (std::size_t k = 0; k < profile_.size() && profile_[k].at < end; ++k)
      if (profile_[k].free_gpus < gpus) return false;
    return true;
  }

  /// Plans (and starts where the plan says now) the first `count` deferred jobs, in order.
  void plan(SchedulingPass& pass, std::size_t count) {
    FitMemo memo;
    ++hint_stamp_;  // the hints of an earlier plan() may be wrong: its profile was trimmed or rebuilt
    for (; count > 0; --count) {
      const Waiting w = deferred_.front();
      deferred_.pop_front();
      const JobId job = w.key.second;
      const int gpus = w.gpus;
      const Duration length = w.length;
      if (gpus == 0) {  // uses no GPUs: the GPU plan cannot be delayed by it
        if (auto where = memo.fit(pass, job)) {
          start(pass, job, *where);
          queue_.erase(w.key);
          continue;
        }
        planned_.push_back(Planned{w.key, 0, pass.now(), Duration{0}, false});
        continue;
      }
      std::size_t slot = earliest(gpus, length, 0);
      bool fragments = false;
      SimTime searched_from = SimTime::max();
      if (slot < profile_.size() && profile_[slot].at == pass.now()) {
        if (auto where = memo.fit(pass, job)) {
          start(pass, job, *where);
          reserve(slot, gpus, length);
          queue_.erase(w.key);
          continue;
        }
        fragments = true;
        searched_from = next_step();
        slot = earliest(gpus, length, 1);  // fragments: it cannot start now, plan it later
      }
      if (slot < profile_.size()) {
        planned_.push_back(Planned{w.key, gpus, profile_[slot].at, length, fragments, searched_from});
        reserve(slot, gpus, length);
      } else {
        // No slot: nothing to keep for it; a plan from scratch would find none either.
        planned_.push_back(Planned{w.key, gpus, SimTime::max(), length, fragments, searched_from});
      }
    }
  }
  void start(SchedulingPass& pass, JobId job, const Allocation& where) {
    pass.start(job, where);
    const SimTime end = estimate_.end_of(pass, job);
    running_.add(pass, end, job);
    // A plan from scratch has a step at every running job's end, where a job that uses no
    // GPUs frees none. Such a step changes no slot but the one of a job blocked by fragments,
    // which is searched from the first step after now, so the kept plan gets it too, from
    // the next pass on (a plan from scratch builds its steps at the start of a pass).
    const JobSpec& spec = pass.job(job);
    if (spec.demand.gpus == 0) unsplit_ends_.push_back(end);
    // A plan reserves a job's whole estimate from its start; a plan from scratch puts a
    // running job's GPUs back at its estimated end, which is earlier for a job restarted after
    // a failure (the work it kept) or later (its restart overhead). Such a start makes the
    // profile wrong from the next pass on.
    else if (end != pass.now() + reserved_length(spec))
      ends_off_plan_ = true;
  }
  /// The time of the profile's first step after its start (max() if it has one step).
  SimTime next_step() const { return profile_.size() > 1 ? profile_[1].at : SimTime::max(); }
  /// Adds a step at `at` with the free GPUs of the step it falls in, unless `at` is not
  /// after the plan's start (or a step begins there: it gains a source). O(steps) (the move).
  void split_at(SimTime at) {
    const auto it = std::ranges::lower_bound(profile_, at, {}, &Step::at);
    if (it == profile_.begin()) return;
    if (it != profile_.end() && it->at == at) {
      ++it->sources;
      return;
    }
    profile_.insert(it, {at, std::prev(it)->free_gpus, 1});
  }

  /// Free GPUs from now on: a step function, profile_[i] holding from its time to the next.
  void build_profile(SchedulingPass& pass) {
    profile_.clear();
    unsplit_ends_.clear();
    const Cluster& cluster = pass.cluster();
    profile_.push_back({pass.now(), cluster.idle_gpus(), 1});
    auto& entries = running_.entries();
    for (auto it = entries.begin(); it != entries.end();) {
      if (!running_.live(pass, *it)) {
        it = entries.erase(it);
        continue;
      }
      const SimTime at = std::max(it->key, pass.now());
      const int freed = pass.job(it->job).demand.gpus;
      if (profile_.back().at == at) {
        profile_.back().free_gpus += freed;
        ++profile_.back().sources;
      } else {
        profile_.push_back({at, profile_.back().free_gpus + freed, 1});
      }
      ++it;
    }
  }

  /// Index of the earliest step (from `from`) where `gpus` stay free for `length`, or size().
  std::size_t earliest(int gpus, Duration length, std::size_t from) {
    // Within one plan() the answer from step 0 never moves earlier: reservations only take
    // GPUs, and a longer job needs a longer run. So the scan starts at the slot found for
    // the longest job of this size no longer than this one (see Staircase), skipping the
    // runs already found too short, which in a backlog are most of the profile.
    Staircase& known = staircase_of(gpus);
    std::size_t begin = from;
    if (from == 0 && slot_hints_) {
      const SimTime after = known.lower_bound(length, hint_stamp_);
      if (after > profile_.front().at) {
        begin = static_cast<std::size_t>(std::ranges::lower_bound(profile_, after, {}, &Step::at) - profile_.begin());
      }
    }
    const std::size_t slot = sweep(gpus, length, begin);
    if (from == 0 && slot_hints_)
      known.learn(length, slot < profile_.size() ? profile_[slot].at : SimTime::max(), hint_stamp_);
    return slot;
  }

  /// The linear search of earliest() from step `c`, which is step 0 or the first step of a
  /// run (the step before it has too few free GPUs): `c` is the first step of the current
  /// run of steps with enough free GPUs; the run works once it lasts `length` (the last step
  /// lasts forever). O(steps scanned).
  std::size_t sweep(int gpus, Duration length, std::size_t c) const {
    for (std::size_t k = c; k < profile_.size(); ++k) {
      if (profile_[k].free_gpus < gpus) {
        c = k + 1;
        continue;
      }
      if (k + 1 == profile_.size() || profile_[k + 1].at >= profile_[c].at + length) return c;
    }
    return profile_.size();
  }

  /// For one job size, the slots earliest() found in the current plan() call: (length,
  /// slot start) pairs kept as a staircase (both strictly increasing), so the best lower
  /// bound for a length is one binary search. A slot found is the first step of a run, and
  /// stays one: the step before it only loses GPUs. `stamp` names the plan() call the
  /// entries belong to (a trimmed or rebuilt profile invalidates them).
  struct Staircase {
    std::uint64_t stamp = 0;
    std::vector<std::pair<Duration, SimTime>> steps;

    SimTime lower_bound(Duration length, std::uint64_t current) const {
      if (stamp != current) return SimTime::min();
      auto it = std::ranges::upper_bound(steps, length, {}, &std::pair<Duration, SimTime>::first);
      return it == steps.begin() ? SimTime::min() : std::prev(it)->second;
    }
    void learn(Duration length, SimTime slot, std::uint64_t current) {
      if (stamp != current) {
        steps.clear();
        stamp = current;
      }
      // Entries of a longer or equal length whose slot is no later are implied by this one.
      auto at = std::ranges::lower_bound(steps, length, {}, &std::pair<Duration, SimTime>::first);
      if (at != steps.begin() && std::prev(at)->second >= slot) return;  // already implied
      auto last = at;
      while (last != steps.end() && last->second <= slot) ++last;
      at = steps.erase(at, last);
      steps.insert(at, {length, slot});
    }
  };
  Staircase& staircase_of(int gpus) {
    const auto index = static_cast<std::size_t>(gpus);
    if (index >= staircases_.size()) staircases_.resize(index + 1);
    return staircases_[index];
  }

  /// Takes `gpus` from the profile over [profile_[slot].at, + length).
  void reserve(std::size_t slot, int gpus, Duration length) {
    const SimTime end = profile_[slot].at + length;
    std::size_t k = slot;
    for (; k < profile_.size() && profile_[k].at < end; ++k) profile_[k].free_gpus -= gpus;
    // Split the step that `end` falls in, so the GPUs come back at `end`.
    if (k < profile_.size() && profile_[k].at == end)
      ++profile_[k].sources;
    else
      profile_.insert(profile_.begin() + static_cast<std::ptrdiff_t>(k), {end, profile_[k - 1].free_gpus + gpus, 1});
  }
  /// Gives back what reserve() took for a reservation from `start` (a step of the profile).
  /// Its end step loses a source; one left with none (nothing else ends there) has the free
  /// GPUs of the step before it and is removed by the caller with the others, in one pass
  /// (remove_unsourced()). Exact when the reservations made after it are withdrawn first.
  /// O(log p + steps spanned).
  void unreserve(SimTime start, int gpus, Duration length) {
    const SimTime end = start + length;
    auto k = static_cast<std::size_t>(std::ranges::lower_bound(profile_, start, {}, &Step::at) - profile_.begin());
    for (; profile_[k].at < end; ++k) profile_[k].free_gpus += gpus;
    --profile_[k].sources;
  }
  void remove_unsourced() {
    std::erase_if(profile_, [](const Step& step) { return step.sources == 0; });
  }

  RuntimeEstimate estimate_;
  int max_job_test_;
  bool keep_plan_;
  bool slot_hints_;
  std::set<Key> queue_;
  TrackedRunning<SimTime> running_;
  std::vector<Step> profile_;          // the kept plan: free GPUs with the reservations
  std::vector<Planned> planned_;       // the window's queued jobs, in queue order
  bool kept_ = false;                  // profile_ and planned_ describe the future
  bool ends_off_plan_ = false;         // a job started in this pass ends other than its reservation
  std::size_t running_after_ = 0;      // running jobs when the last pass ended
  std::vector<Staircase> staircases_;  // by job size (GPUs): see earliest()
  std::vector<SimTime> unsplit_ends_;  // ends of the jobs without GPUs started in this pass
  std::uint64_t hint_stamp_ = 0;       // the current plan() call's
  // The deferred jobs (plan_deferred()), in queue order, and a summary of them if
  // deferred_known_.
  std::deque<Waiting> deferred_;
  bool deferred_known_ = false;
  Shortest deferred_shortest_;
};

}  // namespace

std::unique_ptr<Scheduler> make_conservative_backfill(const PolicyArgs& args) {
  return std::make_unique<ConservativeBackfill>(args);
}

}  // namespace acmesim::policies
