// STUB: to be implemented.
#include "internal/common.hpp"
#include "ragged/algorithms.hpp"

namespace ragged {

void gather_binomial(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type, int root,
                     const CollectiveOptions& options) {
  (void)comm;
  (void)sendbuf;
  (void)recvbuf;
  (void)count;
  (void)type;
  (void)root;
  (void)options;
  throw Error("gather_binomial: not implemented yet");
}

}  // namespace ragged
