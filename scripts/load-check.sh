#!/usr/bin/env bash
# load-check.sh COMMAND...: runs COMMAND, then prints on stderr how much CPU other processes
# took meanwhile, in the format of ../shared/tools/quiet-run (without its wait):
#   load-check: wall 12.30s, own CPU 20.10s, other processes 1.20s (5% of 2 CPUs)
# "own" is the CPU time of COMMAND and its children (this script's waited-for children);
# "other" is the machine's busy time (/proc/stat) less that. Exits with COMMAND's status.
# Used by scripts/main.sh (every benchmark of the report) and bench/gpu/check.sh.
cpu_busy() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8; exit}' /proc/stat; }
# CPU time (user + system, in ticks) of the waited-for children of process $1: cutime + cstime.
child_cpu() { awk '{sub(/.*\) /, ""); print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
ncpu=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)  # (nproc alone obeys OMP_NUM_THREADS)
b0=$(cpu_busy)
c0=$(child_cpu $$)
t0=$(date +%s.%N)
rc=0
"$@" || rc=$?
b1=$(cpu_busy)
c1=$(child_cpu $$)
t1=$(date +%s.%N)
awk -v b0="$b0" -v b1="$b1" -v c0="$c0" -v c1="$c1" -v t0="$t0" -v t1="$t1" -v hz="$hz" -v n="$ncpu" 'BEGIN {
  wall = t1 - t0; own = (c1 - c0) / hz; other = (b1 - b0) / hz - own; if (other < 0) other = 0;
  printf "load-check: wall %.2fs, own CPU %.2fs, other processes %.2fs (%.0f%% of %d CPUs)\n", wall, own, other, 100 * other / (wall * n), n > "/dev/stderr" }'
exit $rc
