// The background parts of the arrival-aware algorithms, as their lines in the algorithm list
// (src/core/algorithms/list.def) name them. The agent (monitor_agent.cpp) runs them through these
// entries and never by name.
#include "arrival/background.hpp"
#include "internal/common.hpp"

namespace ragged::internal {

const Background bdr_background_part{BackgroundKind::bdr, &bdr_background, -1, false, false};
const Background bgd_background_part{BackgroundKind::bgd, &bgd_background, -1, false, false};
// On a balanced pattern BSLS serves in the foreground and BSLB runs NEX: no background.
const Background bsls_background_part{BackgroundKind::bsls, &bsls_background, -1, true, true};
const Background bslb_background_part{BackgroundKind::bslb, &bslb_background, 0, false, true};
// SLT and PRR decide themselves whether there is anything to run: the agent's balance test uses
// tau of the whole vector, while their steps move one segment.
const Background slt_background_part{BackgroundKind::slt, &slt_background, -1, false, false};
const Background prr_background_part{BackgroundKind::prr, &prr_background, -1, false, false};
// bcast sorted_chain decides itself too (nothing comes early on a balanced pattern); its chain
// starts at the call's root, so the plan names it.
const Background sorted_chain_background_part{
    BackgroundKind::sorted_chain, &sorted_chain_background, -1, false, false, true};

int planned_epoch_tag(const ArrivalSnapshot* snapshot) {
  const std::uint64_t epoch = snapshot == nullptr ? 0 : snapshot->epoch();
  return tag_bgd_first + static_cast<int>(epoch % tag_bgd_epochs);
}

}  // namespace ragged::internal
