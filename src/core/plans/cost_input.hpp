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
  /// (allreduce, bcast, reduce) or of all blocks (allgatherv, reduce_scatter_block); 0 for gatherv,
  /// scatterv, alltoallv, whose sizes ranks do not share.
  double bytes = 0;
  /// allgatherv and reduce_scatter: the bytes of the largest block (0 for the other collectives).
  double largest = 0;
  double alpha = 0;  ///< seconds per message
  double beta = 0;   ///< seconds per byte
  double gamma = 0;  ///< seconds per byte reduced
  /// The layout (ragged/layout.hpp): the number of nodes and the most ranks on one node; 0 and 1
  /// mean one rank per node (alpha and beta are then the only link). With more than one rank per
  /// node, alpha and beta are the link between two nodes, which the ranks of a node share.
  int nodes = 0;
  int per_node = 1;
  /// The nodes hold consecutive ranks, per_node each (NodeLayout::regular()).
  bool regular_layout = true;
  /// The nodes hold consecutive ranks, at most per_node each (NodeLayout::consecutive(); implied
  /// by regular_layout): a shift's or a chain's partners leave a node as in a regular layout.
  bool consecutive_layout = true;
  double alpha_intra = 0;  ///< seconds per message inside a node (0: as alpha)
  double beta_intra = 0;   ///< seconds per byte inside a node (0: as beta)
  /// Seconds per byte of a node's memory, which every byte its ranks receive crosses, all of them
  /// sharing it (1 / NetworkModel::node_bandwidth; 0: unknown, left out).
  double beta_node = 0;
  double gap = 0;  ///< seconds between two messages one rank starts or completes (LogGP g)
  /// NetworkModel::gap_known: messages a rank posts at once overlap their latencies, gap apart
  /// (also at gap 0); unknown, the flat models of the linear algorithms charge a latency each.
  bool gap_known = false;
  /// NetworkModel::exchange_factor and eager_limit: a step whose pairs exchange messages of at
  /// least eager_limit bytes moves them at this fraction of the rate (1: no such cost).
  double exchange_factor = 1;
  double eager_limit = 0;
  /// Arrival-aware models: the worst imbalance of the snapshot (omega, seconds; 0 without one).
  double omega = 0;
  /// The latest arrival's lead over the second latest (seconds; 0 without a snapshot): Proficz
  /// 2018's models (slt, prr, prd, hierarchical_arrival) assume one process late, the others
  /// together, and only this much of omega is time the others spend together waiting for it.
  double omega_last = 0;
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
