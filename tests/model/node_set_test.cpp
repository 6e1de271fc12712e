#include "sim/model/node_set.hpp"

#include <catch2/catch.hpp>
#include <random>
#include <set>

using namespace acmesim;

TEST_CASE("a node set walks its ids in increasing order and finds the next and previous id of any id") {
  // 9,000 ids span three summary words, so walks cross summary words as well as set words.
  const std::uint32_t capacity = 9000;
  NodeSet set(capacity);
  std::set<std::uint32_t> model;
  std::mt19937 rng{7};
  std::uniform_int_distribution<std::uint32_t> any_id{0, capacity - 1};
  for (int round = 0; round < 4; ++round) {
    // Sparse rounds leave long empty stretches; dense ones fill whole words.
    const int changes = round % 2 == 0 ? 40 : 6000;
    for (int i = 0; i < changes; ++i) {
      const std::uint32_t id = any_id(rng);
      if (model.count(id) != 0) {
        set.erase(NodeId{id});
        model.erase(id);
      } else {
        set.insert(NodeId{id});
        model.insert(id);
      }
    }
    REQUIRE(set.size() == model.size());
    std::vector<NodeId> expected;
    for (std::uint32_t id : model) expected.push_back(NodeId{id});
    REQUIRE(set.ids() == expected);
    for (int probe = 0; probe < 2000; ++probe) {
      const std::uint32_t from = any_id(rng);
      const auto after = model.lower_bound(from);
      CHECK(set.next(from) == (after == model.end() ? NodeSet::end_id() : *after));
      const auto upto = model.upper_bound(from);
      CHECK(set.previous(from) == (upto == model.begin() ? NodeSet::end_id() : *std::prev(upto)));
      CHECK(set.contains(NodeId{from}) == (model.count(from) != 0));
    }
  }
}

TEST_CASE("an empty node set and ids past its end have no next or previous id") {
  NodeSet set(100);
  CHECK(set.empty());
  CHECK(set.begin() == set.end());
  CHECK(set.next(0) == NodeSet::end_id());
  CHECK(set.previous(99) == NodeSet::end_id());
  set.insert(NodeId{99});
  set.insert(NodeId{0});
  CHECK(set.next(100) == NodeSet::end_id());
  CHECK(set.previous(NodeSet::end_id() - 1) == 99);
  CHECK(set.previous(98) == 0);
  CHECK(set.ids() == std::vector<NodeId>{NodeId{0}, NodeId{99}});
}
