#include "sim/run/cluster_eval.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sim/core/error.hpp"

namespace acmesim {

ClusterEvaluation::ClusterEvaluation(ClusterEvalConfig config) : config_{std::move(config)} {
  if (config_.suite == nullptr || config_.policy == nullptr) {
    throw SimulationError("cluster evaluation needs a suite and an evaluation policy");
  }
}

std::uint64_t ClusterEvaluation::due(Due d) {
  dues_.push_back(d);
  return dues_.size() - 1;
}

void ClusterEvaluation::on_run_start(HookContext& ctx) {
  for (std::uint32_t i = 0; i < config_.pretraining.size(); ++i) {
    ctx.call_at(ctx.now() + config_.pretraining[i].start_offset, due(Due{DueKind::StartPretraining, i, 0}));
  }
}

void ClusterEvaluation::on_job_started(const JobSpec& job, HookContext& ctx) {
  const std::uint32_t id = job.id.value();
  if (id < trials_.size() && trials_[id]) {
    Request& r = requests_[trials_[id]->checkpoint];
    r.trial_start[trials_[id]->index] = ctx.now();
    if (r.started++ == 0) checkpoints_[trials_[id]->checkpoint].first_start = ctx.now();
    return;
  }
  if (job.type != JobType::Pretrain || job.demand.gpus < config_.min_pretrain_gpus) return;
  if (pretrain_.size() <= id) pretrain_.resize(id + 1);
  PretrainState& p = pretrain_[id];
  ++p.generation;
  p.running = true;
  p.ends = ctx.now() + job.runtime;
  if (ctx.now() + config_.checkpoint_interval < p.ends) {
    ctx.call_at(ctx.now() + config_.checkpoint_interval, due(Due{DueKind::Checkpoint, id, p.generation}));
  }
}

void ClusterEvaluation::on_job_ended(const JobSpec& job, HookContext&) {
  const std::uint32_t id = job.id.value();
  if (id < pretrain_.size()) pretrain_[id].running = false;
  if (id < trials_.size() && trials_[id]) {
    const std::uint32_t c = trials_[id]->checkpoint;
    checkpoints_[c].gpu_ms += job.runtime.count() * job.demand.gpus;
    if (++requests_[c].ended == requests_[c].plan.trials.size()) finish(c);
  }
}

void ClusterEvaluation::on_due(std::uint64_t token, HookContext& ctx) {
  const Due d = dues_.at(token);
  switch (d.kind) {
    case DueKind::Checkpoint: {
      PretrainState& p = pretrain_[d.ref];
      if (!p.running || p.generation != d.generation) return;  // ended or restarted since: stale
      checkpoint(JobId{d.ref}, ctx);
      if (ctx.now() + config_.checkpoint_interval < p.ends) {
        ctx.call_at(ctx.now() + config_.checkpoint_interval, due(Due{DueKind::Checkpoint, d.ref, d.generation}));
      }
      return;
    }
    case DueKind::SubmitTrials:
      submit_trials(d.ref, ctx);
      return;
    case DueKind::StartPretraining: {
      const PretrainingRun& run = config_.pretraining[d.ref];
      JobSpec spec;
      fmt::format_to(std::back_inserter(spec.trace_id), "pretrain-{}", d.ref);
      spec.type = JobType::Pretrain;
      const int nodes = std::max(1, (run.gpus + config_.gpus_per_node - 1) / config_.gpus_per_node);
      spec.demand = Demand{nodes, run.gpus, run.gpus * config_.cpus_per_gpu, 0};
      spec.runtime = run.length;
      ctx.spawn(std::move(spec));
      return;
    }
  }
}

void ClusterEvaluation::checkpoint(JobId job, HookContext& ctx) {
  const auto index = static_cast<std::uint32_t>(requests_.size());
  const EvalRequest request{config_.checkpoint_bytes, config_.suite};
  Request r;
  r.plan = config_.policy->plan(request, config_.plan_resources);
  // Each checkpoint draws its own actual runtimes (seed mixed with the checkpoint's index).
  const EvalOptions options{config_.noise_sigma, config_.seed * 1'000'003ULL + index};
  r.idle = simulate_evaluation(request, config_.plan_resources, r.plan, config_.hardware, options);
  r.trial_start.assign(r.plan.trials.size(), SimTime{});
  requests_.push_back(std::move(r));
  CheckpointRecord record;
  record.source = job;
  record.written = ctx.now();
  record.trials = static_cast<std::uint32_t>(requests_.back().plan.trials.size());
  checkpoints_.push_back(record);
  if (requests_.back().plan.stage_model) {
    // The precursor copies the checkpoint through one node's NIC, alone: trials follow.
    const std::int64_t nic = config_.hardware.storage_nic_bits_per_s / 8;
    const Duration staging{(config_.checkpoint_bytes * 1000 + nic - 1) / nic};
    ctx.call_at(ctx.now() + staging, due(Due{DueKind::SubmitTrials, index, 0}));
  } else {
    submit_trials(index, ctx);
  }
}

void ClusterEvaluation::submit_trials(std::uint32_t c, HookContext& ctx) {
  const Request& r = requests_[c];
  for (std::uint32_t t = 0; t < r.plan.trials.size(); ++t) {
    const EvalTrialRecord& idle = r.idle.trials[t];
    JobSpec spec;
    fmt::format_to(std::back_inserter(spec.trace_id), "ckpt{}-trial{}", c, t);
    spec.type = JobType::Eval;
    spec.demand = Demand{1, 1, config_.cpus_per_gpu, 0};
    spec.runtime = idle.end - idle.start;
    const JobId id = ctx.spawn(std::move(spec));
    if (trials_.size() <= id.value()) trials_.resize(id.value() + 1);
    trials_[id.value()] = Trial{c, t};
  }
}

void ClusterEvaluation::finish(std::uint32_t c) {
  const Request& r = requests_[c];
  // Dataset d is done when its metrics are: after the last of its pieces, in cluster time.
  std::vector<SimTime> last_piece(config_.suite->datasets.size(), SimTime{});
  for (const EvalPieceRecord& p : r.idle.pieces) {
    const SimTime end = r.trial_start[p.trial] + (p.inference_end - r.idle.trials[p.trial].start);
    last_piece[p.piece.dataset] = std::max(last_piece[p.piece.dataset], end);
  }
  SimTime done{};
  for (std::size_t d = 0; d < last_piece.size(); ++d) {
    const EvalMetricRecord& m = r.idle.metrics[d];
    SimTime end = last_piece[d] + (m.end - m.start);
    if (m.on_gpu) {
      // Inside the trial that ran it in the model: its offset there, never before the pieces.
      for (const EvalPieceRecord& p : r.idle.pieces) {
        if (p.piece.dataset == d && p.inference_end == m.start) {
          end = std::max(end, r.trial_start[p.trial] + (m.end - r.idle.trials[p.trial].start));
        }
      }
    }
    done = std::max(done, end);
  }
  checkpoints_[c].done = done;
  checkpoints_[c].complete = true;
}

std::int64_t ClusterEvaluation::eval_gpu_ms() const {
  std::int64_t sum = 0;
  for (const CheckpointRecord& c : checkpoints_) sum += c.gpu_ms;
  return sum;
}

}  // namespace acmesim
