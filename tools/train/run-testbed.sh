#!/usr/bin/env bash
# The training experiment of docs/training.md in one command (as root): ragged-train on the
# emulated cluster (tools/testbed, 8 hosts, 1 Gbit/s links as Proficz 2018's §6 cluster) once per
# allreduce algorithm, the per-epoch CSVs collected, a summary table, and the figure
# (test accuracy against training wall time; average allreduce elapsed time e-bar per algorithm).
#
#   sudo tools/train/run-testbed.sh                 # about 20 minutes on 2 cores
#
# The runs go in ROUNDS rounds, each round every algorithm once in turn: on a machine shared
# with other work the load drifts, and interleaving spreads the drift over all algorithms.
#
# Environment (defaults in brackets):
#   BUILD       build directory; configured and built if needed [<repo>/build]
#   OUT         where CSVs, logs, summary and figure go [<repo>/docs/figures/training]
#   ALGORITHMS  [ring slt prr native ring+monitor]; NAME+monitor runs NAME with the arrival monitor on
#               (--monitor on: its agent runs; ring and native do not use the snapshot)
#   HOSTS [8]  RATE [1gbit]  DELAY [0]
#   ROUNDS [3]  EPOCHS [4]  LIMIT (training images) [4800]  TEST_LIMIT [4000]  BATCH (per rank) [8]
#   LR [0.01]  SEED [1]  TIMEOUT (per run, s) [900]
set -euo pipefail

die() {
  echo "run-testbed: $*" >&2
  exit 1
}

