#!/bin/bash
# Issue 24's acceptance run on a machine with an NVIDIA GPU, in one command (docs/gpu-measure.md):
#
#   scripts/gpu-acceptance.sh OUTDIR
#
# Stages, each time-boxed, the whole within 8 minutes:
#   measure    rooftime machine measure --gpu (wgmma ceilings at >= 0.9 of dense, at the clock
#              measured during the run)
#   selfcheck  machine measure --gpu --self-check: the probe's kernels and torch.matmul 8192^3
#              under the CUPTI collector against their known FLOPs and bytes
#   ncu-base / ncu-none   the same probe kernels under ncu, --cache-control all --clock-control
#              base and then none, imported and compared the same way (and the collector's HBM
#              bytes against each)
#   cnn        profile --gpu --counters of a small PyTorch CNN training step; ncu-cnn: the same
#              under ncu, the five longest kernels compared
#   report     rooftime report of the CNN profile on the measured machine
# OUTDIR gets gpu-acceptance.json (GPU name, driver, date; per check its figure, bound and
# "pass"), summary.txt, evidence.tar.gz (ncu CSVs, collector directories, profiles, manifests,
# machine file, logs) and images.tar.gz (the collector's raw counter images; split in 15 MiB parts
# when larger): at most 8 files, the shape the device tool brings back.
# Exit 0 when every check passes, 1 otherwise or when something it needs is missing (one line
# naming it), 2 on a usage error.
#
# rooftime: $ROOFTIME_BIN, else .carry/rooftime/bin/rooftime (scripts/gpu-carry.sh), else
# build/rooftime. python3 must be the one with PyTorch ($ROOFTIME_PYTHON overrides).
set -u
T0=$SECONDS
BUDGET=${GPU_ACCEPTANCE_BUDGET:-470} # seconds for all stages; 8 minutes with the packing
die() {
    echo "gpu-acceptance: $*" >&2
    exit 1
}
[ $# -eq 1 ] && [ -n "$1" ] || {
    echo "usage: scripts/gpu-acceptance.sh OUTDIR" >&2
    exit 2
}
OUT=$1
ROOT=$(cd "$(dirname "$0")/.." && pwd)

command -v nvidia-smi >/dev/null 2>&1 || die "no NVIDIA GPU: nvidia-smi not found"
GPU_LINE=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
[ -n "$GPU_LINE" ] || die "no NVIDIA GPU: nvidia-smi lists none"
BIN=${ROOFTIME_BIN:-}
if [ -z "$BIN" ]; then
    for b in "$ROOT/.carry/rooftime/bin/rooftime" "$ROOT/build/rooftime"; do
        [ -f "$b" ] && [ ! -x "$b" ] && chmod u+x "$b" 2>/dev/null # a carry that lost the mode
        [ -x "$b" ] && BIN=$b && break
    done
fi
[ -n "$BIN" ] && [ -x "$BIN" ] ||
    die "no rooftime binary: run scripts/gpu-carry.sh on a machine with the build dependencies and carry .carry (or set ROOFTIME_BIN)"
PY=${ROOFTIME_PYTHON:-$(command -v python3 || true)}
[ -n "$PY" ] || die "no python3 (it assembles gpu-acceptance.json)"
NCU_LD=${LD_LIBRARY_PATH:-} # what ncu's runs get: never the carried CUPTI (below)
case "$BIN" in
*/.carry/*)
    CARRY_LIB="$(dirname "$(dirname "$BIN")")/lib"
    export LD_LIBRARY_PATH="$CARRY_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    ;;
esac
export ROOFTIME_DATADIR=${ROOFTIME_DATADIR:-$ROOT/data}
export ROOFTIME_PYTHON=$PY
mkdir -p "$OUT" || die "cannot create $OUT"
OUT=$(cd "$OUT" && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/gpu-acceptance-XXXXXX") || die "cannot create a work directory"
E=$W/evidence
mkdir -p "$E"
# ncu injects its own CUPTI and perfworks (libnvperf_*) into the program it profiles: the carried
# libcupti.so.13 and libnvperf_*.so (CUDA 13.0's, for the collector) must not come first on the
# loader's path there. ncu's runs get the carried libraries but those (rooftime needs jansson).
if [ -n "${CARRY_LIB:-}" ]; then
    mkdir -p "$W/ncu-lib"
    for f in "$CARRY_LIB"/*; do
        case "${f##*/}" in
        libcupti* | libnvperf*) ;;
        *) ln -s "$f" "$W/ncu-lib/" ;;
        esac
    done
    NCU_LD="$W/ncu-lib${NCU_LD:+:$NCU_LD}"
fi
: >"$W/stages.tsv"

# stage NAME BOX CMD...: run with a time box (the smaller of BOX and what is left of the budget),
# output to evidence/NAME.log; one line in stages.tsv: name, exit code, seconds.
stage() {
    local name=$1 box=$2
    shift 2
    local left=$((BUDGET - (SECONDS - T0)))
    [ "$box" -gt "$left" ] && box=$left
    if [ "$box" -lt 5 ]; then
        printf '%s\t124\t0\tno time left in the %ss budget\n' "$name" "$BUDGET" >>"$W/stages.tsv"
        echo "gpu-acceptance: $name: skipped, no time left" >&2
        return 124
    fi
    local s=$SECONDS rc
    echo "gpu-acceptance: $name (at most ${box}s)" >&2
    timeout -k 10 "$box" "$@" >"$E/$name.log" 2>&1
    rc=$?
    printf '%s\t%d\t%d\t%s\n' "$name" "$rc" $((SECONDS - s)) "$*" >>"$W/stages.tsv"
    [ "$rc" -eq 0 ] || echo "gpu-acceptance: $name: exit $rc (see $name.log)" >&2
    return "$rc"
}

