# bench/plot.gp: the chart of bench/results.tsv (written by bench/run.sh).
#   gnuplot -e "data='bench/results.tsv'; out='bench/results.png'" bench/plot.gp
# Four panels, log scale: lifecycle commands (ms), system calls inside the container (ns per
# call), the raw seccomp notify round trip on the host (ns, bench/notify-rtt.c), and the real
# workloads (ms per run).  Footprint and scale (the tsv's index 4) are in the table only.  A peer
# that could not run, or a figure that could not be measured, is NaN: no bar.
if (!exists("data")) data = 'results.tsv'
if (!exists("out")) out = 'results.png'
if (!exists("subtitle")) subtitle = 'agentrt'

set terminal pngcairo size 2800,650 font 'DejaVu Sans,11' noenhanced
set output out
set datafile separator "\t"
set datafile missing "NaN"

set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border rgb "#333333"
set boxwidth 0.9
set logscale y
set grid ytics mytics lc rgb "#dddddd"
set key top left horizontal
set xtics nomirror
set ytics nomirror
set format y "%.0s%c"   # 1, 10, 100, 1k, 10k, 1M

# The same colour for a peer in both panels.
set linetype 1 lc rgb "#4c72b0"   # crun
set linetype 2 lc rgb "#dd8452"   # runc
set linetype 3 lc rgb "#c44e52"   # runsc
set linetype 4 lc rgb "#55a868"   # agentrt (its default platform)
set linetype 5 lc rgb "#a6d96a"   # agentrt --platform none
set linetype 6 lc rgb "#8c8c8c"   # host
set linetype 7 lc rgb "#8172b3"   # agentrt --platform ptrace (no bars for an agentrt without it)
set linetype 8 lc rgb "#1b7837"   # agentrt --agent: the full agent sandbox (lifecycle, workloads)

set multiplot layout 1,4 title subtitle." vs crun, runc and runsc (gVisor, ptrace): medians, log scale, lower is faster"

set title "container lifecycle (hyperfine)"
set ylabel "ms per command"
set yrange [0.5:*]
plot data index 0 using 3:xtic(2) title columnhead(3) lt 1, \
     ''   index 0 using 4 title columnhead(4) lt 2, \
     ''   index 0 using 5 title columnhead(5) lt 3, \
     ''   index 0 using 6 title columnhead(6) lt 4, \
     ''   index 0 using 7 title columnhead(7) lt 5, \
     ''   index 0 using 8 title columnhead(8) lt 7, \
     ''   index 0 using 9 title columnhead(9) lt 8

set title "system calls inside the container (sc-bench)"
set ylabel "ns per call"
set yrange [10:*]   # so that the shortest bars (getppid, ~100 ns) still show
set xtics rotate by -30
plot data index 1 using 3:xtic(2) title columnhead(3) lt 1, \
     ''   index 1 using 4 title columnhead(4) lt 2, \
     ''   index 1 using 5 title columnhead(5) lt 3, \
     ''   index 1 using 6 title columnhead(6) lt 4, \
     ''   index 1 using 7 title columnhead(7) lt 5, \
     ''   index 1 using 8 title columnhead(8) lt 7, \
     ''   index 1 using 11 title columnhead(11) lt 6

set title "seccomp notify round trip on the host (notify-rtt: getppid)"
set ylabel "ns per call"
set yrange [10:*]
plot data index 2 using 3:xtic(2) title columnhead(3) lt 6

set title "real workloads on the Debian rootfs (hyperfine: a whole run)"
set ylabel "ms per run"
set yrange [10:*]
plot data index 3 using 3:xtic(2) title columnhead(3) lt 1, \
     ''   index 3 using 4 title columnhead(4) lt 2, \
     ''   index 3 using 5 title columnhead(5) lt 3, \
     ''   index 3 using 6 title columnhead(6) lt 4, \
     ''   index 3 using 7 title columnhead(7) lt 5, \
     ''   index 3 using 8 title columnhead(8) lt 7, \
     ''   index 3 using 9 title columnhead(9) lt 8

unset multiplot
