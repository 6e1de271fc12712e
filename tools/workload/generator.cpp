#include "tools/workload/generator.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <boost/random/bernoulli_distribution.hpp>
#include <boost/random/discrete_distribution.hpp>
#include <boost/random/exponential_distribution.hpp>
#include <boost/random/geometric_distribution.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>
#include <cmath>
#include <memory>

#include "io/policy_yaml.hpp"
#include "sim/core/error.hpp"
#include "sim/core/rng.hpp"
#include "sim/model/cluster.hpp"

namespace acmesim {

namespace {

using Uniform01 = boost::random::uniform_real_distribution<double>;

/// One class of jobs: its size distribution as cumulative shares, so a size is drawn from a
/// quantile v and the job's duration can be tied to v (size_duration_coupling).
struct ClassSampler {
  const JobClassProfile* profile;
  std::vector<int> values;
  std::vector<double> upper;  // cumulative share up to and including values[i]; last == 1

  explicit ClassSampler(const JobClassProfile& p) : profile{&p} {
    double total = 0;
    for (const auto& entry : p.demand) total += entry.second;
    double sum = 0;
    for (const auto& [value, weight] : p.demand) {
      values.push_back(value);
      sum += weight;
      upper.push_back(sum / total);
    }
    upper.back() = 1.0;
  }
  std::size_t index(double v) const {
    return static_cast<std::size_t>(std::upper_bound(upper.begin(), upper.end() - 1, v) - upper.begin());
  }
  double lower(std::size_t i) const { return i == 0 ? 0.0 : upper[i - 1]; }
};

/// Completed / cancelled / failed shares at duration quantile u: linear between the rows.
std::array<double, 3> state_shares(const std::vector<StateRow>& rows, double u) {
  if (rows.size() == 1) return rows.front().percent;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    if (u <= rows[i].u) {
      const double w = (u - rows[i - 1].u) / (rows[i].u - rows[i - 1].u);
      std::array<double, 3> out{};
      for (std::size_t s = 0; s < 3; ++s)
        out[s] = rows[i - 1].percent[s] + w * (rows[i].percent[s] - rows[i - 1].percent[s]);
      return out;
    }
  }
  return rows.back().percent;
}

struct Draft {
  std::int64_t submit_s;
  std::uint64_t order;  // generation order: ties in submit time keep it
  std::uint32_t user;
  JobType type;
  Demand demand;
  std::int64_t runtime_s;
  FinalState state;
};

/// Gives the jobs of campaign types their submission times (docs/workload.md "Campaigns"). A
/// campaign is a run of one size: runs follow each other, each submitted `gap` after the one
/// before ended. Campaigns get a wished start uniform over the span and start at the time nearest
/// to it, inside the span if they fit there, when every campaign running then, plus this one,
/// stays within `budget` GPUs. Cost: O(C log C) per candidate start tried, O(C) candidates, for C
/// campaigns (a few hundred: one per ~20 pretraining runs); the nearest candidates usually fit.
void place_campaigns(std::vector<Draft>& drafts, const std::vector<JobClassProfile>& types, std::int64_t span_s,
                     int budget_gpus, const std::string& source, std::uint64_t seed) {
  struct Campaign {
    std::vector<std::size_t> runs;  // indices into drafts, in submission order
    int gpus = 0;
    double gap_mean_s = 0;
    std::int64_t wish_s = 0;
    std::int64_t length_s = 0;
  };
  Rng rng{seed, "synth/campaigns"};
  Uniform01 uniform;
  std::vector<Campaign> campaigns;
  for (const JobClassProfile& type : types) {
    if (type.campaign_runs_mean <= 0) continue;
    std::vector<std::size_t> jobs;
    for (std::size_t i = 0; i < drafts.size(); ++i) {
      if (drafts[i].type == type.type) jobs.push_back(i);
    }
    // One size per campaign; within a size, runs in a random order (trials, resumes, main runs).
    std::vector<double> key(drafts.size(), 0.0);
    for (const std::size_t i : jobs) key[i] = uniform(rng);
    std::sort(jobs.begin(), jobs.end(), [&](std::size_t a, std::size_t b) {
      return drafts[a].demand.gpus != drafts[b].demand.gpus ? drafts[a].demand.gpus < drafts[b].demand.gpus
                                                            : key[a] < key[b];
    });
    boost::random::geometric_distribution<std::uint64_t> extra(1.0 / type.campaign_runs_mean);
    std::size_t next = 0;
    while (next < jobs.size()) {
      Campaign c;
      c.gpus = drafts[jobs[next]].demand.gpus;
      if (c.gpus > budget_gpus) {
        throw InputError(fmt::format("{}: a {} campaign of {} GPUs exceeds campaign_budget_share ({} GPUs)", source,
                                     name(type.type), c.gpus, budget_gpus));
      }
      c.gap_mean_s = 60.0 * type.campaign_gap_min;
      const std::uint64_t runs = 1 + extra(rng);
      while (next < jobs.size() && c.runs.size() < runs && drafts[jobs[next]].demand.gpus == c.gpus) {
        c.runs.push_back(jobs[next++]);
      }
      campaigns.push_back(std::move(c));
    }
  }
  // Gaps are drawn now, so that a campaign's length is known when it is placed.
  std::vector<std::vector<std::int64_t>> gaps(campaigns.size());
  for (std::size_t k = 0; k < campaigns.size(); ++k) {
    Campaign& c = campaigns[k];
    c.wish_s = static_cast<std::int64_t>(uniform(rng) * static_cast<double>(span_s));
    boost::random::exponential_distribution<double> gap(c.gap_mean_s > 0 ? 1.0 / c.gap_mean_s : 1.0);
    for (std::size_t r = 0; r < c.runs.size(); ++r) {
      const std::int64_t g = r + 1 < c.runs.size() && c.gap_mean_s > 0 ? static_cast<std::int64_t>(gap(rng)) : 0;
      gaps[k].push_back(g);
      c.length_s += drafts[c.runs[r]].runtime_s + g;
    }
  }
  std::vector<std::size_t> order(campaigns.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return campaigns[a].wish_s != campaigns[b].wish_s ? campaigns[a].wish_s < campaigns[b].wish_s : a < b;
  });
  struct Placed {
    std::int64_t from, to;
    int gpus;
  };
  std::vector<Placed> placed;
  // The most GPUs campaigns hold at once within [from, to): a sweep over the overlapping ones.
  const auto peak = [&](std::int64_t from, std::int64_t to) {
    std::vector<std::pair<std::int64_t, int>> edges;
    for (const Placed& p : placed) {
      if (p.from < to && p.to > from) {
        edges.emplace_back(std::max(p.from, from), p.gpus);
        edges.emplace_back(p.to, -p.gpus);
      }
    }
    std::sort(edges.begin(), edges.end());  // an end before a start at one instant
    int held = 0, most = 0;
    for (const auto& [at, change] : edges) {
      held += change;
      most = std::max(most, held);
    }
    return most;
  };
  for (const std::size_t k : order) {
    const Campaign& c = campaigns[k];
    const std::int64_t length = std::max<std::int64_t>(c.length_s, 1);
    // Candidate starts: the wish (moved so the campaign ends within the span if it can), the
    // span's start, and the edges of the campaigns placed so far (start as one ends, or end as
    // one starts). The first that fits the budget, in order of (past the span, distance to the
    // wish), wins, so campaigns stay inside the span and near their wished time.
    const std::int64_t latest = std::max<std::int64_t>(0, span_s - length);
    std::vector<std::int64_t> candidates{std::min(c.wish_s, latest), 0};
    for (const Placed& p : placed) {
      candidates.push_back(p.to);
      if (p.from - length >= 0) candidates.push_back(p.from - length);
    }
    const auto rank = [&](std::int64_t t) {
      return std::pair<bool, std::int64_t>{t > latest, t > c.wish_s ? t - c.wish_s : c.wish_s - t};
    };
    std::sort(candidates.begin(), candidates.end(),
              [&](std::int64_t x, std::int64_t y) { return rank(x) != rank(y) ? rank(x) < rank(y) : x < y; });
    std::int64_t t = -1;
    for (const std::int64_t candidate : candidates) {
      if (peak(candidate, candidate + length) + c.gpus <= budget_gpus) {
        t = candidate;
        break;
      }
    }
    if (t < 0) {  // cannot happen: after the last placed end the budget is free
      t = 0;
      for (const Placed& p : placed) t = std::max(t, p.to);
    }
    placed.push_back(Placed{t, t + std::max<std::int64_t>(c.length_s, 1), c.gpus});
    for (std::size_t r = 0; r < c.runs.size(); ++r) {
      drafts[c.runs[r]].submit_s = t;
      drafts[c.runs[r]].user = drafts[c.runs.front()].user;  // one team runs a campaign
      t += drafts[c.runs[r]].runtime_s + gaps[k][r];
    }
  }
}

