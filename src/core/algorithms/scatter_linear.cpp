// STUB: to be implemented.
#include "internal/common.hpp"
#include "ragged/algorithms.hpp"

namespace ragged {

void scatter_linear(Comm& comm, const void* sendbuf, void* recvbuf, std::size_t count, DataType type, int root,
                    const CollectiveOptions& options) {
  (void)comm;
  (void)sendbuf;
  (void)recvbuf;
  (void)count;
  (void)type;
  (void)root;
  (void)options;
  throw Error("scatter_linear: not implemented yet");
}

}  // namespace ragged
