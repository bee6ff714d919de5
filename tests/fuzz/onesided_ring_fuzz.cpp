// Fuzzes the schedule of allreduce "onesided_ring" (plans/onesided_ring_plan.hpp). For P <= 64 and
// up to 2,000 elements (unless segments much smaller than an element make the streams long) it runs
// the whole ring on sets of contributing ranks with the algorithm's order of puts and takes and its
// slot rule (put s waits for the right neighbour's take of s - K, K = 1..16 slots), as
// tests/unit/onesided_ring_plan_test.cpp does, and checks that it never deadlocks, never overwrites
// a slot before it is taken, that no piece exceeds a slot, that no contribution is reduced twice,
// the allgather forwards only complete elements, and every rank ends with every element reduced
// over every rank. For P up to 4,096 and vectors up to 2^50 bytes it checks the arithmetic and two
// neighbours' streams: m = segments_per_chunk() is the fewest segments of segment_bytes (0: 1) that
// cover the largest chunk, slot_elements() * m covers it and no piece is larger than a slot, nor
// larger than segment_bytes rounded up to whole elements; the stream r puts to r + 1 is the one
// r + 1 takes from r; piece s of the send stream past the first_step_pieces() of step 0 is piece
// s - first of the receive stream one step later; each step's pieces tile the step's chunk, in
// order, the chunks as plans/ring_plan.hpp; the reduce-scatter steps send every chunk but the
// rank's own, the allgather steps every chunk but its right neighbour's; no streams for P < 2 or an
// empty vector.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "plans/onesided_ring_plan.hpp"
#include "plans/ring_plan.hpp"
#include "support/onesided_ring_exec.hpp"

namespace plan = ragged::plans::onesided_ring;
namespace ring = ragged::plans::ring;

