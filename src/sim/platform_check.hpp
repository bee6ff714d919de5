// The numbers of a SimGrid platform file, checked before SimGrid reads it: SimGrid stops the
// process on a zero or negative bandwidth or speed (an assertion inside the engine), naming
// neither the file nor the attribute. Pure: no engine, no simulation.
#pragma once

#include <string>
#include <string_view>

namespace ragged::sim {

/// Checks every bandwidth (an attribute named bw, bandwidth or *_bw: a positive number and a
/// unit, as SimGrid writes them: 125MBps, 10Gbps), speed (speed: positive, a comma-separated
/// list of pstates allowed) and latency (lat, latency, *_lat: a number >= 0) of the XML text
/// `xml` of platform file `file`. Throws InvalidArgument("platform", "<file>:<line>: ...")
/// naming the attribute and its value for the first one that is not finite, or is negative,
/// or (bandwidth, speed) zero; does nothing for text it does not recognise (SimGrid judges
/// the rest).
void check_platform_numbers(std::string_view xml, const std::string& file);

}  // namespace ragged::sim
