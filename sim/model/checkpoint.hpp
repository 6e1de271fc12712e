#pragma once
/// Checkpointing arithmetic, in integer milliseconds (docs/failures.md "Checkpoint stalls").
///
/// A job needs `total` work. With a plan, a checkpoint is taken whenever its progress reaches a
/// positive multiple of `interval` that is short of `total` (none at the very end); training
/// stalls for `stall` there, and the checkpoint is durable `persist` after the stall ends. A
/// restart resumes from the last durable checkpoint, which is itself such a multiple, so the
/// checkpoint positions of a job never move. All functions are O(1).
#include "sim/core/time.hpp"

namespace acmesim {

struct CheckpointPlan {
  Duration interval{};  // 0: no checkpoints
  Duration stall{};     // training stopped per checkpoint (sync: the save; async: device-to-host copy)
  Duration persist{};   // after the stall, until the checkpoint is durable (async upload; 0 when sync)
  bool enabled() const { return interval.count() > 0; }
};

/// Wall time to progress from `from` to `to` (<= total): the work plus the stalls on the way.
Duration checkpoint_wall_time(const CheckpointPlan& plan, Duration from, Duration to, Duration total);

/// How `elapsed` wall time of an attempt that started working at progress `from` splits.
struct AttemptSplit {
  Duration work{};   // progress made
  Duration stall{};  // time stalled by checkpoints (work + stall == elapsed)
  Duration kept{};   // progress up to the last durable checkpoint of this attempt (0 if none)
};
AttemptSplit split_attempt(const CheckpointPlan& plan, Duration from, Duration total, Duration elapsed);

}  // namespace acmesim
