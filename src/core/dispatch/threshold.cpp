// Dispatch of the threshold collectives (ragged/threshold.hpp): validate once, compute the
// plan (plans/threshold_plan.hpp) and the status from the arguments alone, stop here for
// P = 1 or count 0, and run the algorithm under the call's Context (dispatch/call.hpp).
#include "internal/threshold.hpp"

#include <string>

#include "dispatch/call.hpp"
#include "internal/common.hpp"
#include "plans/threshold_plan.hpp"
#include "ragged/error.hpp"
#include "ragged/threshold.hpp"

namespace ragged {

namespace {

using internal::check_buffer;
using internal::copy_bytes;
using internal::is_in_place;
using internal::reject_in_place;

void check_threshold(double threshold) {
  if (!(threshold > 0 && threshold <= 1)) {  // NaN fails too
    throw InvalidArgument("threshold", "must be in (0, 1], got " + std::to_string(threshold));
  }
}

/// size_of() throws InvalidArgument("type") for a value outside the enum.
std::size_t element_size(DataType type) { return size_of(type); }

void check_op(const ReduceOp& op, DataType type) {
  if (op.kind == OpKind::custom && !op.custom) {
    throw InvalidArgument("op", "custom operator '" + op.label + "' has no function");
  }
  if (op.kind != OpKind::custom && type == DataType::byte) {
    throw InvalidArgument("type", "built-in operator '" + op.label + "' is not defined on byte");
  }
  if (!op.commutative) {
    throw InvalidArgument("op", "operator '" + op.label +
                                    "' is not commutative; the threshold reduce combines operands in tree order, "
                                    "not rank order, and needs a commutative operator");
  }
}

}  // namespace

ThresholdStatus bcast_threshold(Comm& comm, void* buffer, std::size_t count, DataType type, int root, double threshold,
                                const CollectiveOptions& options) {
  check_rank(comm, root, "root");
  check_threshold(threshold);
  const std::size_t es = element_size(type);
  reject_in_place(buffer, "buffer", "as sendbuf or recvbuf");
  check_buffer(buffer, count * es, "buffer");
  const std::size_t elements = plans::threshold::elements(threshold, count);
  const ThresholdStatus status{elements, 1, elements == count};
  if (comm.size() == 1 || elements == 0) return status;
  Context ctx = internal::call_context(comm, internal::tags_of(internal::Unlisted::bcast_threshold), options);
  internal::bcast_threshold_binomial(ctx, buffer, elements, type, root);
  return status;
}

ThresholdStatus reduce_threshold(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                                 const ReduceOp& op, int root, double threshold, ThresholdBy by,
                                 const CollectiveOptions& options) {
  check_rank(comm, root, "root");
  check_threshold(threshold);
  if (by != ThresholdBy::data && by != ThresholdBy::processes) {
    throw InvalidArgument("by", "must be ThresholdBy::data or ThresholdBy::processes");
  }
  const std::size_t es = element_size(type);
  check_op(op, type);
  const std::size_t n = count * es;
  const bool at_root = comm.rank() == root;
  if (!at_root) reject_in_place(sendbuf, "sendbuf", "at the root");
  if (!is_in_place(sendbuf)) check_buffer(sendbuf, n, "sendbuf");
  if (at_root) {
    reject_in_place(recvbuf, "recvbuf", "as sendbuf");
    check_buffer(recvbuf, n, "recvbuf");
  }
  if (at_root && is_in_place(sendbuf)) sendbuf = recvbuf;

  const int procs = comm.size();
  const bool by_data = by == ThresholdBy::data;
  const std::size_t elements = by_data ? plans::threshold::elements(threshold, count) : count;
  const int contributors = by_data ? procs : plans::threshold::contributors(threshold, procs);
  const ThresholdStatus status{elements, contributors, elements == count && contributors == procs};
  if (procs == 1) {
    copy_bytes(recvbuf, sendbuf, elements * es);
    return status;
  }
  if (elements == 0) return status;
  Context ctx = internal::call_context(comm, internal::tags_of(internal::Unlisted::reduce_threshold), options);
  internal::reduce_threshold_binomial(ctx, sendbuf, recvbuf, elements, type, op, root, contributors);
  return status;
}

}  // namespace ragged
