#pragma once
/// A dense index that cannot be mixed up with another kind of index [Design ids].
/// Ids index std::vectors directly: O(1) lookup, iteration in id order, no hashing.
#include <compare>
#include <cstdint>
#include <functional>

namespace acmesim {

template <class Tag, class Rep = std::uint32_t>
class Id {
 public:
  using rep = Rep;
  constexpr explicit Id(Rep value) : value_{value} {}
  constexpr Rep value() const { return value_; }
  friend constexpr auto operator<=>(const Id&, const Id&) = default;

 private:
  Rep value_;
};

using JobId = Id<struct JobTag>;
using NodeId = Id<struct NodeTag>;
using UserId = Id<struct UserTag>;

}  // namespace acmesim
