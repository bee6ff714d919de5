// ragged-bench two-cluster: the figures (like Fig. 4 to 6 of seed 001) as SVG.
#pragma once

#include <string>

#include "report.hpp"

namespace ragged::bench {

/// Draws time_s (log scale) against `x` ("bytes", log2 scale; or "procs" = n1 + n2), one
/// line per algorithm and cluster pair (x = bytes) or per algorithm and size (x = procs).
void write_plot(const std::string& path, const Report& report, const std::string& x);

}  // namespace ragged::bench
