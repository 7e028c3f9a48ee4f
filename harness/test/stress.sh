#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make stress`: the long reliability campaign.  One guest runs the
# reliability and stress suites at campaign size (200 load/unload cycles,
# 10000 policy flips with a ratio change every 10, 30 s of verifying load
# per policy and device), then the kernel tree's own mm selftests under every
# policy (mm-selftests, the same size at either scale; the Makefile builds
# them first, harness/images/build-selftests.sh), a second guest boots with
# cgroup_disable=memory.
# The suites each guest runs, and their case counts, are the manifest's
# (runs "stress" and "stress-nomemcg").  Prints the figures at the end;
# fails if any test failed or is missing, any page failed verification or
# the kernel reported anything (harness/boot/runner.py judges each guest).
# STRESS_SCALE=short: 20 cycles, 4 s loads, and flips enough to walk every
# ordered pair of policies twice, however many there are (make test runs
# the same suites smaller still).
set -uo pipefail
. "$(dirname "$0")/../lib.sh"

VARIANT=${1:-default}
if [ "${STRESS_SCALE:-long}" = short ]; then
	ENV=CYCLES=20,FLIPS=pairs,STRESS_SECONDS=4 TIMEOUT=1200
else
	ENV=CYCLES=200,FLIPS=10000,STRESS_SECONDS=30 TIMEOUT=5400
fi
T0=$SECONDS
rc_all=0
# run folders per variant, so a debug campaign can run beside a default one
R=stress
[ "$VARIANT" = default ] || R=stress-$VARIANT

S1=$(manifest_suites stress) S2=$(manifest_suites stress-nomemcg)
# (timeouts are the default kernel's: the runner scales them for debug)
stage "stress: $S1 ($ENV)"
python3 "$AWS_TOP/harness/boot/runner.py" boot suites --name "$R" --variant "$VARIANT" --mem 512M \
	--timeout "$TIMEOUT" --suites "$S1" \
	--args "$S1" --env "SUITE_TIMEOUT=$TIMEOUT,$ENV" || rc_all=1
stage_done
stage "stress: boot with cgroup_disable=memory: $S2"
python3 "$AWS_TOP/harness/boot/runner.py" boot suites --name "$R-nomemcg" --variant "$VARIANT" \
	--mem 256M --timeout 900 --suites "$S2" \
	--args "$S2" --append cgroup_disable=memory || rc_all=1
stage_done

logs=("$AWS_RUNS/$R/ktap.log" "$AWS_RUNS/$R-nomemcg/ktap.log")
cons=("$AWS_RUNS/$R/console.log" "$AWS_RUNS/$R-nomemcg/console.log")
read -r p f s < <(python3 "$AWS_TOP/harness/boot/runner.py" total "$AWS_RUNS/$R" \
	"$AWS_RUNS/$R-nomemcg")
fig() { cat "${logs[@]}" | sed -n "s/.*# figure $1=\([0-9]*\).*/\1/p" | awk '{ t += $1 } END { print t + 0 }'; }
res() { cat "${logs[@]}" | grep -o "RESULT .*" | tr ' ' '\n' | sed -n "s/^$1=//p" |
	awk '$1 >= 0 { t += $1 } END { printf "%d\n", t }'; }
reports=$(console_scan "${cons[@]}" | wc -l)
console_scan "${cons[@]}" | head -n 5 | cut -d: -f1,3- | sed 's/^/   /'
vfail=$(res verify_fail)
cat <<FIG
== stress figures ($((SECONDS - T0)) s, logs: build/${AWS_RUNS##*/}/$R/, build/${AWS_RUNS##*/}/$R-nomemcg/)
   load/unload cycles survived : $(fig load_unload_cycles)
   policy flips (module count) : $(fig policy_flips)
   MGLRU on/off under load     : $(fig mglru_toggles)
   mm selftest runs passed     : $(fig mm_selftest_runs)
   bytes verified              : $(($(res pages_verified) * 4096))
   swap-ins exercised (pages)  : $(res pswpin)
   swap-outs exercised (pages) : $(res pswpout)
   kernel reports              : $reports
   verification failures       : $vfail
   test cases                  : $p passed, $f failed, $s skipped
FIG
[ "$rc_all" = 0 ] && [ "$f" = 0 ] && [ "$reports" = 0 ] && [ "$vfail" = 0 ]
