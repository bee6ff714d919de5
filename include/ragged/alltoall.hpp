// ragged: the alltoall, alltoallv and alltoallw collectives. Their algorithms (alltoall "lg",
// "coordinator", "linear", "pairwise", "bruck"; alltoallv "lg", "linear", "pairwise";
// alltoallw "linear", "pairwise") are in the registry (src/core/algorithms/list.def) and run
// through ragged::alltoall / ragged::alltoallv / ragged::alltoallw (collectives.hpp). The cluster-aware ones ("lg" for
// two or more clusters, "coordinator" for two) need a ClusterLayout hint (ragged/topology.hpp) in
// CollectiveOptions::hints; without a fitting one, dispatch runs "pairwise" instead.
#pragma once

#include "ragged/collectives.hpp"
#include "ragged/topology.hpp"