std::string base36_id(Rng& rng) {
  static constexpr char kDigits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  boost::random::uniform_int_distribution<int> digit(0, 35);
  std::string id = "dlc";  // Kalos job ids look like `dlc…` [AcmeTrace README]
  for (int i = 0; i < 13; ++i) id.push_back(kDigits[digit(rng)]);
  return id;
}

}  // namespace

Trace generate_submissions(const WorkloadProfile& profile, const SynthOptions& options) {
  if (!(options.load > 0)) throw input_error("command line", "--load", "a number > 0", fmt::format("{}", options.load));
  if (options.days && options.jobs && options.load != 1.0) {
    throw InputError("--days, --jobs and --load together over-determine the trace: give at most two of them");
  }
  const double rate_per_day = profile.jobs / profile.days * options.load;
  double days = profile.days;
  std::uint64_t total = 0;
  if (options.jobs) {
    total = *options.jobs;
    days = options.days ? *options.days : static_cast<double>(total) / rate_per_day;
  } else {
    if (options.days) days = *options.days;
    total = static_cast<std::uint64_t>(std::llround(rate_per_day * days));
  }
  if (!(days > 0) || days > kMaxSynthDays) {
    throw input_error("command line", "--days", fmt::format("a number in (0, {}]", kMaxSynthDays),
                      fmt::format("{}", days));
  }
  if (total > kMaxSynthJobs) {
    throw InputError(
        fmt::format("command line: the trace would hold {} jobs ({:.4g} days x {:.4g} jobs per day); at most "
                    "{} are generated: lower --load, --days or --jobs",
                    total, days, rate_per_day, kMaxSynthJobs));
  }
  const auto span_s = std::max<std::int64_t>(1, std::llround(days * 86400.0));
  const std::int64_t hours = std::max<std::int64_t>(1, (span_s + 3599) / 3600);

  // Submission cycle: weight of each hour of the span = hourly[local hour] x weekly[local day].
  std::vector<double> hour_weights(static_cast<std::size_t>(hours));
  for (std::int64_t h = 0; h < hours; ++h) {
    const std::int64_t local = profile.start_unix + h * 3600 + std::int64_t{profile.arrival_utc_offset_minutes} * 60;
    const std::int64_t day = local >= 0 ? local / 86400 : (local - 86399) / 86400;
    const auto hour_of_day = static_cast<std::size_t>((local - day * 86400) / 3600);
    const auto weekday = static_cast<std::size_t>(((day + 3) % 7 + 7) % 7);  // 1970-01-01 was a Thursday
    hour_weights[static_cast<std::size_t>(h)] = profile.hourly[hour_of_day] * profile.weekly[weekday];
  }
  boost::random::discrete_distribution<std::size_t> pick_hour(hour_weights.begin(), hour_weights.end());

  // A unit is one CPU job, one GPU job, or one burst of evaluation jobs. Unit weights are the job
  // shares divided by the mean unit size, so the job mix matches the shares.
  double total_share = 0;
  for (const auto& t : profile.gpu_types) total_share += t.share;
  std::vector<ClassSampler> classes;
  std::vector<double> unit_weights;
  for (const auto& t : profile.gpu_types) {
    classes.emplace_back(t);
    unit_weights.push_back((1.0 - profile.cpu_job_share) * t.share / total_share / t.burst_mean_size);
  }
  classes.emplace_back(profile.cpu_jobs);
  unit_weights.push_back(profile.cpu_job_share);
  boost::random::discrete_distribution<std::size_t> pick_class(unit_weights.begin(), unit_weights.end());

  std::vector<double> user_weights(static_cast<std::size_t>(profile.users));
  for (std::size_t k = 0; k < user_weights.size(); ++k) {
    user_weights[k] = 1.0 / std::pow(static_cast<double>(k + 1), profile.user_zipf);
  }
  boost::random::discrete_distribution<std::uint32_t> pick_user(user_weights.begin(), user_weights.end());

  Rng arrivals{options.seed, "synth/arrivals"};
  Rng kinds{options.seed, "synth/classes"};
  Rng users{options.seed, "synth/users"};
  Rng demands{options.seed, "synth/demand"};
  Rng durations{options.seed, "synth/duration"};
  Rng states{options.seed, "synth/state"};
  Uniform01 uniform;
  const ClusterSpec& cluster = profile.cluster;
  const Cluster empty{cluster};

  std::vector<Draft> drafts;
  drafts.reserve(total);
  while (drafts.size() < total) {
    const std::size_t c = pick_class(kinds);
    const ClassSampler& cls = classes[c];
    const bool cpu = c + 1 == classes.size();
    std::uint64_t size = 1;
    if (cls.profile->burst_mean_size > 1) {
      boost::random::geometric_distribution<std::uint64_t> extra(1.0 / cls.profile->burst_mean_size);
      size = 1 + extra(kinds);
    }
    size = std::min<std::uint64_t>(size, total - drafts.size());
    const std::int64_t hour = static_cast<std::int64_t>(pick_hour(arrivals));
    boost::random::uniform_int_distribution<std::int64_t> second(
        0, std::min<std::int64_t>(3600, span_s - hour * 3600) - 1);
    std::int64_t t = hour * 3600 + second(arrivals);
    const std::uint32_t user = pick_user(users);
    // A burst evaluates one checkpoint: one user, one model, so one GPU count for all its trials.
    const std::size_t size_index = cls.index(uniform(demands));
    const int amount = cls.values[size_index];
    Demand demand;
    if (cpu) {
      demand = Demand{1, 0, amount, profile.cpu_job_mem_gb};
    } else {
      const int nodes = (amount + cluster.gpus_per_node - 1) / cluster.gpus_per_node;
      demand = Demand{nodes, amount, amount * profile.cpus_per_gpu, 0};
      demand.mem_gib_per_node = demand.gpus_per_node_max() * profile.mem_gb_per_gpu;
    }
    if (const auto why = empty.never_fits(demand)) {
      throw InputError(fmt::format("{}: a {} job of {} {} can never fit the profile's cluster: {}", profile.source,
                                   cpu ? std::string("CPU") : std::string(name(cls.profile->type)), amount,
                                   cpu ? "CPUs" : "GPUs", *why));
    }
    boost::random::exponential_distribution<double> gap(cls.profile->burst_gap_s > 0 ? 1.0 / cls.profile->burst_gap_s
                                                                                     : 1.0);
    for (std::uint64_t i = 0; i < size; ++i) {
      if (i > 0 && cls.profile->burst_gap_s > 0) t += static_cast<std::int64_t>(std::floor(gap(arrivals)));
      // With probability `coupling` the duration quantile lies in the same quantile band as the
      // size: both marginals stay exact, and bigger jobs of a type run longer.
      double u = uniform(durations);
      if (cls.profile->size_duration_coupling > 0 && uniform(durations) < cls.profile->size_duration_coupling) {
        u = cls.lower(size_index) + u * (cls.upper[size_index] - cls.lower(size_index));
      }
      // ceil: a job drawn at x <= 2^i s is recorded at <= 2^i s, so the CDF grid points are kept.
      const double x = std::min(cls.profile->duration.inverse(u), profile.max_duration_s);
      const auto runtime = static_cast<std::int64_t>(std::ceil(x - 1e-9));
      const auto shares = state_shares(cls.profile->states, u);
      boost::random::discrete_distribution<int> pick_state(shares.begin(), shares.end());
      FinalState state = kFinalStates[static_cast<std::size_t>(pick_state(states))];
      if (state == FinalState::Failed) {
        if (static_cast<double>(runtime) >= profile.max_duration_s) {
          state = FinalState::Timeout;
        } else if (demand.nodes > 1 && profile.node_fail_share > 0 &&
                   boost::random::bernoulli_distribution<double>(profile.node_fail_share)(states)) {
          state = FinalState::NodeFail;
        }
      }
      drafts.push_back(Draft{t, drafts.size(), user, cpu ? JobType::Other : cls.profile->type, demand, runtime, state});
    }
  }
  const auto budget_gpus =
      static_cast<int>(std::floor(profile.campaign_budget_share * cluster.gpu_nodes * cluster.gpus_per_node + 1e-9));
  place_campaigns(drafts, profile.gpu_types, span_s, budget_gpus, profile.source, options.seed);
  std::sort(drafts.begin(), drafts.end(), [](const Draft& a, const Draft& b) {
    return a.submit_s != b.submit_s ? a.submit_s < b.submit_s : a.order < b.order;
  });

  Trace trace;
  trace.path = profile.source;
  trace.schema = profile.schema;
  trace.epoch_unix_seconds = profile.start_unix;
  trace.utc_offset_minutes = profile.utc_offset_minutes;
  trace.rows_read = drafts.size();
  trace.jobs.reserve(drafts.size());
  std::vector<std::int64_t> user_ids(static_cast<std::size_t>(profile.users), -1);  // interned in submission order
  Rng ids{options.seed, "synth/ids"};
  for (std::size_t i = 0; i < drafts.size(); ++i) {
    const Draft& d = drafts[i];
    JobSpec job;
    job.id = JobId{static_cast<std::uint32_t>(i)};
    // Seren ids are integers increasing with submission [AcmeTrace README]; the base is our choice.
    job.trace_id =
        std::string_view(profile.schema == TraceSchema::Kalos ? base36_id(ids) : fmt::format("{}", 5000000 + i));
    std::int64_t& uid = user_ids[d.user];
    if (uid < 0) {
      uid = static_cast<std::int64_t>(trace.users.size());
      // Seren users look like u5907, Kalos users like uf794 [AcmeTrace README].
      trace.users.push_back(profile.schema == TraceSchema::Kalos ? fmt::format("u{:x}", 0x1000 + d.user)
                                                                 : fmt::format("u{}", 1000 + d.user));
    }
    job.user = UserId{static_cast<std::uint32_t>(uid)};
    job.type = d.type;
    job.demand = d.demand;
    job.submitted = SimTime{seconds(d.submit_s)};
    job.runtime = seconds(d.runtime_s);
    job.recorded_state = d.state;
    job.source_line = static_cast<std::uint32_t>(i + 2);
    trace.jobs.push_back(std::move(job));
  }
  return trace;
}

