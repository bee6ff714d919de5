// STUB: to be implemented.
#include "internal/common.hpp"
#include "ragged/algorithms.hpp"

namespace ragged {

void allgather_nex(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                   const CollectiveOptions& options) {
  (void)comm;
  (void)sendbuf;
  (void)recvbuf;
  (void)count;
  (void)type;
  (void)options;
  throw Error("allgather_nex: not implemented yet");
}

}  // namespace ragged
