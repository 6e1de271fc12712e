#include <catch2/catch.hpp>

#include "policies/catalog.hpp"
#include "tests/support.hpp"

using namespace acmesim;

namespace {
std::unique_ptr<Placement> placement(const std::string& name) {
  return builtin_catalog().placements.make(PolicyArgs::named("placement", name));
}
Allocation one(std::uint32_t node, int gpus, int cpus = 0) {
  return Allocation{Slice{NodeId{node}, static_cast<std::uint16_t>(gpus), static_cast<std::uint16_t>(cpus), 0}};
}
std::vector<std::uint32_t> nodes_of(const Allocation& a) {
  std::vector<std::uint32_t> out;
  for (const Slice& s : a) out.push_back(s.node.value());
  return out;
}
}  // namespace

TEST_CASE("pack puts a small job on the fullest node that fits, lowest id among equals") {
  Cluster c{ClusterSpec{4, 8, 0, 0, 0}};
  c.take(one(0, 2));  // 6 idle
  c.take(one(2, 5));  // 3 idle
  c.take(one(3, 5));  // 3 idle
  const auto where = placement("pack")->place(c, Demand{1, 3, 0, 0});
  REQUIRE(where);
  CHECK(nodes_of(*where) == std::vector<std::uint32_t>{2});
  const auto bigger = placement("pack")->place(c, Demand{1, 4, 0, 0});
  REQUIRE(bigger);
  CHECK(nodes_of(*bigger) == std::vector<std::uint32_t>{0});
}

TEST_CASE("spread puts a small job on the emptiest node") {
  Cluster c{ClusterSpec{3, 8, 0, 0, 0}};
  c.take(one(0, 2));
  const auto where = placement("spread")->place(c, Demand{1, 1, 0, 0});
  REQUIRE(where);
  CHECK(nodes_of(*where) == std::vector<std::uint32_t>{1});
}

TEST_CASE("a multi-node job gets exactly the nodes it asked for, each with its share") {
  Cluster c{ClusterSpec{4, 8, 128, 0, 0}};
  c.take(one(1, 1, 16));
  for (const std::string name : {"pack", "spread"}) {
    const auto where = placement(name)->place(c, Demand{2, 16, 256, 0});
    REQUIRE(where);
    CHECK(nodes_of(*where) == std::vector<std::uint32_t>{0, 2});
    for (const Slice& s : *where) {
      CHECK(s.gpus == 8);
      CHECK(s.cpus == 128);
    }
  }
}

TEST_CASE("a gang job does not fit when fewer nodes than it asked for have room, even if GPUs add up") {
  Cluster c{ClusterSpec{3, 8, 0, 0, 0}};
  c.take(one(0, 4));
  c.take(one(1, 4));
  c.take(one(2, 4));  // 12 idle GPUs in total, but no node has 8
  CHECK_FALSE(placement("pack")->place(c, Demand{1, 8, 0, 0}));
  CHECK_FALSE(placement("spread")->place(c, Demand{2, 16, 0, 0}));
}

TEST_CASE("a node short of CPUs is passed over even when its GPUs fit") {
  Cluster c{ClusterSpec{2, 8, 128, 0, 0}};
  c.take(Allocation{Slice{NodeId{0}, 0, 120, 0}});
  const auto where = placement("pack")->place(c, Demand{1, 8, 128, 0});
  REQUIRE(where);
  CHECK(nodes_of(*where) == std::vector<std::uint32_t>{1});
}

TEST_CASE("CPU-only jobs prefer CPU-only nodes and take CPU cores only") {
  Cluster c{ClusterSpec{2, 8, 128, 0, 1}};
  const auto where = placement("pack")->place(c, Demand{1, 0, 32, 0});
  REQUIRE(where);
  REQUIRE(where->size() == 1);
  CHECK(where->front().node == NodeId{2});
  CHECK(where->front().gpus == 0);
  CHECK(where->front().cpus == 32);
}