# The whole script is one function, read by bash before it starts: editing this file while an
# experiment runs cannot change the running one.
main() {
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  root=$(cd "$here/../.." && pwd)
  build=${BUILD:-$root/build}
  out=${OUT:-$root/docs/figures/training}
  algorithms=${ALGORITHMS:-ring slt prr native ring+monitor}
  hosts=${HOSTS:-8}
  rate=${RATE:-1gbit}
  delay=${DELAY:-0}
  rounds=${ROUNDS:-3}
  epochs=${EPOCHS:-4}
  limit=${LIMIT:-4800}
  test_limit=${TEST_LIMIT:-4000}
  batch=${BATCH:-8}
  lr=${LR:-0.01}
  seed=${SEED:-1}
  timeout=${TIMEOUT:-900}

  [[ $(id -u) -eq 0 ]] || die "run as root: the testbed makes network namespaces"
  command -v gnuplot >/dev/null || die "gnuplot is missing (Debian: gnuplot-nox)"
  "$root/tools/testbed/testbed" check >/dev/null || die "this machine cannot run the testbed (tools/testbed/testbed check)"

  # ---- build ragged-train (configure with the default preset the first time)
  if [[ ! -f $build/CMakeCache.txt ]]; then
    if [[ $build == "$root/build" ]]; then
      (cd "$root" && nice -n 10 cmake --preset default >/dev/null)
    else
      nice -n 10 cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    fi
  else
    nice -n 10 cmake -S "$root" -B "$build" >/dev/null  # picks up dlib if it was installed since
  fi
  nice -n 10 cmake --build "$build" -j2 --target ragged-train >/dev/null ||
    die "building ragged-train failed (needs libdlib-dev; see $build)"
  program=$build/tools/train/ragged-train
  [[ -x $program ]] || die "no $program"

  mkdir -p "$out"
  {
    echo "command: tools/train/run-testbed.sh (ROUNDS=$rounds HOSTS=$hosts RATE=$rate DELAY=$delay EPOCHS=$epochs LIMIT=$limit" \
      "TEST_LIMIT=$test_limit BATCH=$batch LR=$lr SEED=$seed ALGORITHMS='$algorithms')"
    echo "start: $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
  } >"$out/meta.txt"

  # ---- one testbed job per algorithm and round
  for round in $(seq 1 "$rounds"); do
    for a in $algorithms; do
      echo "run-testbed: round $round/$rounds, $a on $hosts hosts at $rate ..." >&2
      start=$(date +%s)
      monitor=auto
      [[ $a == *+monitor ]] && monitor=on
      name=$a.r$round
      "$root/tools/testbed/testbed" run --hosts "$hosts" --rate "$rate" --delay "$delay" --timeout "$timeout" -- \
        "$program" --algorithm "${a%+monitor}" --monitor "$monitor" --epochs "$epochs" --limit "$limit" \
        --test-limit "$test_limit" --batch "$batch" --lr "$lr" --seed "$seed" --csv "$out/$name.csv" 2>&1 |
        grep -v 'plm:rsh: Warning: setpgid' | tee "$out/$name.log"
      [[ -s $out/$name.csv ]] || die "$name: no CSV (see $out/$name.log)"
      echo "$name: $(($(date +%s) - start)) s, load average after $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/meta.txt"
    done
  done
  echo "end: $(date -u +%FT%TZ)" >>"$out/meta.txt"

  # ---- summary, one line per algorithm over its rounds: e-bar and training time from the last
  # epoch's row of each round (cumulative there): mean, min and max over the rounds; the other
  # columns averaged over every epoch of every round; speedups of the means against the first
  # algorithm. CSV columns: 11 train_time_s 13 ebar_s 14 stddev_s 15 omega_s 16 compute_s
  # 17 edge_fraction 19 test_accuracy 23 estimate_error_s 24 latest_estimated.
  summary=$out/summary.csv
  echo "run,ebar_ms,ebar_min_ms,ebar_max_ms,stddev_ms,train_time_s,train_min_s,train_max_s,test_accuracy,omega_ms," \
    "compute_ms,edge_fraction,estimate_error_ms,latest_estimated,ebar_speedup,train_speedup" | tr -d ' ' >"$summary"
  ref_ebar=
  ref_train=
  for a in $algorithms; do
    line=$(for round in $(seq 1 "$rounds"); do cat "$out/$a.r$round.csv"; done | awk -F, -v a="$a" '
      $1 == "algorithm" { if (last != "") final(); last = ""; next }
      { n++; omega += $15; compute += $16; fraction += $17; last = $0
        if ($23 != "") { ne++; esterr += $23; latest += $24 } }
      function final(  l) {
        split(last, l, ","); k++; e = l[13] * 1e3; t = l[11]
        es += e; ts += t; sd += l[14] * 1e3; acc += l[19]
        if (k == 1 || e < emin) emin = e; if (k == 1 || e > emax) emax = e
        if (k == 1 || t < tmin) tmin = t; if (k == 1 || t > tmax) tmax = t }
      END {
        final()
        est = ne ? sprintf("%.3f", esterr / ne * 1e3) : ""; hit = ne ? sprintf("%.2f", latest / ne) : ""
        printf "%s,%.3f,%.3f,%.3f,%.3f,%.2f,%.2f,%.2f,%.4f,%.3f,%.3f,%.3f,%s,%s", a, es / k, emin, emax, sd / k,
               ts / k, tmin, tmax, acc / k, omega / n * 1e3, compute / n * 1e3, fraction / n, est, hit }')
    ebar=$(echo "$line" | cut -d, -f2)
    train=$(echo "$line" | cut -d, -f6)
    [[ -n $ref_ebar ]] || { ref_ebar=$ebar; ref_train=$train; }
    echo "$line" | awk -v re="$ref_ebar" -v rt="$ref_train" -v e="$ebar" -v t="$train" \
      '{ printf "%s,%.3f,%.3f\n", $0, re / e, rt / t }' >>"$summary"
  done
  echo
  echo "speedups against $(echo "$algorithms" | awk '{print $1}') (means over $rounds rounds):"
  column -s, -t "$summary"

  # ---- figure: training.gp beside the data; in that folder `gnuplot training.gp` redraws the SVG
  # and `gnuplot -e 'png="training.png"' training.gp` draws a PNG.
  algs_list=$(echo $algorithms)
  {
    echo '# Drawn by tools/train/run-testbed.sh from the CSVs in this folder.'
    echo 'if (exists("png")) { set terminal pngcairo size 1200,480 font "sans,10"; set output png } else {'
    echo '  set terminal svg size 1200,480 dynamic enhanced font "sans,12" background rgb "white"'
    echo '  set output "training.svg"'
    echo '}'
    echo 'set datafile separator ","'
    echo "set multiplot layout 1,2 title \"ragged-train: Fashion-MNIST CNN (147,146 parameters), P = $hosts on the" \
      "testbed ($rate links), $limit images x $epochs epochs, $batch images per rank and step; round 1 solid,\\n" \
      "later rounds dashed\""
    echo 'set key top left'
    echo 'set grid'
    echo 'set xlabel "training wall time [s] (evaluation excluded)"'
    echo "set ylabel \"test accuracy [%] ($test_limit test images)\""
    echo "algs = \"$algs_list\""
    echo "plot for [i=1:words(algs)] for [r=1:$rounds] word(algs, i).\".r\".r.\".csv\" skip 1 using 11:(\$19*100)" \
      "with linespoints lw 1.5 pt 7 ps 0.5 lc i dt r title (r == 1 ? word(algs, i) : \"\")"
    echo "set title \"allreduce average elapsed time e-bar (one allreduce per step), mean of $rounds rounds\""
    echo 'set xlabel "algorithm"'
    echo 'set ylabel "e-bar [ms] (bar: lowest and highest round)"'
    echo 'set yrange [0:*]'
    echo "set xrange [-0.6:$(echo $algorithms | wc -w)-0.4]"
    echo 'set style fill solid 0.6 border -1'
    echo 'set boxwidth 0.6'
    echo 'unset key'
    echo 'plot "summary.csv" skip 1 using 0:2:xtic(1) with boxes lc rgb "#4477aa", \'
    echo '     "summary.csv" skip 1 using 0:2:3:4 with yerrorbars lc rgb "black" pt 0'
    echo 'unset multiplot'
  } >"$out/training.gp"
  (cd "$out" && gnuplot training.gp)
  echo "run-testbed: $out/training.svg, $summary" >&2
}
main "$@"
