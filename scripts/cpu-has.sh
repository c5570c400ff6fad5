#!/bin/sh
# cpu-has.sh FLAG... — exits 0 when this CPU has every FLAG (whole words of /proc/cpuinfo's flags line),
# 1 otherwise (and on a system without /proc/cpuinfo). Used to choose OpenBLAS's kernels in tests/run.sh
# and scripts/gen-torch-reference.sh.
flags=$(sed -n 's/^flags[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
[ -n "$flags" ] || exit 1
for f in "$@"; do
    case " $flags " in
    *" $f "*) ;;
    *) exit 1 ;;
    esac
done
exit 0
