// The distributed construction of Träff's tree (Träff 2018, lemma 3) over a call's Context, shared
// by gatherv_traff and scatterv_traff: plans::traff::Builder driven level by level
// with real messages (a sendrecv between fixed roots, a notice to a gather root).
#pragma once

#include <cstdint>
#include <functional>

#include "plans/traff_tree.hpp"
#include "ragged/context.hpp"

namespace ragged::internal::traff_driver {

struct Hooks {
  /// Called once, as soon as this rank's node is final: when it learns its parent, or
  /// at the end for the root. Fixed-root duties may still follow, so whatever the hook
  /// starts must not block (post receives, start non-blocking sends).
  std::function<void(const plans::traff::Node&)> placed;
  /// Called for every merge child as soon as this rank learns of it.
  std::function<void(const plans::traff::Child&)> child_found;
};

/// Runs the construction for this rank, whose block holds `elements` elements; every
/// rank of the context's communicator must call it with the same params. Its messages
/// carry `tag` (one of the call's tags); every wait honours the context's timeout.
/// Returns this rank's node.
plans::traff::Node construct(const Context& ctx, std::int64_t elements, const plans::traff::Params& params, int tag,
                             const Hooks& hooks);

}  // namespace ragged::internal::traff_driver

#include <algorithm>
#include <limits>

#include "ragged/irregular.hpp"

namespace ragged::internal::traff_driver {

/// The plan's parameters for a call: the threshold in bytes becomes one in elements
/// (a subtree carrying more than T bytes carries more than floor(T / element) elements).
inline plans::traff::Params params_of(int procs, int root, const TraffOptions& options, std::size_t element) {
  plans::traff::Params params;
  params.procs = procs;
  params.root = root;
  params.cost = options.cost == TraffCost::lemma1 ? plans::traff::Cost::lemma1 : plans::traff::Cost::lemma4;
  if (options.direct_threshold_bytes) {
    const std::size_t t = *options.direct_threshold_bytes / std::max<std::size_t>(element, 1);
    params.direct_threshold =
        static_cast<std::int64_t>(std::min<std::size_t>(t, std::numeric_limits<std::int64_t>::max()));
  }
  return params;
}

}  // namespace ragged::internal::traff_driver
