// STUB: to be implemented.
#include "internal/common.hpp"
#include "ragged/algorithms.hpp"

namespace ragged {

void allgather_lnbc(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type,
                    const CollectiveOptions& options) {
  (void)comm;
  (void)sendbuf;
  (void)recvbuf;
  (void)count;
  (void)type;
  (void)options;
  throw Error("allgather_lnbc: not implemented yet");
}

}  // namespace ragged