TEST_CASE("CPU-only jobs go by idle CPUs: pack to the fullest node that fits, spread to the emptiest, ties by id") {
  // Two GPU nodes and four CPU-only nodes (ids 2-5) of 64 CPUs.
  Cluster c{ClusterSpec{2, 8, 64, 0, 4}};
  c.take(one(2, 0, 40));  // 24 idle
  c.take(one(3, 0, 50));  // 14 idle: too few for 16
  c.take(one(4, 0, 40));  // 24 idle
  // 5: 64 idle
  const Demand sixteen{1, 0, 16, 0};
  CHECK(nodes_of(*placement("pack")->place(c, sixteen)) == std::vector<std::uint32_t>{2});
  CHECK(nodes_of(*placement("spread")->place(c, sixteen)) == std::vector<std::uint32_t>{5});
  // Two nodes: pack takes both 24-idle nodes, lowest id first; spread the emptiest, then the
  // higher id of the two with 24 idle.
  const Demand two_nodes{2, 0, 32, 0};
  CHECK(nodes_of(*placement("pack")->place(c, two_nodes)) == std::vector<std::uint32_t>{2, 4});
  CHECK(nodes_of(*placement("spread")->place(c, two_nodes)) == std::vector<std::uint32_t>{5, 4});
  // More nodes than the CPU-only ones with room: the GPU nodes come after them.
  const Demand four_nodes{4, 0, 64, 0};
  CHECK(nodes_of(*placement("pack")->place(c, four_nodes)) == std::vector<std::uint32_t>{2, 4, 5, 0});
  CHECK_FALSE(placement("pack")->place(c, Demand{6, 0, 360, 0}));  // 60 a node: only 5, 0 and 1 have them
}

TEST_CASE("CPU-only jobs take nothing when the cluster does not model CPUs") {
  const Cluster c{ClusterSpec{2, 8, 0, 0, 0}};
  const auto where = placement("spread")->place(c, Demand{1, 0, 32, 0});
  REQUIRE(where);
  CHECK(where->empty());
}

TEST_CASE("first-fit takes the lowest-numbered nodes with room, whatever their load") {
  Cluster c{ClusterSpec{4, 8, 0, 0, 0}};
  c.take(one(0, 7));  // 1 idle
  c.take(one(2, 2));  // 6 idle
  const auto small = placement("first-fit")->place(c, Demand{1, 1, 0, 0});
  REQUIRE(small);
  CHECK(nodes_of(*small) == std::vector<std::uint32_t>{0});
  const auto mid = placement("first-fit")->place(c, Demand{1, 4, 0, 0});
  REQUIRE(mid);
  CHECK(nodes_of(*mid) == std::vector<std::uint32_t>{1});  // pack would choose node 2
  const auto two = placement("first-fit")->place(c, Demand{2, 8, 0, 0});
  REQUIRE(two);
  CHECK(nodes_of(*two) == std::vector<std::uint32_t>{1, 2});
}

TEST_CASE("topology keeps a multi-node job under one leaf switch, in the tightest group that holds it") {
  // Groups of 4 nodes: {0-3}, {4-7}, {8-11}. Group 0 has 3 idle nodes, group 1 has 2, group 2 has 4.
  Cluster c{ClusterSpec{12, 8, 0, 0, 0, 4}};
  c.take(one(0, 8));
  c.take(one(4, 8));
  c.take(one(5, 8));
  const auto two = placement("topology")->place(c, Demand{2, 16, 0, 0});
  REQUIRE(two);
  CHECK(nodes_of(*two) == std::vector<std::uint32_t>{6, 7});  // pack would take 1 and 2
  const auto four = placement("topology")->place(c, Demand{4, 32, 0, 0});
  REQUIRE(four);
  CHECK(nodes_of(*four) == std::vector<std::uint32_t>{8, 9, 10, 11});
}

TEST_CASE("topology spans as few leaf switches as it can when no group holds the job") {
  Cluster c{ClusterSpec{8, 8, 0, 0, 0, 4}};
  c.take(one(0, 8));  // group 0: 3 idle; group 1: 4 idle
  c.take(one(1, 8));  // group 0: 2 idle
  const auto five = placement("topology")->place(c, Demand{5, 40, 0, 0});
  REQUIRE(five);
  CHECK(nodes_of(*five) == std::vector<std::uint32_t>{4, 5, 6, 7, 2});
}

TEST_CASE("the simulation records how many leaf-switch groups each job spanned") {
  // Groups of 2 nodes. j0 takes node 0; j1 (2 nodes) then spans groups under pack (nodes 1, 2)
  // but not under topology (nodes 2, 3).
  const auto jobs = acmesim::testing::make_jobs({{0, 8, 100}, {1, 16, 10}});
  const ClusterSpec cluster{4, 8, 0, 0, 0, 2};
  CHECK(acmesim::testing::run_policies(cluster, jobs, "fifo", "pack").jobs[1].switch_groups == 2);
  CHECK(acmesim::testing::run_policies(cluster, jobs, "fifo", "topology").jobs[1].switch_groups == 1);
  CHECK(acmesim::testing::run_policies(cluster, jobs, "fifo", "topology").jobs[0].switch_groups == 1);
}
