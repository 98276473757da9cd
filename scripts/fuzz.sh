#!/usr/bin/env bash
# Build the libFuzzer targets (clang, tests/fuzz) and run each for SECONDS on a corpus seeded from
# the fixtures, after replaying every reproducer of ../shared/fixtures/bad-inputs as a regression.
# Usage: scripts/fuzz.sh [SECONDS] [BUILD_DIR]   (make fuzz; make test runs it for 20 s each)
# FUZZ_TARGETS="ncu table" limits the fuzzing (not the replay) to some targets.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-60}
B=${2:-build-fuzz}
FIX=${ROOFTIME_FIXTURES:-$PWD/../shared/fixtures}
export ROOFTIME_DATADIR=$PWD/data
if ! command -v clang >/dev/null; then
    echo "rooftime: fuzz: clang not found (Debian clang, libclang-rt-14-dev)" >&2
    exit 1
fi
CC=clang cmake -S . -B "$B" -DROOFTIME_FUZZ=ON -DROOFTIME_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$B" -j "$(nproc)" >/dev/null

# Seed corpora: importer targets read a flag byte first (0: default options).
seed() { # TARGET FILE [RAW]
    local dir=$B/corpus/$1
    mkdir -p "$dir"
    local out=$dir/$(basename "$2")
    if [ "${3:-}" = raw ]; then cp "$2" "$out"; else { printf '\0'; cat "$2"; } >"$out"; fi
}
rm -rf "$B/corpus" "$B/regress"
for f in tests/data/*.log; do seed onednn "$f"; done
for f in tests/data/*.json; do seed torch "$f"; done
# The table importer's bad inputs in the tree (sums and FLOPs / AI past the limits) as seeds.
for f in tests/data/bad-inputs/table-*.csv; do seed table "$f"; done
for f in data/examples/*.json; do seed profile "$f" raw; seed render "$f" raw; done
for f in data/machines/*.json; do seed machine "$f" raw; done
# A profile whose kernels name the overhead their own calls pay (kernels[].overhead, docs/model.md).
printf '%s' '{"schema": "rooftime.profile/1", "source": {"time": "wall", "overhead": "openmp_fork_join"}, "kernels": [{"name": "region", "invocations": 2, "time": 2e-6, "overhead": "openmp_fork_join", "overhead_threads": 2, "flops": {"fp32": 10}, "bytes": {"DRAM": 8}}, {"name": "loop", "invocations": 1, "time": 1e-7, "overhead": "none", "flops": {"fp32": 4}, "bytes": {"L1": 16}}, {"name": "primitive", "invocations": 1, "time": 3e-6}]}' >"$B/corpus/profile/overhead-paths.json"
cp "$B/corpus/profile/overhead-paths.json" "$B/corpus/render/overhead-paths.json"
seed metrics data/ncu/metrics.json raw
# The field locator: a path, a newline, a document.
mkdir -p "$B/corpus/json-locate"
for f in data/examples/*.json; do
    { printf 'kernels[1].flops.fp32\n'; cat "$f"; } >"$B/corpus/json-locate/$(basename "$f")"
done
{ printf 'levels[0].bytes_per_s\n'; cat data/machines/v100.json; } >"$B/corpus/json-locate/v100.json"
seed torchops data/torch/ops.json raw
seed hints data/torch/hints.json raw
seed verdict-hints data/verdict-hints.json raw
for f in tests/data/torch-*.json; do # the same traces through the cost model
    mkdir -p "$B/corpus/torch"
    { printf '\2'; cat "$f"; } >"$B/corpus/torch/model-$(basename "$f")"
done
# GPU runs' traces as users keep them (gzip), and decompressed: the device profile with the cost
# model and the communication patterns, and the host operators
for f in "$FIX"/torch-gpu/*.json.gz; do
    [ -f "$f" ] || continue
    mkdir -p "$B/corpus/torch"
    n=$(basename "$f" .json.gz)
    { printf '\22'; cat "$f"; } >"$B/corpus/torch/gpu-gz-$n"
    { printf '\22'; gunzip -c "$f"; } >"$B/corpus/torch/gpu-$n.json"
    { printf '\12'; gunzip -c "$f"; } >"$B/corpus/torch/gpu-host-$n.json"
done
seed comm data/comm/kernels.json raw
# A collector directory as one input (tests/fuzz/fuzz-cupti.c): a trace process and a counter one.
mkdir -p "$B/corpus/cupti"
MET=sm__cycles_elapsed.avg,sm__cycles_elapsed.avg.per_second,sm__sass_thread_inst_executed_op_ffma_pred_on.sum,dram__bytes.sum,lts__t_bytes.sum
C='format=rooftime.cupti/1\npid=%s\nstarted_ns=%s\ncupti_version=130001\ndevice=GPU\ncc=90\nchip=GH100\n'
{
    printf '\0'; printf "$C" 1 100; printf 'mode=trace\nend=ok\n=====\n'
    printf 'correlation,name,start_ns,end_ns,device,context,stream,graph,grid_x,grid_y,grid_z,block_x,block_y,block_z,registers,shared_static,shared_dynamic\n'
    printf '3,k,0,1000,0,1,7,0,10,1,1,128,1,1,32,0,0\n4,"g<1, 2>",1000,1500,0,1,7,9,4,2,1,256,1,1,32,0,0\n=====\n'
    printf 'correlation,api,start_ns,end_ns,thread,name\n3,cudaLaunchKernel,0,4000,11,k\n=====\n'
    printf "$C" 2 200; printf 'mode=counters\nend=ok\n=====\n'
    printf 'range,name,%s\n0,k,1000,1e9,100,4096,8192\n1,"g<1, 2>",500,1e9,0,64,128\n' "$MET"
} >"$B/corpus/cupti/trace-and-counters"
# The same with marks in both processes (marks.1.csv, marks.2.csv).
{
    cat "$B/corpus/cupti/trace-and-counters"
    printf '\n=====\nseq,correlation,ranges,time_ns,tags\n0,2,0,5,pass=forward;batch=16\n1,3,0,9,\n'
    printf '=====\nseq,correlation,ranges,time_ns,tags\n0,0,0,5,"note=a, b;pass=backward;"\n1,9,1,7,x=1\n'
} >"$B/corpus/cupti/trace-and-counters-marks"
if [ -d "$FIX" ]; then
    for f in "$FIX"/ncu/deepcam-pytorch-fp32-fw/out.* "$FIX"/ncu/gpp-ncu2021/raw.csv; do
        [ -f "$f" ] && head -c 200000 "$f" >"$B/seedtmp" && seed ncu "$B/seedtmp" && mv "$B/corpus/ncu/seedtmp" "$B/corpus/ncu/$(basename "$(dirname "$f")")-$(basename "$f")"
    done
    # ncu 2025 (rule columns and rows, scaled units, n/a, section pages), with --allow-missing.
    for f in "$FIX"/ncu/sm120-llm-decode/*.csv; do
        [ -f "$f" ] && { printf '\2'; cat "$f"; } >"$B/corpus/ncu/sm120-$(basename "$f")"
    done
    # Two one-metric files (flag bit 2, split at "\n\n\n") whose launch orders differ: the second
    # lists the same 20 launches in reverse, renumbered, so they join per kernel name.
    A=$FIX/ncu/deepcam-pytorch-fp32-fw/out.sm__cycles_elapsed.avg
    if [ -f "$A" ] && [ -f "$A.per_second" ]; then
        { printf '\4'; grep -m1 '^"ID"' "$A"; grep '^"[0-9]' "$A" | sed -n 1,20p; printf '\n\n\n'
          grep -m1 '^"ID"' "$A.per_second"; grep '^"[0-9]' "$A.per_second" | sed -n 1,20p | tac |
              awk -F, 'BEGIN { OFS = "," } { $1 = "\"" NR - 1 "\""; print }'; } >"$B/corpus/ncu/reordered-two-files"
    fi
    for f in "$FIX"/paper-tables/*.csv; do seed table "$f"; done
else
    echo "rooftime: fuzz: no fixtures at $FIX: ncu and table start from tiny seeds" >&2
    printf '\0"ID","Process ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n' >"$B/corpus/ncu.seed" 2>/dev/null || true
fi
# ncu 2025's layout with what the fixture lacks: n/a on a metric a formula reads, a mangled name
# (nvcc's, tests/data/kernel-names), a rule row, a section page's label column; the paper recipe.
mkdir -p "$B/corpus/ncu"
H='"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Body Item Label","Metric Name","Metric Unit","Metric Value","Rule Name","Rule Type","Rule Description","Estimated Speedup Type","Estimated Speedup"'
K=_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_
{
    printf '\12%s\n' "$H"
    for id in 0 1; do
        R="\"$id\",\"7\",\"p\",\"h\",\"$K\",\"1\",\"7\",\"(1, 1, 1)\",\"(2, 1, 1)\",\"0\",\"12.0\",\"S\",\"\""
        printf '%s,"gpu__time_duration.sum","us","1.25",\n' "$R"
        printf '%s,"dram__bytes_read.sum","Kbyte","4.10",\n' "$R"
        printf '%s,"dram__bytes_write.sum","byte","0",\n' "$R"
        printf '%s,"sm__sass_thread_inst_executed_op_hfma_pred_on.sum","inst","%s",\n' "$R" "$([ $id = 1 ] && echo n/a || echo 8)"
        printf '%s,"","","","SOLBottleneck","OPT","a rule, with a comma","",""\n' "$R"
    done
} >"$B/corpus/ncu/ncu2025-mangled-na"
# Kernel names for the demangler and the name key: nvcc's mangled names (tests/data/kernel-names),
# the collector's and ncu's printings, and a short name whose back-references double at each step.
mkdir -p "$B/corpus/names"
printf '%s' "$K" >"$B/corpus/names/torch-mangled"
printf '%s' _Z6kernelIii13__nv_bfloat16S0_S0_fLb0ELi1ELi1ELi0ELi7ELi0E18cublasGemvParamsExIi30cublasGemvTensorStridedBatchedIKS0_ES4_S2_IS0_EfEENSt9enable_ifIXntT5_EvE4typeET11_ >"$B/corpus/names/gemv-mangled"
printf '%s' 'void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)' >"$B/corpus/names/cxa"
printf '%s' 'enable_if<!T7, void>::type kernel<int, float, 0, cublasGemvParamsEx<int, const __nv_bfloat16>>(T13)' >"$B/corpus/names/ncu"
printf '%s' '_Z1fI1AIiiES_IS0_S0_ES_IS1_S1_ES_IS2_S2_ES_IS3_S3_ES_IS4_S4_EEvT_' >"$B/corpus/names/doubling"
for t in ncu table; do
    mkdir -p "$B/corpus/$t"
    [ -n "$(ls "$B/corpus/$t")" ] || printf '\0a,b\n1,2\n' >"$B/corpus/$t/tiny"
done

# Regression: the in-tree reproducers (tests/fuzz/reproducers, TARGET.NAME, flag byte first), then
# every bad input of the fixtures, each through its target (run once, no fuzzing).
for f in tests/fuzz/reproducers/*.*; do
    name=$(basename "$f")
    t=${name%%.*}
    [ "$name" = README.md ] && continue
    echo "regress: $name -> fuzz-$t"
    "$B/fuzz-$t" "$f" >"$B/regress-$name.log" 2>&1 || {
        tail -20 "$B/regress-$name.log"
        echo "rooftime: fuzz: fuzz-$t fails on reproducer $name" >&2
        exit 1
    }
done
if [ -d "$FIX/bad-inputs" ]; then
    mkdir -p "$B/regress"
    for f in "$FIX"/bad-inputs/*; do
        name=$(basename "$f")
        case $name in
        *.md) continue ;;
        svg-*) t=render ;; *ncumap*) t=metrics ;; *torchops*) t=torchops ;; *hints*) t=hints ;; *ncu*) t=ncu ;; *onednn*) t=onednn ;;
        *table*) t=table ;; *torch*) t=torch ;; *cupti*) t=cupti ;; *) continue ;;
        esac
        case $name in
        *.bin | svg-* | leak-*) cp "$f" "$B/regress/$t.$name" ;;
        *) { printf '\0'; cat "$f"; } >"$B/regress/$t.$name" ;;
        esac
        echo "regress: $name -> fuzz-$t"
        "$B/fuzz-$t" "$B/regress/$t.$name" >"$B/regress/$t.$name.log" 2>&1 || {
            tail -20 "$B/regress/$t.$name.log"
            echo "rooftime: fuzz: fuzz-$t fails on bad input $name" >&2
            exit 1
        }
    done
fi

# Fuzz each target for SECONDS_EACH; a crash, leak, timeout or out-of-memory fails the run.
TARGETS=${FUZZ_TARGETS:-ncu table onednn torch torchops hints profile machine metrics render verdict-hints comm cupti json-locate names}
for t in $TARGETS; do
    mkdir -p "$B/corpus/$t" "$B/artifacts/$t"
    echo "fuzz-$t: ${SECONDS_EACH} s"
    "$B/fuzz-$t" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        -print_final_stats=1 -artifact_prefix="$B/artifacts/$t/" "$B/corpus/$t" \
        >"$B/fuzz-$t.log" 2>&1 || {
        tail -40 "$B/fuzz-$t.log"
        echo "rooftime: fuzz: fuzz-$t found a failure (see $B/artifacts/$t)" >&2
        exit 1
    }
    grep -E "stat::number_of_executed_units|cov:" "$B/fuzz-$t.log" | tail -2 | tr '\n' ' '
    echo
done
echo "fuzz: every target ran ${SECONDS_EACH} s with no finding"
echo "fuzz: $(echo $TARGETS | wc -w) passed, 0 failed"