namespace {

bool same(const plan::Piece& a, const plan::Piece& b) {
  return a.step == b.step && a.chunk == b.chunk && a.offset == b.offset && a.count == b.count;
}

void check_arithmetic(std::size_t count, int p, std::size_t esize, std::size_t seg, std::size_t m) {
  const std::size_t largest = ring::segment_size(count, p, 0);
  const unsigned __int128 bytes = static_cast<unsigned __int128>(largest) * esize;
  const unsigned __int128 unit = seg == 0 ? 1 : seg;
  FUZZ_REQUIRE(m >= 1, "at least one segment");
  FUZZ_REQUIRE(m * unit >= bytes, "the segments cover the largest chunk");
  if (m > 1) FUZZ_REQUIRE((m - 1) * unit < bytes, "the fewest segments that do");
  const std::size_t slot = plan::slot_elements(count, p, m);
  FUZZ_REQUIRE(static_cast<unsigned __int128>(slot) * m >= largest, "m slots hold the largest chunk");
  if (slot > 0) FUZZ_REQUIRE(static_cast<unsigned __int128>(slot - 1) * m < largest, "and no more than needed");
  const unsigned __int128 per = (unit + esize - 1) / esize;  // segment_bytes in whole elements
  FUZZ_REQUIRE(slot <= per || largest == 0, "a slot is at most segment_bytes in whole elements");
}

/// The streams of rank r and of its right neighbour: both ends agree, puts follow their data,
/// each step tiles its chunk.
void check_streams(std::size_t count, int p, int r, std::size_t m) {
  const std::vector<plan::Piece> sends = plan::send_stream(count, p, r, m);
  const std::vector<plan::Piece> recvs = plan::recv_stream(count, p, r, m);
  if (p < 2 || count == 0) {
    FUZZ_REQUIRE(sends.empty() && recvs.empty(), "no streams for one rank or an empty vector");
    return;
  }
  const std::vector<plan::Piece> theirs = plan::recv_stream(count, p, ring::right(r, p), m);
  FUZZ_REQUIRE(sends.size() == theirs.size(), "the right neighbour takes as many pieces as r puts");
  for (std::size_t s = 0; s < sends.size(); ++s) FUZZ_REQUIRE(same(sends[s], theirs[s]), "both ends of a link agree");
  const std::size_t first = plan::first_step_pieces(sends);
  std::size_t last = 0;  // pieces of the last step taken: the only ones not put on
  while (last < recvs.size() && recvs[recvs.size() - 1 - last].step == 2 * p - 3) ++last;
  FUZZ_REQUIRE(sends.size() - first == recvs.size() - last, "every piece taken before the last step is put on");
  for (std::size_t s = first; s < sends.size(); ++s) {
    FUZZ_REQUIRE(s - first < recvs.size(), "put s depends on a receive");
    const plan::Piece& a = sends[s];
    const plan::Piece& b = recvs[s - first];
    FUZZ_REQUIRE(a.chunk == b.chunk && a.offset == b.offset && a.count == b.count && a.step == b.step + 1,
                 "put s forwards receive s - first one step later");
  }
  const std::size_t slot = plan::slot_elements(count, p, m);
  for (const std::vector<plan::Piece>* stream : {&sends, &recvs}) {
    const bool sending = stream == &sends;
    std::size_t i = 0;
    std::vector<char> chunk_seen(2 * static_cast<std::size_t>(p), 0);  // [phase * P + chunk]
    for (int step = 0; step < 2 * (p - 1); ++step) {
      const int chunk = sending ? plan::send_chunk(r, p, step) : plan::recv_chunk(r, p, step);
      FUZZ_REQUIRE(chunk >= 0 && chunk < p, "chunks in range");
      const bool reduces = step < p - 1;
      char& seen = chunk_seen[static_cast<std::size_t>(reduces ? 0 : p) + static_cast<std::size_t>(chunk)];
      FUZZ_REQUIRE(seen == 0, "a chunk once a phase");
      seen = 1;
      if (sending) {
        FUZZ_REQUIRE(chunk != (reduces ? r : ring::right(r, p)),
                     "never the own chunk in the reduce-scatter nor the right neighbour's in the allgather");
      }
      std::size_t next = ring::segment_offset(count, p, chunk);
      for (; i < stream->size() && (*stream)[i].step == step; ++i) {
        const plan::Piece& piece = (*stream)[i];
        FUZZ_REQUIRE(piece.chunk == chunk && piece.offset == next, "the pieces tile the chunk, in order");
        FUZZ_REQUIRE(piece.count > 0 && piece.count <= slot, "pieces are non-empty and fit a slot");
        FUZZ_REQUIRE(piece.reduces(p) == reduces, "reduce-scatter steps reduce, allgather steps copy");
        next += piece.count;
      }
      FUZZ_REQUIRE(next == ring::segment_offset(count, p, chunk + 1), "the step's pieces end with its chunk");
    }
    FUZZ_REQUIRE(i == stream->size(), "the steps in order, 0..2P-3");
  }
}

/// Runs the ring on masks (tests/support/onesided_ring_exec.hpp, as the unit test does).
void execute(std::size_t count, int p, std::size_t m, std::size_t slots) {
  const std::string error = ragged::test::execute_onesided_ring(count, p, m, slots);
  FUZZ_REQUIRE(error.empty(), error.c_str());
}

std::size_t segment_bytes(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      return in.ConsumeIntegralInRange<std::size_t>(0, 64);
    case 1:
      return in.ConsumeIntegralInRange<std::size_t>(0, 1 << 20);
    case 2:
      return std::size_t{64} << 10;  // the default
    default:
      return in.ConsumeIntegral<std::size_t>();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const std::size_t esize = in.ConsumeBool() ? std::size_t{1} << in.ConsumeIntegralInRange<int>(0, 4)
                                             : in.ConsumeIntegralInRange<std::size_t>(1, 64);
  if (in.ConsumeBool()) {
    const int p = in.ConsumeIntegralInRange<int>(1, 64);
    const std::size_t count = in.ConsumeIntegralInRange<std::size_t>(0, 2000);
    const std::size_t seg = segment_bytes(in);
    const std::size_t slots = in.ConsumeIntegralInRange<std::size_t>(1, 16);
    const std::size_t m = plan::segments_per_chunk(count, p, esize, seg);
    check_arithmetic(count, p, esize, seg, m);
    // A segment smaller than an element leaves most of the m segments empty, and the streams
    // walk all of them: run the ring only where that stays cheap (4 P^2 m visits).
    if (static_cast<unsigned __int128>(m) * 4 * static_cast<unsigned>(p * p) <= (1U << 20)) {
      check_streams(count, p, in.ConsumeIntegralInRange<int>(0, p - 1), m);
      execute(count, p, m, slots);
    }
    return 0;
  }
  const int p = in.ConsumeIntegralInRange<int>(1, 4096);
  const std::size_t count = in.ConsumeIntegralInRange<std::size_t>(0, (std::size_t{1} << 50) / esize);
  const std::size_t seg = segment_bytes(in);
  const std::size_t m = plan::segments_per_chunk(count, p, esize, seg);
  check_arithmetic(count, p, esize, seg, m);
  // Streams of 2(P-1) m pieces: only where that stays small.
  if (static_cast<unsigned __int128>(m) * 2 * static_cast<unsigned>(p) <= (1U << 16)) {
    check_streams(count, p, in.ConsumeIntegralInRange<int>(0, p - 1), m);
  }
  return 0;
}
