#!/bin/sh
# testbed.two_clusters: every two-cluster alltoall and alltoallv of ragged, and
# Open MPI's own, on real Open MPI across two emulated clusters (3 + 5 hosts on
# two switches joined by a router, 2 ms backbone), two ranks per host. The
# clusters are found from the host names (ragged-bench --layout hosts), every
# result is checked byte for byte by ragged-bench, and the backbone messages it
# measures must be lg's 2*max(n1,n2) against linear's 2*n1*n2. Skips (exit 77),
# saying why, where the machine cannot host the testbed.
# usage: run_two_clusters.sh TESTBED_SCRIPT DELAYLINE_BINARY RAGGED_BENCH
testbed=$1
delayline=$2
bench=$3
. "$(dirname "$0")/preflight.sh"
preflight "$testbed" "$delayline" "$bench" "built without MPI or without ragged-bench"

out=$(mktemp) || exit 1
trap 'rm -f "$out"' EXIT
for collective in alltoall alltoallv; do
  "$testbed" run --two-clusters 3+5 --ranks-per-host 2 --rate 1gbit --backbone-rate 10gbit --backbone-delay 2ms \
    --timeout 50 --delayline "$delayline" -- "$bench" two-cluster --backend mpi --layout hosts \
    --collective "$collective" --sizes 1Ki,64Ki --iterations 1 --warmup 0 --format csv >"$out" || {
    echo "FAIL: the $collective job failed"
    cat "$out"
    exit 1
  }
  cat "$out"
  # Columns by name from the header (experiment,backend,platform,collective,algorithm,selected,n1,...).
  awk -F, -v collective="$collective" '
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    {
      rows++
      a = $col["algorithm"]; n1 = $col["n1"]; n2 = $col["n2"]; m = $col["backbone_messages"]
      if (n1 != 6 || n2 != 10) { print "FAIL: " a " ran on " n1 "+" n2 " processes, not the hosts 6+10"; bad = 1 }
      if ($col["checked"] != "yes") { print "FAIL: " a " at " $col["bytes"] " bytes was not checked"; bad = 1 }
      # hierarchical needs two nodes: the hosts of the testbed are namespaces of one machine, so
      # MPI_Comm_split_type(SHARED) gives one node and it runs its fallback (pairwise).
      if ($col["selected"] != a && !(a == "hierarchical" && $col["selected"] == "pairwise")) { print "FAIL: " a " ran " $col["selected"] " instead"; bad = 1 }
      if (a == "lg") { lg++; if (m > 20 || (collective == "alltoall" && m != 20)) { print "FAIL: lg sent " m " backbone messages, 2*max(6,10) = 20"; bad = 1 } }
      if (a == "linear") { linear++; if (m != 120) { print "FAIL: linear sent " m " backbone messages, 2*6*10 = 120"; bad = 1 } }
      if (a == "native") native++
    }
    END {
      if (lg != 2 || linear != 2) { print "FAIL: expected lg and linear at two sizes, got " lg " and " linear; bad = 1 }
      if (collective == "alltoall" && native != 2) { print "FAIL: native is missing"; bad = 1 }
      if (rows == 0) { print "FAIL: no rows"; bad = 1 }
      exit bad
    }' "$out" || exit 1
done
echo "testbed.two_clusters: every result checked; lg 20 backbone messages against linear 120"
