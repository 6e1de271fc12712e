#include <algorithm>
#include <array>
#include <optional>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "policies/scheduling/queue_tools.hpp"
#include "policies/scheduling/quota.hpp"
#include "policies/scheduling/runtime_estimate.hpp"
#include "sim/policy_api/policy_args.hpp"
#include "sim/policy_api/scheduler.hpp"

namespace acmesim::policies {

namespace {

/// Queued jobs in Slurm's multifactor priority order ([Slurm priority_multifactor]):
/// priority = weight_age x min(age / max_age, 1) + (the job's static part: QOS and size), where
/// age counts from submission. Before the cap every job's age term grows at the same rate, so
/// their order is that of (static - weight_age x submit / max_age) and never changes; jobs past
/// max_age all have the full age term and are ordered by their static part. Two ordered sets
/// hold the two groups, and iteration merges them by current priority (ties: earlier
/// submission, then lower id).
///
/// A walk visits at most `limit` jobs, so it only ever needs each group's first `limit`
/// entries. Each group keeps them (its front) as an array of iterators into its set, in order,
/// and a walk merges the two arrays: reading an array in order, where walking a red-black tree
/// chased a chain of dependent pointers at every step (a quarter of an overloaded run). Cost:
/// insert and erase O(log q), plus O(f) to move the front's iterators when the entry is among the
/// f <= 2 x limit of the front; a walk O(visited), plus O(1) amortized per entry that joins the
/// front from the set (each joins once); age() O(log q) per job that crosses max_age, once per
/// job.
class PriorityQueue {
 public:
  /// What the look-ahead asks of a queued job, kept in its entry so a walk does not fetch the
  /// job from the trace.
  struct Facts {
    FitMemo::Shape shape;
    int gpus;
    JobType type;
    bool in_quota;
    Duration estimate;
  };
  struct Entry {
    double key;  // minus the priority part that orders the group (smaller key: higher priority)
    SimTime submitted;
    JobId job;
    double static_priority;  // QOS and size part
    Facts facts;
  };
  /// (key, submitted, job) orders the entries; the rest rides along.
  struct Before {
    bool operator()(const Entry& a, const Entry& b) const {
      return std::tie(a.key, a.submitted, a.job) < std::tie(b.key, b.submitted, b.job);
    }
  };

  /// A walk visits at most `limit` jobs. `keep_fronts` false: every walk rebuilds the fronts from
  /// the sets (the reference the kept fronts are tested against).
  PriorityQueue(double weight_age, Duration max_age, int limit, bool keep_fronts)
      : weight_age_{weight_age},
        max_age_{max_age},
        limit_{limit},
        keep_fronts_{keep_fronts},
        young_{static_cast<std::size_t>(limit)},
        old_{static_cast<std::size_t>(limit)} {}

  void insert(JobId job, SimTime submitted, double static_priority, const Facts& facts, SimTime now) {
    if (now - submitted >= max_age_) {
      old_.insert({-(static_priority + weight_age_), submitted, job, static_priority, facts});
      return;
    }
    const double key = -(static_priority - weight_age_ * age_share(submitted.time_since_epoch()));
    young_.insert({key, submitted, job, static_priority, facts});
    by_submit_.insert({submitted, job, key});
  }

  /// Moves the jobs whose age reached max_age to the capped group.
  void age(SimTime now) {
    while (!by_submit_.empty() && now - std::get<SimTime>(*by_submit_.begin()) >= max_age_) {
      const auto [submitted, job, key] = *by_submit_.begin();
      by_submit_.erase(by_submit_.begin());
      Entry moved = young_.erase(Entry{key, submitted, job, 0.0, {}});
      moved.key = -(moved.static_priority + weight_age_);
      old_.insert(moved);
    }
  }

  bool empty() const { return young_.empty() && old_.empty(); }

