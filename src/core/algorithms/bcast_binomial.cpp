// STUB: to be implemented.
#include "internal/common.hpp"
#include "ragged/algorithms.hpp"

namespace ragged {

void bcast_binomial(Comm& comm, void* buffer, std::size_t count, DataType type, int root,
                    const CollectiveOptions& options) {
  (void)comm;
  (void)buffer;
  (void)count;
  (void)type;
  (void)root;
  (void)options;
  throw Error("bcast_binomial: not implemented yet");
}

}  // namespace ragged
