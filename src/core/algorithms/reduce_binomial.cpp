// STUB: to be implemented.
#include "internal/common.hpp"
#include "ragged/algorithms.hpp"

namespace ragged {

void reduce_binomial(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                     const ReduceOp& op, int root, const CollectiveOptions& options) {
  (void)comm;
  (void)sendbuf;
  (void)recvbuf;
  (void)count;
  (void)type;
  (void)op;
  (void)root;
  (void)options;
  throw Error("reduce_binomial: not implemented yet");
}

}  // namespace ragged
