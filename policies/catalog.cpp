// The index of every policy acmesim ships: adding one is a new file plus one line here.
#include "policies/catalog.hpp"

#include "policies/factories.hpp"

namespace acmesim {

Catalog builtin_catalog() {
  using namespace policies;
  Catalog c;
  c.schedulers.add("fifo", "First come, first served; the head job blocks the queue.", make_fifo);
  c.schedulers.add("replay", "Start each job at its recorded start_time; report where the trace does not fit.",
                   make_replay);

  c.placements.add("pack", "Fullest node that fits (best fit); multi-node jobs land on whole idle nodes.", make_pack);
  c.placements.add("spread", "Emptiest node that fits (worst fit); spreads load across nodes.", make_spread);

  c.evaluations.add("coupled", "One trial per dataset; each loads the model remotely and computes metrics on its GPU.",
                    make_coupled);
  c.evaluations.add("decoupled",
                    "Acme's trial coordinator: staged model, CPU metrics, prior-based elastic trials (each switchable).",
                    make_decoupled);
  return c;
}

}  // namespace acmesim
