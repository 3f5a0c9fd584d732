#!/bin/bash
# Alternating base/new runs of bench_distribute allreduce; idle and beside one busy process.
cd /work/wt/dist14
out=/tmp/dist14/ab_$(date +%H%M).txt
for round in 1 2 3; do
  for mode in idle busy; do
    for build in base new; do
      if [ $build = base ]; then PP=/tmp/dist14-basepy; else PP=/work/wt/dist14/python; fi
      if [ $mode = busy ]; then yes > /dev/null & BUSY=$!; fi
      echo "== round $round $mode $build load $(cut -d' ' -f1 /proc/loadavg) $(date +%H:%M:%S)" >> $out
      PYTHONPATH=$PP timeout 400 mpirun -np 2 --allow-run-as-root --oversubscribe .venv-test/bin/python benchmarks/bench_distribute.py allreduce --sizes 1048576 4194304 16777216 --repeats 15 2>&1 | tail -4 >> $out
      if [ $mode = busy ]; then kill $BUSY; wait $BUSY 2>/dev/null; fi
    done
  done
done
echo done >> $out