# The metric list the importer reads (data/ncu/metrics.json, throughput set, this GPU).
CC=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' .')
# ncu-metrics prints the names one per line among comments and sample shell lines: the names only.
METRICS=$("$BIN" ncu-metrics --arch "sm_${CC:-90}" 2>/dev/null |
    grep -E '^[a-z0-9]+__[A-Za-z0-9_.]+$' | paste -sd, -)
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /usr/local/cuda/nsight-compute-*/ncu \
    /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)

# ncu's CSV report: in the --log-file (tool output) or on stdout beside the program's output,
# depending on the version; take the file that holds the table's header.
pick_csv() { # pick_csv DEST FILE...
    local dest=$1 f
    shift
    for f in "$@"; do
        if [ -s "$f" ] && grep -q '^"ID","Process ID"' "$f"; then
            cp "$f" "$dest"
            return 0
        fi
    done
    echo "gpu-acceptance: no ncu CSV table in $*" >&2
    return 1
}

stage measure 150 "$BIN" machine measure --gpu -o "$E/machine.json"
stage selfcheck 180 "$BIN" machine measure --gpu --self-check --keep-dir "$E/selfcheck" \
    -o "$E/selfcheck.json"
for mode in base none; do
    if [ -z "$NCU" ]; then
        printf 'ncu-%s\t127\t0\tncu not found\n' "$mode" >>"$W/stages.tsv"
        continue
    fi
    if [ "$mode" = base ]; then ctl="--cache-control all --clock-control base"; else ctl="--cache-control none --clock-control none"; fi
    # shellcheck disable=SC2086
    stage "ncu-$mode" 90 env LD_LIBRARY_PATH="$NCU_LD" "$NCU" --csv $ctl --metrics "$METRICS" --log-file "$E/ncu-$mode.tool.log" \
        "$BIN" machine selfcheck-kernels --manifest "$E/ncu-$mode.tsv" &&
        pick_csv "$E/ncu-probe-$mode.csv" "$E/ncu-$mode.tool.log" "$E/ncu-$mode.log" &&
        stage "import-ncu-$mode" 30 "$BIN" import ncu "$E/ncu-probe-$mode.csv" -o "$E/ncu-probe-$mode.json" &&
        stage "compare-ncu-$mode" 20 "$BIN" machine selfcheck-compare "$E/ncu-$mode.tsv" \
            "$E/ncu-probe-$mode.json" -o "$E/ncu-$mode-check.json"
done
stage cnn 90 "$BIN" profile --gpu --counters --no-keep-images --keep-dir "$E/cnn.cupti" -o "$E/cnn.json" -- \
    "$PY" "$ROOT/scripts/gpu-cnn-step.py"
if [ -n "$NCU" ]; then
    stage ncu-cnn 120 env LD_LIBRARY_PATH="$NCU_LD" "$NCU" --csv --metrics "$METRICS" --log-file "$E/ncu-cnn.tool.log" \
        "$PY" "$ROOT/scripts/gpu-cnn-step.py" &&
        pick_csv "$E/ncu-cnn.csv" "$E/ncu-cnn.tool.log" "$E/ncu-cnn.log" &&
        stage import-ncu-cnn 30 "$BIN" import ncu "$E/ncu-cnn.csv" -o "$E/ncu-cnn.json"
else
    printf 'ncu-cnn\t127\t0\tncu not found\n' >>"$W/stages.tsv"
fi
if [ -s "$E/machine.json" ] && [ -s "$E/cnn.json" ]; then
    stage report 40 "$BIN" report --machine "$E/machine.json" --mode hier -o "$E/report" "$E/cnn.json"
else
    printf 'report\t1\t0\tno machine file or CNN profile to report on\n' >>"$W/stages.tsv"
fi

"$PY" "$ROOT/scripts/gpu-acceptance-eval.py" --work "$W" --gpu "$GPU_LINE" \
    --archs "$ROOFTIME_DATADIR/gpu/architectures.json" --out "$OUT"
verdict=$?
[ "$verdict" -eq 0 ] || [ "$verdict" -eq 10 ] ||
    die "cannot assemble gpu-acceptance.json (scripts/gpu-acceptance-eval.py exit $verdict)"
# The device tool brings back at most 8 files of 16 MiB: the raw counter images (*.bin, about 240 KB
# per launch) go into images.tar.gz, split into 15 MiB parts (at most 4) when larger.
tar -C "$W" --exclude='*.bin' -czf "$OUT/evidence.tar.gz" evidence stages.tsv ||
    die "cannot pack $OUT/evidence.tar.gz"
(cd "$W" && find evidence -name '*.bin' | sort) >"$W/images.txt"
if [ -s "$W/images.txt" ]; then
    tar -C "$W" -czf "$W/images.tar.gz" -T "$W/images.txt" || die "cannot pack the counter images"
    if [ "$(stat -c %s "$W/images.tar.gz")" -le $((15 << 20)) ]; then
        mv "$W/images.tar.gz" "$OUT/"
    else
        split -b 15M -d -a 1 "$W/images.tar.gz" "$W/images.tar.gz.part"
        if [ "$(ls "$W"/images.tar.gz.part* | wc -l)" -le 4 ]; then
            mv "$W"/images.tar.gz.part* "$OUT/"
            echo "counter images: images.tar.gz.part0.. (cat them, then tar -xzf)" >>"$OUT/summary.txt"
        else
            echo "counter images: over 60 MiB packed, not kept" >>"$OUT/summary.txt"
        fi
    fi
fi
rm -rf "$W"
cat "$OUT/summary.txt"
echo "gpu-acceptance: $((SECONDS - T0)) s; in $OUT: $(ls "$OUT" | paste -sd' ' -)" >&2
[ "$verdict" -eq 0 ]
