// Internals of libragged_pmpi.so (docs/pmpi.md): what the MPI_ entry points of
// collectives.cpp and collectives_v.cpp share. The library defines MPI_Allgather & co.,
// decides per call whether ragged or the MPI library runs it, and keeps ragged's Comm on each
// communicator as an attribute. Nothing here is visible outside the library.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <vector>

#include "ragged/collectives.hpp"
#include "ragged/comm.hpp"
#include "ragged/datatype.hpp"
#include "ragged/error.hpp"
#include "ragged/registry.hpp"
#include "ragged/selection.hpp"
#include "report.hpp"

#define RAGGED_PMPI_EXPORT __attribute__((visibility("default")))

namespace ragged::pmpi {

// ------------------------------------------------------------------------ process state

/// Once per process, after MPI is initialized: registers the "native" algorithms, checks that
/// MPI_Pack writes raw bytes, creates the keyval. Idempotent and thread-safe.
void ensure_initialized();

/// Called by MPI_Init and MPI_Init_thread after PMPI_Init_thread: says once (world rank 0)
/// when MPI did not grant MPI_THREAD_MULTIPLE.
void after_init(int provided);

/// Called by MPI_Finalize before PMPI_Finalize: frees every communicator's state and the keyval.
void before_finalize();

/// Called by before_finalize: stops the PAT monitor if the program did not (PAT_Finalize) and
/// frees its communicator (pat.cpp).
void pat_before_finalize();

/// Whether MPI_Init and MPI_Init_thread ask MPI for MPI_THREAD_MULTIPLE (yes unless
/// RAGGED_PMPI_THREAD_MULTIPLE=0).
[[nodiscard]] bool raise_thread_level();

/// True when MPI_Pack/MPI_Unpack of a derived datatype give the raw bytes of its type map
/// (every homogeneous Open MPI and MPICH); otherwise derived datatypes go to the MPI library.
[[nodiscard]] bool pack_is_raw();

/// Rank in MPI_COMM_WORLD (for "said once" messages), or -1 before MPI_Init.
[[nodiscard]] int world_rank();

/// RAGGED_TIMEOUT (seconds, read once per process; unset: none): the longest a collective that
/// ragged runs may wait. Past it the call raises MPI_ERR_OTHER through the communicator's error
/// handler, naming what it waited for (a receive from rank r). Not a number of seconds in
/// (0, 86400]: said once, and no timeout.
[[nodiscard]] Timeout call_timeout();

/// Called by MPI_Init and MPI_Init_thread after after_init(), and by
/// ragged_pmpi_reread_environment(): takes the settings snapshot that selection reads until the
/// next reread (what setenv changes later has no effect before it), and the ranks of
/// MPI_COMM_WORLD compare a digest of it and of the rules file (one allgather of 8 bytes, bounded
/// by RAGGED_TIMEOUT). If any rank's differs, every rank says so and every collective runs
/// natively until a reread finds them alike: ranks that select different algorithms for one call
/// would hang. (A Fortran program's MPI_INIT comes here too: fortran.cpp.)
void agree_on_settings(const char* caller = "MPI_Init");
/// Whether agree_on_settings() found ranks whose settings differ.
[[nodiscard]] bool settings_differ();

/// Prints `text` on stderr once per process and key, on every rank, "[rank N]"-prefixed.
void say_once(const std::string& key, const std::string& text);

// ------------------------------------------------------------------------ per communicator

namespace prediction {
struct State;
}

/// What the library keeps on a communicator (an attribute of its keyval, freed by the
/// keyval's delete callback when the program frees the communicator, or at MPI_Finalize).
struct CommAttribute {
  MPI_Comm user = MPI_COMM_NULL;
  bool inter = false;          ///< an intercommunicator: every collective runs natively
  std::unique_ptr<Comm> comm;  ///< ragged's Comm on a private copy (null for an intercommunicator)
  /// Staging buffers for packed datatypes, reused from call to call (kept, as dispatch's
  /// workspace is, until the communicator is freed).
  std::vector<std::byte> scratch[2];
  /// Arrival awareness (site_prediction.cpp): the call sites of `auto` allgathers and allreduces, their
  /// monitors and entry history. Made at the first such call; destroyed first (its monitors'
  /// shutdown is collective over their own communicators, as freeing the communicator is).
  std::shared_ptr<prediction::State> prediction;
};

/// The state of `comm`, made at the first collective that ragged runs on it (collective over
/// `comm`: every rank makes it in the same call). Throws ragged::Error.
[[nodiscard]] CommAttribute& state_of(MPI_Comm comm);

/// The state of `comm` if it has one (nothing is made); null otherwise or after MPI_Finalize began.
[[nodiscard]] CommAttribute* find_state(MPI_Comm comm);

/// Number of CommAttributes alive (ragged_pmpi_live_comms()).
[[nodiscard]] long live_states();

// ------------------------------------------------------------------------ routing

/// Where a call goes before its arguments are looked at.
enum class Route {
  native,  ///< RAGGED_<COLLECTIVE>=native, or nothing set: the MPI library's function
  ragged,  ///< a name, "auto", or a rules file: ragged selects (it may still choose "native")
};

/// Reads RAGGED_<COLLECTIVE> and RAGGED_TUNING_FILE.
[[nodiscard]] Route route(Collective collective);

/// The last collective's outcome on this thread: the algorithm ragged ran, "native", or
/// "native (<reason>)" when the library gave the call to MPI for a reason.
void note_last(const char* what);
void note_last(const std::string& what);
[[nodiscard]] const char* last();

/// One call that ragged may run: the communicator's state and what selection needs.
class Call {
 public:
  Call(Collective collective, CommAttribute& state) : collective_(collective), state_(state) {
    options_.timeout = call_timeout();
  }

