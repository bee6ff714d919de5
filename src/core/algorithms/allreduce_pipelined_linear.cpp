// STUB: to be implemented.
#include "internal/common.hpp"
#include "ragged/algorithms.hpp"

namespace ragged {

void allreduce_pipelined_linear(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                                const ReduceOp& op, const CollectiveOptions& options) {
  (void)comm;
  (void)sendbuf;
  (void)recvbuf;
  (void)count;
  (void)type;
  (void)op;
  (void)options;
  throw Error("allreduce_pipelined_linear: not implemented yet");
}

}  // namespace ragged