  /// Walks the queue in priority order. `visit(entry)` returns true to remove the job (it
  /// started) and false to keep it; the walk stops after `limit` jobs.
  template <class Visit>
  void walk(SimTime now, Visit visit) {
    const Group::Front& young = young_.front(keep_fronts_);
    const Group::Front& old = old_.front(keep_fronts_);
    std::size_t y = 0;
    std::size_t o = 0;
    // A young job's priority now is -key + lift; a capped one's is -key.
    const double lift = weight_age_ * age_share(now.time_since_epoch());
    for (int seen = 0; seen < limit_ && (y < young.size() || o < old.size()); ++seen) {
      bool take_young = o == old.size();
      if (y < young.size() && o < old.size()) {
        const Entry& a = *young[y];
        const Entry& b = *old[o];
        const double py = -a.key + lift;
        const double po = -b.key;
        take_young = py != po ? py > po : std::pair{a.submitted, a.job} < std::pair{b.submitted, b.job};
      }
      if (take_young) {
        if (visit(*young[y])) {
          by_submit_.erase({young[y]->submitted, young[y]->job, young[y]->key});
          young_.erase_in_walk(y);
        }
        ++y;
      } else {
        if (visit(*old[o])) old_.erase_in_walk(o);
        ++o;
      }
    }
    young_.end_walk();
    old_.end_walk();
  }

 private:
  /// One group: its entries in order, and its first ones (the front) as an array of the set's
  /// iterators. Invariant: front_ holds the first front_.size() entries of set_, in order (a
  /// walk marks those it removes with end() until end_walk()).
  class Group {
   public:
    using Set = std::set<Entry, Before>;
    using Front = std::vector<typename Set::const_iterator>;

    /// A walk reads at most `limit` entries of the group; the front holds at least that many
    /// (or every entry) when a walk starts, and at most kFrontSlack x `limit` + 64.
    explicit Group(std::size_t limit) : limit_{limit}, most_{kFrontSlack * limit + 64} {}

    void insert(const Entry& e) {
      const bool whole = front_.size() == set_.size();
      const auto added = set_.insert(e).first;
      // Behind the front (or no front yet): only the set holds it.
      if (!whole && (front_.empty() || !Before{}(e, *front_.back()))) return;
      front_.insert(std::ranges::upper_bound(front_, e, Before{}, deref), added);
      // Bounds the moves of later inserts; the set still holds what is cut.
      if (front_.size() > most_) front_.resize(most_);
    }
    /// Removes the entry ordered as `key` and returns it.
    Entry erase(const Entry& key) {
      const auto it = set_.find(key);
      const Entry found = *it;
      if (!front_.empty() && !Before{}(*front_.back(), found)) {
        front_.erase(std::ranges::lower_bound(front_, found, Before{}, deref));
      }
      set_.erase(it);
      return found;
    }
    /// The front with at least `limit` entries (or every entry); `kept` false: rebuilt.
    const Front& front(bool kept) {
      if (!kept) front_.clear();
      if (front_.size() < limit_ && front_.size() < set_.size()) {
        auto it = front_.empty() ? set_.begin() : std::next(front_.back());
        for (; front_.size() < limit_ && it != set_.end(); ++it) front_.push_back(it);
      }
      return front_;
    }
    /// During a walk: the entry at front position `i` leaves the queue.
    void erase_in_walk(std::size_t i) {
      set_.erase(front_[i]);
      front_[i] = set_.end();
      erased_ = true;
    }
    void end_walk() {
      if (erased_) std::erase(front_, set_.cend());
      erased_ = false;
    }
    bool empty() const { return set_.empty(); }

   private:
    static constexpr std::size_t kFrontSlack = 2;  // our choice: the front may hold 2 x limit (+64)
    static const Entry& deref(typename Set::const_iterator it) { return *it; }
    Set set_;
    Front front_;
    std::size_t limit_;
    std::size_t most_;
    bool erased_ = false;
  };

  using Submit = std::tuple<SimTime, JobId, double>;  // (submitted, job, young key)
  double age_share(Duration since_epoch) const {
    return static_cast<double>(since_epoch.count()) / static_cast<double>(max_age_.count());
  }

