# Drawn by tools/train/run-testbed.sh from the CSVs in this folder.
if (exists("png")) { set terminal pngcairo size 1200,480 font "sans,10"; set output png } else {
  set terminal svg size 1200,480 dynamic enhanced font "sans,12" background rgb "white"
  set output "training.svg"
}
set datafile separator ","
set multiplot layout 1,2 title "ragged-train: Fashion-MNIST CNN (147,146 parameters), P = 8 on the testbed (1gbit links), 4800 images x 4 epochs, 8 images per rank and step; round 1 solid,\n later rounds dashed"
set key top left
set grid
set xlabel "training wall time [s] (evaluation excluded)"
set ylabel "test accuracy [%] (4000 test images)"
algs = "ring slt prr native ring+monitor"
plot for [i=1:words(algs)] for [r=1:3] word(algs, i).".r".r.".csv" skip 1 using 11:($19*100) with linespoints lw 1.5 pt 7 ps 0.5 lc i dt r title (r == 1 ? word(algs, i) : "")
set title "allreduce average elapsed time e-bar (one allreduce per step), mean of 3 rounds"
set xlabel "algorithm"
set ylabel "e-bar [ms] (bar: lowest and highest round)"
set yrange [0:*]
set xrange [-0.6:5-0.4]
set style fill solid 0.6 border -1
set boxwidth 0.6
unset key
plot "summary.csv" skip 1 using 0:2:xtic(1) with boxes lc rgb "#4477aa", \
     "summary.csv" skip 1 using 0:2:3:4 with yerrorbars lc rgb "black" pt 0
unset multiplot
