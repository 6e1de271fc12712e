#pragma once
/// A set of node ids of one cluster, in id order: the buckets of the cluster's idle-resource
/// indexes (cluster.hpp). A bitset with one summary bit per 64-bit word, so that it never
/// allocates after construction and a walk skips empty stretches 4,096 ids at a time.
///
/// Cost: insert, erase, contains, size O(1); begin() and each ++ O(1) within a word, at most
/// O(ids / 4,096) summary words to the next non-empty word (a 286-node cluster has one summary
/// word, a million-node one 245); the same for the reverse walk. Memory: ids / 8 bytes plus
/// 1/64 of that, whatever the set holds.
///
/// The std::set<NodeId> these buckets were cost an erase and an insert (a node allocation and
/// a tree rebalance) for every node a job start or end touched, 15 % of a 1M-job replay.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

#include "sim/core/id.hpp"

namespace acmesim {

class NodeSet {
 public:
  NodeSet() = default;
  /// A set of ids in [0, capacity).
  explicit NodeSet(std::size_t capacity) : words_((capacity + 63) / 64), summary_((words_.size() + 63) / 64) {}

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  bool contains(NodeId id) const { return (words_[word_of(id)] >> bit_of(id)) & 1U; }

  /// Adds `id` (which must be absent).
  void insert(NodeId id) {
    const std::size_t w = word_of(id);
    if (words_[w] == 0) summary_[w / 64] |= std::uint64_t{1} << (w % 64);
    words_[w] |= std::uint64_t{1} << bit_of(id);
    ++size_;
  }
  /// Removes `id` (which must be present).
  void erase(NodeId id) {
    const std::size_t w = word_of(id);
    words_[w] &= ~(std::uint64_t{1} << bit_of(id));
    if (words_[w] == 0) summary_[w / 64] &= ~(std::uint64_t{1} << (w % 64));
    --size_;
  }

  /// The smallest id >= `from` in the set, or end_id() if none.
  std::uint32_t next(std::uint32_t from) const {
    std::size_t w = from / 64;
    if (w >= words_.size()) return end_id();
    const std::uint64_t here = words_[w] & (~std::uint64_t{0} << (from % 64));
    if (here != 0) return static_cast<std::uint32_t>(w * 64 + static_cast<std::size_t>(std::countr_zero(here)));
    // The next non-empty word, from the summary.
    ++w;
    std::size_t s = w / 64;
    if (s >= summary_.size()) return end_id();
    std::uint64_t bits = w % 64 == 0 ? summary_[s] : summary_[s] & (~std::uint64_t{0} << (w % 64));
    while (bits == 0) {
      if (++s == summary_.size()) return end_id();
      bits = summary_[s];
    }
    w = s * 64 + static_cast<std::size_t>(std::countr_zero(bits));
    return static_cast<std::uint32_t>(w * 64 + static_cast<std::size_t>(std::countr_zero(words_[w])));
  }

  /// The largest id <= `from` in the set, or end_id() if none.
  std::uint32_t previous(std::uint32_t from) const {
    if (words_.empty()) return end_id();
    std::size_t w = std::min<std::size_t>(from / 64, words_.size() - 1);
    const unsigned top = w == from / 64 ? from % 64 : 63;
    const std::uint64_t here = words_[w] & (~std::uint64_t{0} >> (63 - top));
    if (here != 0) return static_cast<std::uint32_t>(w * 64 + 63 - static_cast<std::size_t>(std::countl_zero(here)));
    if (w == 0) return end_id();
    --w;
    std::size_t s = w / 64;
    std::uint64_t bits = summary_[s] & (~std::uint64_t{0} >> (63 - w % 64));
    while (bits == 0) {
      if (s == 0) return end_id();
      bits = summary_[--s];
    }
    w = s * 64 + 63 - static_cast<std::size_t>(std::countl_zero(bits));
    return static_cast<std::uint32_t>(w * 64 + 63 - static_cast<std::size_t>(std::countl_zero(words_[w])));
  }

  /// No id: what next() and previous() return past the ends.
  static constexpr std::uint32_t end_id() { return UINT32_MAX; }

  /// Walks the set in increasing id order.
  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = NodeId;
    using difference_type = std::ptrdiff_t;
    using pointer = const NodeId*;
    using reference = NodeId;

    const_iterator() = default;
    const_iterator(const NodeSet* set, std::uint32_t id) : set_{set}, id_{id} {}
    NodeId operator*() const { return NodeId{id_}; }
    const_iterator& operator++() {
      id_ = id_ + 1 == end_id() ? end_id() : set_->next(id_ + 1);
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator before = *this;
      ++*this;
      return before;
    }
    bool operator==(const const_iterator& other) const { return id_ == other.id_; }

   private:
    const NodeSet* set_ = nullptr;
    std::uint32_t id_ = end_id();
  };

  const_iterator begin() const { return {this, next(0)}; }
  const_iterator end() const { return {this, end_id()}; }

  /// The ids in increasing order (for tests and messages).
  std::vector<NodeId> ids() const { return {begin(), end()}; }

 private:
  static std::size_t word_of(NodeId id) { return id.value() / 64; }
  static unsigned bit_of(NodeId id) { return id.value() % 64; }

  std::vector<std::uint64_t> words_;    // bit i of word w: id w * 64 + i is in the set
  std::vector<std::uint64_t> summary_;  // bit j of word s: words_[s * 64 + j] is not zero
  std::size_t size_ = 0;
};

}  // namespace acmesim