  /// The Comm that ragged runs the call on: the communicator's, or the private one of the call
  /// site's arrival monitor when the call carries its snapshot (the agent's background part and
  /// the algorithm must talk on the same communicator).
  [[nodiscard]] Comm& comm() { return site_comm_ != nullptr ? *site_comm_ : *state_.comm; }
  [[nodiscard]] int rank() const { return state_.comm->rank(); }
  [[nodiscard]] int size() const { return state_.comm->size(); }
  [[nodiscard]] MPI_Comm handle() const;  ///< the private communicator (for MPI_Pack's errors)
  [[nodiscard]] std::vector<std::byte>& scratch(int i, std::size_t bytes);

  /// Selects as dispatch will (docs/selection.md) and returns false when that is "native",
  /// when the environment names an unknown algorithm, or when the rules file is malformed
  /// (said once): the call then goes to the MPI library. `bytes`, `commutative` and `largest` as CallInfo.
  /// When selection is `auto` for an allgather or allreduce and arrival awareness is on, the
  /// call first gets its site's arrival snapshot (site_prediction.hpp), which `auto` then reads.
  /// `element`: a reduction's element size in bytes (CallInfo::element_bytes).
  [[nodiscard]] bool selects_ragged(std::size_t bytes, bool commutative = true, std::size_t largest = 0,
                                    std::size_t element = 0);

  /// Marks the call as given to the MPI library because of `why`; returns false.
  bool fallback(const char* why);
  [[nodiscard]] const char* fallback_reason() const { return fallback_; }

  /// The options for dispatch: they carry the selection made here, which dispatch runs without
  /// choosing again.
  [[nodiscard]] const CollectiveOptions& options() const { return options_; }

  /// Records what ran.
  void ran(const Algorithm& algorithm);

