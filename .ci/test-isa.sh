#!/usr/bin/env bash
# Runs engine tests once per oneDNN CPU-instruction-set cap, so that a result that depends on which convolution kernels
# oneDNN picks shows up on this machine instead of on a user's. See docs/testing-isa.md.
#
#   .ci/test-isa.sh                      every level this CPU offers, the equivalence and resume tests
#   .ci/test-isa.sh AVX2 SSE41           only those levels
#   TESTS='ResumeTest' .ci/test-isa.sh   other tests (a surefire -Dtest pattern)
#   KERNELS=1 .ci/test-isa.sh ALL        also list the convolution kernels oneDNN ran, by pass and micro-batch
#
# The oneDNN inside ND4J 1.0.0-M2.1's natives is v2.3.0: it reads DNNL_MAX_CPU_ISA and DNNL_VERBOSE, not the ONEDNN_*
# names of oneDNN 2.5+ (both are set, so the script keeps working on newer natives).
set -uo pipefail
cd "$(dirname "$0")/.."

tests="${TESTS:-SynchronousEquivalenceTest,SynchronousResumeTest,ResumeTest,ResumeAtEveryCheckpointTest}"
flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
has() { for f in "$@"; do [[ "$flags" == *" $f "* ]] || return 1; done; }

levels=("$@")
if [[ ${#levels[@]} -eq 0 ]]; then
  has sse4_1 && levels+=(SSE41)
  has avx && levels+=(AVX)
  has avx2 && levels+=(AVX2)
  has avx512f avx512bw avx512vl avx512dq && levels+=(AVX512_CORE)
  has avx512f avx512_vnni && levels+=(AVX512_CORE_VNNI)
  has avx512f avx512_bf16 && levels+=(AVX512_CORE_BF16)
  has amx_tile amx_bf16 && levels+=(AVX512_CORE_AMX)
  levels+=(ALL)
fi

reports=engine/target/surefire-reports
failed=()
for level in "${levels[@]}"; do
  echo "== DNNL_MAX_CPU_ISA=$level: $tests"
  rm -f "$reports"/*.dumpstream
  verbose=0
  [[ "${KERNELS:-0}" == 1 ]] && verbose=1
  if DNNL_MAX_CPU_ISA="$level" ONEDNN_MAX_CPU_ISA="$level" DNNL_VERBOSE=$verbose ONEDNN_VERBOSE=$verbose \
      mvn -B -ntp -q -o -pl engine test -Dtest="$tests" -Dsurefire.failIfNoSpecifiedTests=false; then
    echo "   passed"
  else
    echo "   FAILED (details in $reports)"
    failed+=("$level")
  fi
  # oneDNN prints to the test JVM's stdout, which surefire keeps in a .dumpstream file
  if [[ $verbose == 1 ]] && ls "$reports"/*.dumpstream > /dev/null 2>&1; then
    grep -aho 'dnnl_verbose,info,cpu,isa:[^'"'"']*' "$reports"/*.dumpstream | sort -u | sed 's/^/   /'
    grep -aho 'dnnl_verbose,exec,cpu,convolution,.*' "$reports"/*.dumpstream \
      | awk -F, '{ split($10, p, "_"); print "   " $5 "  " $6 "  " p[1] "_" p[2] }' | sort | uniq -c | sort -k2,2 -k3,3 -k4,4
  fi
done
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "failed under: ${failed[*]}"
  exit 1
fi
echo "passed under: ${levels[*]}"