ScheduleReport schedule_submissions(Trace& trace, const WorkloadProfile& profile, const Catalog& catalog,
                                    std::uint64_t seed) {
  // The admission latency is the cluster model's (sim/run AdmissionLatency), as in `acmesim
  // run`: a job reaches the scheduler some seconds after its submission, which the recorded
  // queue includes ([AcmeTrace T7]: no Kalos job starts within 4 s). The Kubernetes launch is the
  // first part of each drawn duration, which the Kalos duration CDF already includes
  // ([AcmeTrace T6]), so it adds nothing to a job that runs once and needs no model here.
  SimulationOptions options;
  options.admission = AdmissionLatency{profile.admission_latency};
  options.seed = seed;
  Simulation sim{
      profile.cluster, trace.jobs,
      core_policies(catalog,
                    catalog.schedulers.make(PolicyArgs{"scheduler", profile.scheduler, profile.scheduler_params,
                                                       profile.scheduler_where, seed, csv_table_reader()}),
                    catalog.placements.make(PolicyArgs::named("placement", profile.placement, seed))),
      options};
  ScheduleReport report{sim.run()};
  for (std::size_t i = 0; i < trace.jobs.size(); ++i) {
    const JobStatus& s = report.result.jobs[i];
    if (s.phase != JobPhase::Ended) {
      throw SimulationError(
          fmt::format("synth: job {} did not run under scheduler '{}'", trace.jobs[i].trace_id, profile.scheduler));
    }
    trace.jobs[i].recorded_start = *s.started;
  }
  return report;
}

}  // namespace acmesim