 private:
  Collective collective_;
  CommAttribute& state_;
  CollectiveOptions options_{};
  Selection selection_{};
  const char* fallback_ = nullptr;
  Comm* site_comm_ = nullptr;
};

/// Runs `body(call)` for a collective routed to ragged: body returns true when ragged ran the
/// call, false (after call.fallback(why)) to give it to the MPI library. Intercommunicators and
/// MPI_COMM_NULL go to `native()` without a state. InvalidArgument (dispatch's checks) also goes
/// to `native()`, which reports the argument through the communicator's error handler as the
/// MPI library does; any other failure calls that handler with an MPI error class.
template <class Body, class Native>
int run(Collective collective, MPI_Comm comm, Body&& body, Native&& native);

/// Whether an InvalidArgument names something other than an argument of the collective that
/// dispatch checks before sending anything (root, counts, buffers, ...): e.g. "bytes", a
/// message of more than INT_MAX bytes that an algorithm tried to send.
[[nodiscard]] bool internal_argument(const std::string& argument);

/// Says what failed on stderr, calls `comm`'s error handler with `error_class` and returns it.
int raise_error(MPI_Comm comm, const char* what, const char* function, int error_class);
/// The error class of a TransportError's MPI code (MPI_ERR_INTERN when MPI cannot classify it).
[[nodiscard]] int class_of(int code);

/// The MPI function's name for messages ("MPI_Allgather").
[[nodiscard]] const char* function_name(Collective collective);

// ------------------------------------------------------------------------ datatypes

/// What the library needs of one MPI_Datatype.
struct TypeInfo {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  std::size_t size = 0;  ///< bytes of data per element (MPI_Type_size)
  MPI_Aint extent = 0;   ///< distance between elements
  /// Element i is exactly the bytes [i*size, (i+1)*size) of the buffer, in type-map order
  /// (a predefined type without holes): ragged reads and writes the buffer itself. Otherwise
  /// the data is packed to (and unpacked from) raw bytes around the call.
  bool dense = false;
  /// Element i occupies exactly [i*size, (i+1)*size) (any type, order inside ignored): what a
  /// reduction needs to hand whole elements to MPI_Reduce_local.
  bool solid = false;
};

/// Describes `type`; false for MPI_DATATYPE_NULL or a type MPI cannot size (more than INT_MAX
/// bytes): the call then goes to the MPI library.
[[nodiscard]] bool describe(MPI_Datatype type, TypeInfo& info);

/// Whether data of `type` can move through ragged: dense, or packable to raw bytes.
[[nodiscard]] bool movable(const TypeInfo& type);

/// `count` elements at `buf` as raw bytes into `out` (count * size bytes).
void pack(const void* buf, std::size_t count, const TypeInfo& type, std::byte* out, MPI_Comm comm);
/// The inverse: `count` elements from raw bytes at `in` into `buf`.
void unpack(const std::byte* in, std::size_t count, const TypeInfo& type, void* buf, MPI_Comm comm);

/// `buf` moved by `bytes` (MPI_Aint arithmetic on addresses, MPI_BOTTOM included).
[[nodiscard]] inline const void* offset(const void* buf, MPI_Aint bytes) {
  return reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(buf) + static_cast<std::uintptr_t>(bytes));
}
[[nodiscard]] inline void* offset(void* buf, MPI_Aint bytes) {
  return reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(buf) + static_cast<std::uintptr_t>(bytes));
}

/// A reduction as ragged runs it: the element type dispatch splits vectors on and the operator.
struct Reduction {
  DataType unit = DataType::byte;
  ReduceOp op;
};

/// The Reduction for (`type`, `op`), or false with `why` when ragged cannot run it: an element
/// that is not 1, 4 or 8 solid bytes, or a predefined operator on a type MPI does not define it
/// for (the MPI library then reports the error). Predefined operators on int, long, long long,
/// int32_t, int64_t, float and double are ragged's own loops; every other operator, user-defined
/// ones included, is applied through MPI_Reduce_local on the program's own datatype.
[[nodiscard]] bool reduction_of(MPI_Datatype type, MPI_Op op, Reduction& out, const char*& why);