  double weight_age_;
  Duration max_age_;
  int limit_;
  bool keep_fronts_;
  Group young_;  // age below max_age: key = -(static - weight_age x submit / max_age)
  Group old_;    // age at max_age: key = -(static + weight_age)
  std::set<Submit> by_submit_;
};

/// `slurm`: Seren's scheduler as Slurm runs it, composed of the pieces the other schedulers use:
/// - Partitions: CPU-only jobs go to a CPU partition with a queue of their own, served first
///   at every pass (they never wait behind GPU jobs), on the CPU-only nodes when the cluster has
///   them (`cpu_partition: cpu_nodes`) or wherever the placement finds CPUs (`all`). GPU jobs
///   go to the GPU partition.
/// - Quota and best-effort (QuotaBook, as in `acme`): in-quota jobs start while their type's
///   quota has room (QOS GrpTRES; a job over it is held, with no reservation); if best-effort
///   jobs hold the GPUs, the in-quota job preempts them (Preemptor; `preemption`).
/// - Multifactor priority (PriorityQueue): QOS factor 1 for in-quota jobs, 0.5 for best-effort,
///   0 for low-priority (Eval) ones; job-size factor GPUs / cluster GPUs; age factor
///   min(age / max_age_s, 1). The weights are our model (Slurm's defaults are all 0).
/// - Backfill: jobs start in priority order; the first that cannot start (even after
///   preemption, if in quota) gets a reservation at the shadow time of its GPUs, from the
///   running jobs' estimated ends (RuntimeEstimate), and the rest of the `max_job_test` window
///   starts only by the EASY rule (Reservation). The reservation counts GPUs, not nodes.
/// Cost per pass: O(k) to refresh the k in-quota running jobs if a job has left since the last
/// pass, O(log q) per start and per job crossing max_age, O(v) per v victims, O(r) for the
/// reservation over the r running jobs that end before the shadow time, O(max_job_test)
/// look-ahead per partition over PriorityQueue's fronts: most jobs are turned away by the quota,
/// the reservation or FitMemo (O(1) per job once its shape's answer is known) without leaving
/// the walk (try_start() is the rest).
class Slurm final : public Scheduler {
 public:
  explicit Slurm(const PolicyArgs& args)
      : preemptor_{args},
        estimate_{args},
        // Slurm's bf_max_job_test (slurm.conf; 500 in current releases).
        max_job_test_{args.whole("max_job_test", 500, Range::at_least(1),
                                 "jobs examined per pass and partition (Slurm's bf_max_job_test)")},
        preemption_{args.flag("preemption", true, "in-quota jobs preempt best-effort jobs (false: they wait)")},
        quota_{args},
        // Our model: QOS dominates (an in-quota job outranks any best-effort one, normal any low
        // priority one), then age and size, each worth at most a tenth of the QOS weight.
        weight_qos_{args.number("weight_qos", 10000, Range::at_least(0), "PriorityWeightQOS")},
        weight_age_{args.number("weight_age", 1000, Range::at_least(0), "PriorityWeightAge")},
        weight_size_{args.number("weight_job_size", 1000, Range::at_least(0),
                                 "PriorityWeightJobSize (factor: GPUs / cluster GPUs)")},
        // Slurm's default PriorityMaxAge is 7-0 (7 days).
        max_age_{from_seconds(args.number("max_age_s", 604800, Range::duration(0, 1, true),
                                          "PriorityMaxAge: age at which the age factor reaches 1"))},
        cpu_nodes_only_{args.word("cpu_partition", "cpu_nodes", {"cpu_nodes", "all"},
                                  "where CPU-only jobs run: the CPU-only nodes (if any) or any node") == "cpu_nodes"},
        // false: every walk rebuilds its fronts (slow; the reference the kept fronts are tested
        // against).
        keep_fronts_{args.flag("keep_fronts", true, "keep the queue's first jobs in an array between walks")},
        gpu_queue_{weight_age_, std::max(max_age_, Duration{1}), max_job_test_, keep_fronts_},
        cpu_queue_{weight_age_, std::max(max_age_, Duration{1}), max_job_test_, keep_fronts_} {}

  void enqueue(const JobSpec& job) override { pending_.push_back(job.id); }

