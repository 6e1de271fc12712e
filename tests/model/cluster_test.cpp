#include "sim/model/cluster.hpp"

#include <catch2/catch.hpp>

#include "sim/core/error.hpp"

using namespace acmesim;

namespace {
Allocation one(std::uint32_t node, int gpus, int cpus = 0, int mem = 0) {
  return Allocation{Slice{NodeId{node}, static_cast<std::uint16_t>(gpus), static_cast<std::uint16_t>(cpus),
                          static_cast<std::uint32_t>(mem)}};
}
}  // namespace

TEST_CASE("a new cluster has every GPU idle and every GPU node in the fully idle bucket") {
  const Cluster c{ClusterSpec{4, 8, 128, 1024, 2}};
  CHECK(c.node_count() == 6);
  CHECK(c.total_gpus() == 32);
  CHECK(c.allocated_gpus() == 0);
  CHECK(c.gpu_nodes_with_idle(8).size() == 4);
  CHECK(c.gpu_nodes_with_at_least(1) == 4);
  CHECK(c.nodes_with_idle_cpus(NodeKind::CpuOnly, 128).ids() == std::vector<NodeId>{NodeId{4}, NodeId{5}});
  CHECK(c.nodes_with_idle_cpus(NodeKind::Gpu, 128).size() == 4);
}

TEST_CASE("the idle index follows take and give_back") {
  Cluster c{ClusterSpec{3, 8, 128, 0, 0}};
  c.take(one(1, 3, 48));
  CHECK(c.allocated_gpus() == 3);
  CHECK(c.allocated_cpus() == 48);
  CHECK(c.gpu_nodes_with_idle(8).size() == 2);
  CHECK(c.gpu_nodes_with_idle(5).ids() == std::vector<NodeId>{NodeId{1}});
  CHECK(c.nodes_with_idle_cpus(NodeKind::Gpu, 80).ids() == std::vector<NodeId>{NodeId{1}});
  CHECK(c.gpu_nodes_with_at_least(6) == 2);
  c.give_back(one(1, 3, 48));
  CHECK(c.allocated_gpus() == 0);
  CHECK(c.gpu_nodes_with_idle(8).size() == 3);
  CHECK(c.gpu_nodes_with_idle(5).empty());
}

TEST_CASE("taking more GPUs than a node has idle is an error and changes nothing") {
  Cluster c{ClusterSpec{2, 8, 0, 0, 0}};
  c.take(one(0, 6));
  CHECK_THROWS_AS(c.take(one(0, 3)), SimulationError);
  CHECK(c.allocated_gpus() == 6);
  CHECK(c.node(NodeId{0}).idle_gpus == 2);
}

TEST_CASE("giving back more than was taken is an error") {
  Cluster c{ClusterSpec{2, 8, 128, 0, 0}};
  CHECK_THROWS_AS(c.give_back(one(0, 1, 0)), SimulationError);
  CHECK_THROWS_AS(c.give_back(one(0, 0, 1)), SimulationError);
}

TEST_CASE("CPUs and memory are enforced only when the cluster models them") {
  Cluster modelled{ClusterSpec{1, 8, 16, 100, 0}};
  CHECK_FALSE(modelled.has_room(NodeId{0}, 1, 17, 0));
  CHECK_FALSE(modelled.has_room(NodeId{0}, 1, 1, 101));
  Cluster unmodelled{ClusterSpec{1, 8, 0, 0, 0}};
  CHECK(unmodelled.has_room(NodeId{0}, 8, 500, 5000));
}

TEST_CASE("a down node is in no index and has no room; it comes back as it was") {
  Cluster c{ClusterSpec{2, 8, 0, 0, 0}};
  c.take(one(1, 2));
  c.set_up(NodeId{1}, false);
  CHECK_FALSE(c.has_room(NodeId{1}, 1, 0, 0));
  CHECK(c.gpu_nodes_with_at_least(1) == 1);
  c.set_up(NodeId{1}, true);
  CHECK(c.gpu_nodes_with_idle(6).ids() == std::vector<NodeId>{NodeId{1}});
}

TEST_CASE("the idle GPUs a scheduler can use leave out those of down nodes, also across take and give_back") {
  Cluster c{ClusterSpec{3, 8, 0, 0, 0}};
  CHECK(c.idle_gpus() == 24);
  c.take(one(1, 2));
  CHECK(c.idle_gpus() == 22);
  c.set_up(NodeId{1}, false);
  CHECK(c.idle_gpus() == 16);  // node 1's 6 idle GPUs are gone with it
  c.give_back(one(1, 2));      // its job is killed while it is down
  CHECK(c.idle_gpus() == 16);
  CHECK(c.allocated_gpus() == 0);
  c.set_up(NodeId{1}, true);
  CHECK(c.idle_gpus() == 24);
}

TEST_CASE("a demand that cannot fit even an empty cluster is explained") {
  const Cluster c{ClusterSpec{4, 8, 128, 1000, 0}};
  CHECK(c.never_fits(Demand{5, 40, 0, 0}) == "it asks for 5 GPU nodes; the cluster has 4");
  CHECK(c.never_fits(Demand{1, 16, 0, 0}) == "it asks for 16 GPUs on one node (16 GPUs on 1 nodes); a node has 8");
  CHECK(c.never_fits(Demand{2, 16, 512, 0}) ==
        "it asks for 256 CPUs on one node (512 CPUs on 2 nodes); a node has 128");
  CHECK(c.never_fits(Demand{1, 8, 8, 1900}) == "it asks for 1900 GiB of memory per node; a node has 1000");
  CHECK_FALSE(c.never_fits(Demand{4, 32, 512, 1000}).has_value());
  CHECK_FALSE(c.never_fits(Demand{1, 0, 64, 0}).has_value());
}