/// Byte counts and displacements of one side of a v-collective (gatherv's receive, alltoallv's
/// send, ...), ready for dispatch: either the program's buffer itself (dense datatype, offsets
/// that fit in int once rebased on the lowest block) or a compact staging buffer that the blocks
/// are packed into or unpacked from.
struct Blocks {
  std::vector<int> counts;  ///< bytes
  std::vector<int> displs;  ///< bytes from `base`
  std::byte* base = nullptr;
  bool staged = false;  ///< base is a staging buffer of `total` bytes
  std::size_t total = 0;
};

/// Lays out `counts[i]` elements of `type` at `buf + displs[i] * extent` for every rank.
/// False when a count is negative or a block or the staging buffer exceeds INT_MAX bytes.
[[nodiscard]] bool lay_out(std::span<const int> counts, std::span<const int> displs, const TypeInfo& type,
                           const void* buf, std::vector<std::byte>& scratch, Blocks& out);
/// The same for alltoallw's sides: block i is `counts[i]` elements of `types[i]` at byte
/// `displs[i]` of `buf`; staged when any non-empty block's type is not dense.
[[nodiscard]] bool lay_out_typed(std::span<const int> counts, std::span<const int> displs,
                                 std::span<const TypeInfo> types, const void* buf, std::vector<std::byte>& scratch,
                                 Blocks& out);
/// Packs (unpacks) every block of a staged alltoallw side.
void pack_typed(const Blocks& blocks, std::span<const int> counts, std::span<const int> displs,
                std::span<const TypeInfo> types, const void* buf, MPI_Comm comm);
void unpack_typed(const Blocks& blocks, std::span<const int> counts, std::span<const int> displs,
                  std::span<const TypeInfo> types, void* buf, MPI_Comm comm);
/// Packs every block of the program's buffer into a staged layout.
void pack_blocks(const Blocks& blocks, std::span<const int> counts, std::span<const int> displs, const TypeInfo& type,
                 const void* buf, MPI_Comm comm);
/// Unpacks every block of a staged layout into the program's buffer.
void unpack_blocks(const Blocks& blocks, std::span<const int> counts, std::span<const int> displs, const TypeInfo& type,
                   void* buf, MPI_Comm comm);

// ------------------------------------------------------------------------ run

template <class Body, class Native>
int run(Collective collective, MPI_Comm comm, Body&& body, Native&& native) {
  if (comm == MPI_COMM_NULL) {
    note_last("native (MPI_COMM_NULL)");
    return native();
  }
  try {
    ensure_initialized();
    CommAttribute& state = state_of(comm);
    if (state.inter) {
      note_last("native (intercommunicator)");
      return native();
    }
    Call call(collective, state);
    if (body(call)) return MPI_SUCCESS;
    // Selection chose "native" (no reason), or the call is one ragged does not take (a reason).
    if (call.fallback_reason() == nullptr) {
      note_last("native");
    } else {
      note_last(std::string("native (") + call.fallback_reason() + ")");
    }
    return native();
  } catch (const InvalidArgument& e) {
    // Dispatch checks the arguments before anything is sent: the MPI library sees the same
    // arguments and reports them with the error class MPI defines, through comm's handler.
    // The Comm's own checks fire inside an algorithm, after messages went out: not the program's.
    if (internal_argument(e.argument())) {
      return raise_error(comm, e.what(), function_name(collective), MPI_ERR_INTERN);
    }
    note_last(std::string("native (invalid argument '") + e.argument() + "')");
    return native();
  } catch (const TransportError& e) {
    return raise_error(comm, e.what(), function_name(collective), class_of(e.code()));
  } catch (const TimeoutError& e) {
    return raise_error(comm, (std::string("RAGGED_TIMEOUT ran out: ") + e.what()).c_str(), function_name(collective),
                       MPI_ERR_OTHER);
  } catch (const std::bad_alloc& e) {
    return raise_error(comm, e.what(), function_name(collective), MPI_ERR_NO_MEM);
  } catch (const std::exception& e) {
    return raise_error(comm, e.what(), function_name(collective), MPI_ERR_INTERN);
  } catch (...) {
    return raise_error(comm, "unknown exception", function_name(collective), MPI_ERR_INTERN);
  }
}

}  // namespace ragged::pmpi