  void select(SchedulingPass& pass) override {
    const Cluster& cluster = pass.cluster();
    if (!quota_.resolved()) quota_.resolve(cluster);
    for (JobId id : pending_) classify(pass, pass.job(id));
    pending_.clear();
    quota_.refresh(pass);
    gpu_queue_.age(pass.now());
    cpu_queue_.age(pass.now());

    // CPU partition: every job that fits, in priority order; a demand refused once is skipped.
    const bool restrict_cpu = cpu_nodes_only_ && cluster.spec().cpu_nodes > 0 && cluster.cpus_modelled();
    cpu_memo_.clear();
    cpu_queue_.walk(pass.now(), [&](const PriorityQueue::Entry& e) {
      const JobId job = e.job;
      auto where = cpu_memo_.fit(pass, job, e.facts.shape);
      if (where && restrict_cpu && on_gpu_nodes(cluster, *where)) {
        cpu_memo_.add(e.facts.shape);  // no CPU-only node has room for it
        return false;
      }
      if (!where) return false;
      pass.start(job, *where);
      return true;
    });

    // GPU partition: priority order until the first job that cannot start, then EASY backfill.
    std::optional<Reservation> reservation;
    gpu_memo_.clear();
    const SimTime now = pass.now();
    gpu_queue_.walk(now, [&](const PriorityQueue::Entry& e) {
      const PriorityQueue::Facts& f = e.facts;
      if (f.in_quota && !quota_.has_room(f.type, f.gpus)) return false;  // held by its QOS limit, reserves nothing
      // Backfilling behind a reservation: most jobs are turned away here, before any fit.
      if (reservation && (!reservation->admits(now, f.estimate, f.gpus) || gpu_memo_.known_not_to_fit(f.shape)))
        return false;
      return try_start(pass, e, reservation);
    });
  }

 private:
  /// The GPU walk's job `e` that passed the quick checks: starts it if it fits (or, with no
  /// reservation yet and in quota, if preemption makes room); else, with no reservation yet,
  /// reserves for it. True if it started. Kept out of line so that the walk's quick checks,
  /// which turn most jobs away, stay inlined in the walk.
  [[gnu::noinline]] bool try_start(SchedulingPass& pass, const PriorityQueue::Entry& e,
                                   std::optional<Reservation>& reservation) {
    const JobId job = e.job;
    const PriorityQueue::Facts& f = e.facts;
    const SimTime now = pass.now();
    std::optional<Allocation> where = gpu_memo_.fit(pass, job, f.shape);
    if (!reservation) {
      if (!where && f.in_quota && preemption_) {
        where = preemptor_.make_room(pass, job, quota_.releases());
        gpu_memo_.clear();  // preemption gave resources back
      }
      if (!where) {
        reservation = reserve_gpus(pass, f.gpus, [&](auto ends) { running_.for_each_live(pass, ends); });
        return false;
      }
    } else {
      if (!where) return false;
      reservation->took(now, f.estimate, f.gpus);
    }
    pass.start(job, *where);
    running_.add(pass, estimate_.end_of(pass, job), job);
    if (f.in_quota)
      quota_.started(pass, job);
    else
      preemptor_.started(pass, job, quota_.low(f.type));
    return true;
  }

  static bool on_gpu_nodes(const Cluster& cluster, const Allocation& where) {
    for (const Slice& s : where) {
      if (cluster.node(s.node).has_gpus) return true;
    }
    return false;
  }

  void classify(const SchedulingPass& pass, const JobSpec& job) {
    const double qos = quota_.in_quota(job) ? 1.0 : quota_.low(job.type) ? 0.0 : 0.5;
    const double size =
        static_cast<double>(job.demand.gpus) / static_cast<double>(std::max(1, pass.cluster().total_gpus()));
    const double static_priority = weight_qos_ * qos + weight_size_ * size;
    const PriorityQueue::Facts facts{shapes_.numbered(job.demand), job.demand.gpus, job.type, quota_.in_quota(job),
                                     estimate_.of(job)};
    (job.demand.cpu_only() ? cpu_queue_ : gpu_queue_).insert(job.id, job.submitted, static_priority, facts, pass.now());
  }

  Preemptor preemptor_;
  RuntimeEstimate estimate_;
  int max_job_test_;
  bool preemption_;
  QuotaBook quota_;
  double weight_qos_;
  double weight_age_;
  double weight_size_;
  Duration max_age_;
  bool cpu_nodes_only_;
  bool keep_fronts_;
  PriorityQueue gpu_queue_;
  PriorityQueue cpu_queue_;
  std::vector<JobId> pending_;
  TrackedRunning<SimTime> running_;  // GPU jobs by estimated end, for the reservation
  ShapeNumbers shapes_;              // of the queued jobs' demands
  FitMemo gpu_memo_;                 // per pass: GPU demands that did not fit
  FitMemo cpu_memo_;                 // per pass: CPU-only demands that did not fit
};

}  // namespace

std::unique_ptr<Scheduler> make_slurm(const PolicyArgs& args) { return std::make_unique<Slurm>(args); }

}  // namespace acmesim::policies
