// ragged::version(): the version the library was built as (ragged/version.hpp, generated).
#include "ragged/version.hpp"

namespace ragged {

const char* version() noexcept { return RAGGED_VERSION_STRING; }

}  // namespace ragged
