#include "sim/model/eval/suite.hpp"

namespace acmesim {

std::string_view name(PromptTemplate t) {
  switch (t) {
    case PromptTemplate::Gen:
      return "gen";
    case PromptTemplate::Clp:
      return "clp";
    case PromptTemplate::Ppl:
      return "ppl";
  }
  return "?";
}

Duration EvalRequest::inference_of(const EvalDataset& d) const {
  // Integer arithmetic: ms * bytes stays below 2^63 for any checkpoint under ~1 PB and
  // datasets under ~100 days of GPU time.
  const std::int64_t ref = suite->reference_checkpoint_bytes;
  return Duration{(d.inference.count() * (checkpoint_bytes / 1000) + ref / 2000) / (ref / 1000)};
}

}  // namespace acmesim
