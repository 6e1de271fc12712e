#include "policies/scheduling/queue_tools.hpp"

#include <algorithm>
#include <boost/random/uniform_int_distribution.hpp>
#include <catch2/catch.hpp>
#include <set>
#include <utility>
#include <vector>

#include "sim/core/rng.hpp"

using namespace acmesim;
using acmesim::policies::SubmitOrderQueue;

namespace {

using Key = std::pair<SimTime, JobId>;

std::vector<Key> live_keys(SubmitOrderQueue<int>& queue) {
  std::vector<Key> keys;
  queue.walk(0, 1 << 30, [&](const SubmitOrderQueue<int>::Entry& e) {
    keys.emplace_back(e.submitted, e.job);
    return false;
  });
  return keys;
}

}  // namespace

TEST_CASE("the submit-order queue walks, erases and resumes exactly like an ordered set") {
  // Random pushes (most at the end, some requeued before it), walks that start jobs, resumed
  // walks and pops, checked against a std::set after every step: compaction must never lose,
  // reorder or revive an entry.
  Rng rng{3, "test/submit-order-queue"};
  boost::random::uniform_int_distribution<int> pick(0, 99);
  SubmitOrderQueue<int> queue;
  std::set<Key> reference;
  std::int64_t clock = 0;
  std::uint32_t next_id = 0;
  for (int step = 0; step < 4000; ++step) {
    const int what = pick(rng);
    if (what < 45) {
      const bool requeue = what < 8 && !reference.empty();
      const SimTime at =
          SimTime{seconds(requeue ? std::max<std::int64_t>(0, clock - pick(rng)) : (clock += pick(rng) % 3))};
      const JobId job{next_id++};
      const bool appended = queue.push(at, job, static_cast<int>(job.value()));
      CHECK(appended == (reference.empty() || *reference.rbegin() < Key{at, job}));
      reference.insert({at, job});
    } else if (what < 85 && !reference.empty()) {
      // A look-ahead that skips the head and starts every third job it sees.
      const int limit = 1 + pick(rng) % 20;
      int seen = 0;
      std::vector<Key> started;
      const auto walked = queue.walk(1, limit, [&](const SubmitOrderQueue<int>::Entry& e) {
        CHECK(e.info == static_cast<int>(e.job.value()));
        if (++seen % 3 != 0) return false;
        started.emplace_back(e.submitted, e.job);
        return true;
      });
      CHECK(walked.visited == std::min<int>(limit, static_cast<int>(reference.size()) - 1));
      for (const Key& k : started) reference.erase(k);
      // Resumed after the last job seen: the next live jobs in order.
      if (walked.visited > 0) {
        std::vector<Key> resumed;
        queue.walk_after(walked.submitted, walked.job, 5, [&](const SubmitOrderQueue<int>::Entry& e) {
          resumed.emplace_back(e.submitted, e.job);
          return false;
        });
        std::vector<Key> expected;
        for (auto it = reference.upper_bound({walked.submitted, walked.job});
             it != reference.end() && expected.size() < 5; ++it) {
          expected.push_back(*it);
        }
        CHECK(resumed == expected);
      }
    } else if (!reference.empty()) {
      CHECK(Key{queue.front().submitted, queue.front().job} == *reference.begin());
      queue.pop_front();
      reference.erase(reference.begin());
    }
    REQUIRE(queue.size() == reference.size());
    REQUIRE(queue.empty() == reference.empty());
    if (step % 97 == 0) REQUIRE(live_keys(queue) == std::vector<Key>(reference.begin(), reference.end()));
  }
  CHECK(live_keys(queue) == std::vector<Key>(reference.begin(), reference.end()));
}

TEST_CASE("the fit memo answers a numbered shape exactly as its frontier does after every add and clear") {
  // A few demands, numbered once; a random run of failures added, clears and questions. The kept
  // answer per number must follow every change of the frontier, including a failure that makes
  // a shape known not to fit after it was last asked about, and a clear that undoes it.
  using acmesim::policies::FitMemo;
  using acmesim::policies::ShapeNumbers;
  Rng rng{5, "test/fit-memo-numbers"};
  boost::random::uniform_int_distribution<int> pick(0, 99);
  ShapeNumbers numbers;
  std::vector<FitMemo::Shape> shapes;
  for (const Demand& d :
       {Demand{1, 1, 8, 0}, Demand{1, 2, 16, 0}, Demand{1, 4, 32, 0}, Demand{1, 8, 64, 0}, Demand{2, 16, 128, 0},
        Demand{4, 32, 256, 0}, Demand{1, 8, 16, 0}, Demand{1, 0, 8, 0}, Demand{1, 0, 64, 0}, Demand{1, 2, 16, 100}}) {
    shapes.push_back(numbers.numbered(d));
  }
  FitMemo memo;
  int answered_no_fit = 0;
  for (int step = 0; step < 3000; ++step) {
    const FitMemo::Shape& shape = shapes[static_cast<std::size_t>(pick(rng)) % shapes.size()];
    const int what = pick(rng);
    if (what < 15) {
      memo.add(shape);
    } else if (what < 18) {
      memo.clear();
    } else {
      FitMemo::Shape unnumbered = shape;
      unnumbered.number = FitMemo::kUnnumbered;
      const bool no_fit = memo.known_not_to_fit(shape);
      CHECK(no_fit == memo.known_not_to_fit(unnumbered));
      answered_no_fit += no_fit ? 1 : 0;
    }
  }
  CHECK(answered_no_fit > 100);  // the run asked both kinds of question
}

TEST_CASE("shape numbers are one per distinct demand shape, however often a shape comes back") {
  using acmesim::policies::ShapeNumbers;
  ShapeNumbers numbers;
  const auto a = numbers.numbered(Demand{1, 8, 64, 0});
  const auto b = numbers.numbered(Demand{2, 16, 128, 0});
  const auto a_again = numbers.numbered(Demand{1, 8, 64, 0});
  // Same per-node maxima, different totals: the memo compares shapes, so they share a number.
  const auto b_same_shape = numbers.numbered(Demand{2, 15, 127, 0});
  const auto c = numbers.numbered(Demand{1, 8, 64, 80});
  CHECK(a.number == a_again.number);
  CHECK(a.number != b.number);
  CHECK(b.number == b_same_shape.number);
  CHECK(c.number != a.number);
  CHECK(c.number != b.number);
}
