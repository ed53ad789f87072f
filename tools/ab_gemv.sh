#!/usr/bin/env bash
# Same-run A/B of GEMV variants on the GPU: `fastmv bench gemv` once per variant and pass,
# the variants interleaved within each pass (so that drift between passes hits all of
# them alike), each run with cuBLAS beside it; then tools/ab_gemv.py compares the
# medians per point.
#
#   tools/ab_gemv.sh OUTDIR PASSES VARIANT... -- BENCH_ARGS...
#
# A VARIANT is LABEL=POLICY[@LIBDIR]: FASTMV_CUDA_GEMV_POLICY=POLICY (may be empty) and,
# with @LIBDIR, another build's libfastmv first on LD_LIBRARY_PATH (the same binary
# against two libraries: old code against new). FASTMV_BIN names the fastmv binary
# (default build-gpu/tools/fastmv/fastmv). Example:
#
#   tools/ab_gemv.sh out/ab 3 main=@old/lib new= off=axpy_masked_select=0 -- \
#     --dtype float,bf16 --layout col --op N --sizes 256,257,264,512,513,520
set -uo pipefail
if [ $# -lt 4 ]; then sed -n 2,16p "$0"; exit 2; fi
out=$1 passes=$2; shift 2
variants=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do variants+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
bin=${FASTMV_BIN:-build-gpu/tools/fastmv/fastmv}
mkdir -p "$out"
status=0
for ((p = 1; p <= passes; ++p)); do
  for v in "${variants[@]}"; do
    label=${v%%=*} rest=${v#*=}
    policy=${rest%%@*} lib=""
    [[ $rest == *@* ]] && lib=${rest#*@}
    if ! env FASTMV_CUDA_GEMV_POLICY="$policy" LD_LIBRARY_PATH="${lib:+$lib:}${LD_LIBRARY_PATH:-}" \
      "$bin" bench gemv --backend cuda --rounds 1 --no-progress --csv "$out/${label}_$p.csv" "$@" \
      >"$out/${label}_$p.log" 2>&1; then
      echo "ab_gemv: $label pass $p failed (see $out/${label}_$p.log)" >&2
      status=1
    fi
  done
done
labels=()
for v in "${variants[@]}"; do labels+=("${v%%=*}"); done
python3 "$(dirname "$0")/ab_gemv.py" "$out" "${labels[@]}" | tee "$out/summary.txt"
exit $status
