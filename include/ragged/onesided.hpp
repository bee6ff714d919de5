// ragged: tuning of the one-sided collectives (Iakymchuk et al. 2021, §IV), passed per call as a hint:
//
//   CollectiveOptions options;
//   options.algorithm = "onesided_ring";
//   options.hints.set(std::make_shared<OneSidedTuning>(OneSidedTuning{.segment_bytes = 1 << 20}));
//
// Every rank of a call must pass the same tuning (as it passes the same count).
#pragma once

#include <cstddef>

namespace ragged {

/// Tuning of allreduce "onesided_ring" (docs/algorithms/allreduce-onesided-ring.md).
struct OneSidedTuning {
  /// The default segment, measured on skylake-fdr-32 (docs/algorithms/allreduce-onesided-ring.md).
  static constexpr std::size_t default_segment_bytes = std::size_t{64} << 10;
  static constexpr int default_slots = 4;

  /// Each 1/P chunk of the vector is cut into segments of at most this many bytes (0: 1 byte),
  /// each a put of its own into one of the right neighbour's receive slots.
  std::size_t segment_bytes = default_segment_bytes;
  /// Receive slots per rank (at least 1): how many segments may be in flight on a link.
  int slots = default_slots;
};

}  // namespace ragged
