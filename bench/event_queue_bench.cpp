// Micro-benchmarks of the event loop's two layers: the bare EventQueue (a binary heap ordered by
// (time, phase, seq)) and the Engine around it (phase lookup, sequence numbers, clock and
// fingerprint). Both run the classic hold model: N events are pending and one operation pops the
// next event and schedules one at its time plus a random delay, so the heap stays at N, as in a
// replay where every running job has its end pending. One item is one pop plus one push.
#include <benchmark/benchmark.h>

#include <boost/random/uniform_01.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <cmath>
#include <cstdint>
#include <random>
#include <variant>
#include <vector>

#include "sim/core/engine.hpp"
#include "sim/core/event_queue.hpp"
#include "sim/core/time.hpp"

using namespace acmesim;

namespace {

// An event set shaped like the cluster simulation's (sim/model/events.hpp): the heap sees only
// the size of an event and the mix of phases, so three kinds are enough.
enum class BenchPhase : std::uint8_t { Release = 0, Arrive = 1, Decide = 2 };

struct Finished {
  static constexpr BenchPhase phase = BenchPhase::Release;
  std::uint32_t job;
  std::uint32_t attempt;
  std::uint64_t key() const { return (std::uint64_t{job} << 32) | attempt; }
};

struct Submitted {
  static constexpr BenchPhase phase = BenchPhase::Arrive;
  std::uint32_t job;
  std::uint64_t key() const { return job; }
};

struct PassDue {
  static constexpr BenchPhase phase = BenchPhase::Decide;
  std::uint64_t key() const { return 0; }
};

using BenchBody = std::variant<Finished, Submitted, PassDue>;

// Delays are whole seconds (AcmeTrace's resolution) up to one day, so with many pending events
// several share an instant and the phase and seq parts of the order are exercised too.
constexpr std::int64_t kMaxDelaySeconds = 86400;

/// One scheduled event of the hold model: its delay after the event just popped, and its body.
struct Step {
  Duration delay;
  std::uint8_t phase;  // precomputed, so the bare-queue benchmark times the heap alone
  BenchBody body;
};

// The random draws are made once, before timing, so the figures are the queue's cost and not the
// generator's; the script is replayed cyclically.
constexpr std::size_t kScriptLength = std::size_t{1} << 14;

const std::vector<Step>& hold_script() {
  static const std::vector<Step> script = [] {
    std::mt19937_64 rng{20240601};
    boost::random::uniform_int_distribution<std::int64_t> delay{1, kMaxDelaySeconds};
    boost::random::uniform_int_distribution<int> percent{0, 99};
    std::vector<Step> steps;
    steps.reserve(kScriptLength);
    for (std::uint32_t i = 0; i < kScriptLength; ++i) {
      const int kind = percent(rng);
      const Duration d = seconds(delay(rng));
      // Ends and submissions dominate a replay; scheduling passes are rarer (one per instant).
      if (kind < 45) {
        steps.push_back(Step{d, static_cast<std::uint8_t>(Finished::phase), Finished{i, 1}});
      } else if (kind < 90) {
        steps.push_back(Step{d, static_cast<std::uint8_t>(Submitted::phase), Submitted{i}});
      } else {
        steps.push_back(Step{d, static_cast<std::uint8_t>(PassDue::phase), PassDue{}});
      }
    }
    return steps;
  }();
  return script;
}

/// Calls `schedule(at, step)` for `pending` events whose times, relative to time 0, follow the
/// hold model's stationary distribution: the residual of a uniform delay on [0, D] has density
/// 2(1 - x/D)/D, drawn as D(1 - sqrt(u)). Starting there needs no warm-up pops before timing.
template <class Schedule>
void fill_stationary(std::size_t pending, Schedule schedule) {
  const std::vector<Step>& script = hold_script();
  std::mt19937_64 rng{20240602};
  boost::random::uniform_01<double> unit;
  for (std::size_t i = 0; i < pending; ++i) {
    const double residual = static_cast<double>(kMaxDelaySeconds) * (1.0 - std::sqrt(unit(rng)));
    schedule(SimTime{seconds(static_cast<std::int64_t>(residual))}, script[i % kScriptLength]);
  }
}

void BM_EventQueueHold(benchmark::State& state) {
  const auto pending = static_cast<std::size_t>(state.range(0));
  const std::vector<Step>& script = hold_script();
  EventQueue<BenchBody> queue;
  std::uint64_t seq = 0;
  fill_stationary(pending, [&](SimTime at, const Step& step) { queue.push({at, step.phase, seq++, step.body}); });
  std::size_t next = 0;
  for (auto _ : state) {
    const auto event = queue.pop();
    const Step& step = script[next++ % kScriptLength];
    queue.push({event.at + step.delay, step.phase, seq++, step.body});
  }
  benchmark::DoNotOptimize(queue.top());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EventQueueHold)->ArgName("pending")->Arg(1000)->Arg(100000)->Arg(1000000);

void BM_EngineHold(benchmark::State& state) {
  const auto pending = static_cast<std::size_t>(state.range(0));
  const std::vector<Step>& script = hold_script();
  Engine<BenchBody> engine;
  fill_stationary(pending, [&](SimTime at, const Step& step) { engine.schedule(at, step.body); });
  std::size_t next = 0;
  for (auto _ : state) {
    const auto event = engine.next();
    benchmark::DoNotOptimize(event);
    const Step& step = script[next++ % kScriptLength];
    engine.schedule(engine.now() + step.delay, step.body);
  }
  // The fingerprint is the engine's only output: reading it keeps the folding from being dropped.
  benchmark::DoNotOptimize(engine.fingerprint().value());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EngineHold)->ArgName("pending")->Arg(1000)->Arg(100000)->Arg(1000000);

}  // namespace
