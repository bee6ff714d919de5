// The background parts of the arrival-aware algorithms, as their lines in the algorithm list
// (src/core/algorithms/list.def) name them. The agent (monitor.cpp) runs them through these
// entries and never by name.
#include "arrival/background.hpp"

namespace ragged::internal {

const Background bdr_background_part{BackgroundKind::bdr, &bdr_background, -1, false, false};
const Background bgd_background_part{BackgroundKind::bgd, &bgd_background, -1, false, false};
// On a balanced pattern BSLS serves in the foreground and BSLB runs NEX: no background.
const Background bsls_background_part{BackgroundKind::bsls, &bsls_background, -1, true, true};
const Background bslb_background_part{BackgroundKind::bsls, &bsls_background, 0, true, true};

}  // namespace ragged::internal
