// What an alpha-beta cost model of src/core/plans/cost_model.hpp sees of a call: values that
// every rank of the call shares. The registry stores a model as a pointer to a function of it
// (ragged::CostModel), so the type is declared in ragged/registry.hpp and defined here, with
// the models.
#pragma once

namespace ragged {

/// What an alpha-beta cost model sees. Every value is shared by all ranks of a call.
struct CostInput {
  int procs = 1;
  /// Bytes of one rank's block (allgather, gather, scatter, alltoall) or of the whole vector
  /// (allreduce, bcast, reduce); 0 for gatherv, scatterv, alltoallv, whose sizes ranks do not share.
  double bytes = 0;
  double alpha = 0;  ///< seconds per message
  double beta = 0;   ///< seconds per byte
  double gamma = 0;  ///< seconds per byte reduced
  /// Arrival-aware models: the worst imbalance of the snapshot (omega, seconds; 0 without one).
  double omega = 0;
  /// Asks the model of a bcast that streams its source (Restrictions::streams_source) for its
  /// tail: the time from the last byte's arrival at the root to the end, when its root buffer
  /// still fills while it runs (CallInfo::source_fills). Other models ignore it.
  bool source_fills = false;
  /// Every rank already holds its own 1/P of the bytes (a composed bcast with a HeldBlocks hint,
  /// allgather lnbc): a bcast that streams its source sends each rank only the rest. Other
  /// models ignore it.
  bool held_blocks = false;
};

}  // namespace ragged
