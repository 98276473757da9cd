#!/bin/bash
# The GPU acceptance run on a machine with an NVIDIA GPU (issue 43; docs/gpu-measure.md), one
# command per device call:
#
#   scripts/gpu-acceptance.sh OUTDIR
#
# Stage groups, in this order, each stage under its own time box (seconds):
#   measure    machine measure --gpu (30): the ceilings, wgmma at >= 0.9 of dense at the measured clock
#   selfcheck  machine measure --gpu --self-check (45): the probe's kernels and torch.matmul 8192^3
#              in fp32, tf32, fp16 and bf16 under the CUPTI collector against their known work
#   ncu-base   the probe's kernels under ncu --cache-control all (ncu's default, caches flushed
#              before each pass) (25), import ncu (3), selfcheck-compare (3)
#   ncu-none   the same with --cache-control none (20, 3, 3)
#   cnn        profile --gpu --counters of one step of a small CNN training (30)
#   ncu-cnn    the same step under ncu (45), import ncu (3)
#   python     rooftime.gpu.profile() and rooftime.torch.profile() around that step (25)
#   study      study --gpu --quick, one operation and two precisions (90, or all that is left but
#              the report's box when more; on the measured machine, else this GPU's preset)
#   report     report --mode hier of the CNN step on the measured machine (5)
# The boxes add up to 330 s, within GPU_ACCEPTANCE_BUDGET (default 340 s, counted from the start),
# and the script ends within a 360 s device call with the packing: a slow stage never takes a later
# stage's time. Every ncu run leaves the GPU's clocks as they are (--clock-control none): the lent
# GPU machines must not have their settings changed, and ncu's default (base) locks the clocks.
# GPU_ACCEPTANCE_NCU_CLOCK=base asks for ncu's default where that is allowed; when base cannot lock
# them (a VM), the stage runs again with none in what is left of its box. An ncu that cannot read
# the counters at all (ERR_NVGPUCTRPERM, a profiler that does not initialise) is said once
# (evidence/ncu.denied) and the later ncu stages are skipped, not run to the same end.
# Every stage is recorded (stages.tsv: name, exit code, seconds, what ran): 0 ran, 124 or 137
# timed out, 127 not found, -1 skipped (its input is missing: the line says which), else failed.
#
# OUTDIR gets evidence.tar.gz (every stage's log, the ncu CSVs, collector directories, profiles,
# manifests, the machine file, stages.tsv), packed again after each group, so that whatever
# happens later the evidence so far is there; images.tar.gz (the self-check's raw counter images;
# 15 MiB parts when larger); then, evaluated from the packed evidence, gpu-acceptance.json (GPU,
# driver, date; per check its figure, bound and "pass") and summary.txt. At most 8 files, the
# shape the device tool brings back. Exit 0 when every check passes, 1 otherwise or when
# something it needs is missing (one line naming it), 2 on a usage error.
#
# Environment: GPU_ACCEPTANCE_STAGES, the groups to run (default all; a later call reruns the
# ones that failed: "measure study"); GPU_ACCEPTANCE_BOX_<group> (dashes as underscores) another
# box for every stage of a group; GPU_ACCEPTANCE_STUDY, the study's options (default below);
# GPU_ACCEPTANCE_BUDGET; GPU_ACCEPTANCE_NCU_CLOCK (none, or base); GPU_ACCEPTANCE_MEASURE, more
# options of measure (--skip-family wgmma after call 1's measure.log ended in a wgmma stage: its
# lines say the stage each began, so a kernel that never ends is named). The boxes of the selected
# groups must add up to at most the budget.
# GPU_ACCEPTANCE_SLOW=N stretches boxes and budget N times, for the rehearsal on a slow machine.
# rooftime: $ROOFTIME_BIN, else .carry/rooftime/bin/rooftime (scripts/gpu-carry.sh), else
# build/rooftime; python3 must be the one with PyTorch ($ROOFTIME_PYTHON overrides).
set -u
T0=$SECONDS
BUDGET=${GPU_ACCEPTANCE_BUDGET:-340}
ALL_GROUPS="measure selfcheck ncu-base ncu-none cnn ncu-cnn python study report"
STUDY_ARGS=${GPU_ACCEPTANCE_STUDY:---quick --op conv2d --precision fp32,bf16 --framework pytorch --no-ncu --client-timeout 25}
NCU_CLOCK=${GPU_ACCEPTANCE_NCU_CLOCK:-none}
die() {
    echo "gpu-acceptance: $*" >&2
    exit 1
}
usage() {
    echo "gpu-acceptance: $*" >&2
    exit 2
}
[ $# -eq 1 ] && [ -n "$1" ] || usage "usage: scripts/gpu-acceptance.sh OUTDIR"
OUT=$1
ROOT=$(cd "$(dirname "$0")/.." && pwd)
case $BUDGET in '' | *[!0-9]*) usage "GPU_ACCEPTANCE_BUDGET: seconds, got '$BUDGET'" ;; esac
case $NCU_CLOCK in none | base) ;; *) usage "GPU_ACCEPTANCE_NCU_CLOCK: none or base, got '$NCU_CLOCK'" ;; esac
# GPU_ACCEPTANCE_SLOW=N: every box and the budget N times as long, for a slower machine than the
# lent GPUs (tests/cli-gpu-rehearsal.sh on a loaded 2-core VM); never in a device call
SLOW=${GPU_ACCEPTANCE_SLOW:-1}
case $SLOW in [1-9] | [1-9][0-9]) ;; *) usage "GPU_ACCEPTANCE_SLOW: a factor from 1 to 99, got '$SLOW'" ;; esac

# The groups and the boxes of their stages; the selection and its sum against the budget.
box() { # box GROUP DEFAULT: the box of a group's stages
    local v="GPU_ACCEPTANCE_BOX_${1//-/_}"
    echo "${!v:-$2}"
}
declare -A BOXES=(
    [measure]="measure:$(box measure 30)"
    [selfcheck]="selfcheck:$(box selfcheck 45)"
    [ncu-base]="ncu-base:$(box ncu-base 25) import-ncu-base:3 compare-ncu-base:3"
    [ncu-none]="ncu-none:$(box ncu-none 20) import-ncu-none:3 compare-ncu-none:3"
    [cnn]="cnn:$(box cnn 30)"
    [ncu-cnn]="ncu-cnn:$(box ncu-cnn 45) import-ncu-cnn:3"
    [python]="python:$(box python 25)"
    [study]="study:$(box study 90)"
    [report]="report:$(box report 5)"
)
GROUPS_RUN=""
for g in ${GPU_ACCEPTANCE_STAGES:-$ALL_GROUPS}; do
    g=${g//,/}
    [ -n "$g" ] || continue
    [ -n "${BOXES[$g]:-}" ] || usage "GPU_ACCEPTANCE_STAGES: unknown group '$g' (known: $ALL_GROUPS)"
    GROUPS_RUN="$GROUPS_RUN $g"
done
GROUPS_RUN=${GROUPS_RUN# }
[ -n "$GROUPS_RUN" ] || usage "GPU_ACCEPTANCE_STAGES: no group selected"
SUM=0
for g in $GROUPS_RUN; do
    for s in ${BOXES[$g]}; do
        b=${s#*:}
        case $b in '' | *[!0-9]*) usage "GPU_ACCEPTANCE_BOX_${g//-/_}: seconds, got '$b'" ;; esac
        SUM=$((SUM + b))
    done
done
[ "$SUM" -le "$BUDGET" ] ||
    usage "the stage boxes of '$GROUPS_RUN' add up to ${SUM} s, over the ${BUDGET} s budget (GPU_ACCEPTANCE_BUDGET)"
SLOW_NOTE=""
[ "$SLOW" -gt 1 ] && SLOW_NOTE=", each x$SLOW (GPU_ACCEPTANCE_SLOW)"
sel() { [[ " $GROUPS_RUN " == *" $1 "* ]]; }
boxof() { # boxof STAGE
    local g s
    for g in $GROUPS_RUN; do
        for s in ${BOXES[$g]}; do [ "${s%%:*}" = "$1" ] && echo $((${s#*:} * SLOW)) && return; done
    done
    echo $((5 * SLOW))
}

command -v nvidia-smi >/dev/null 2>&1 || die "no NVIDIA GPU: nvidia-smi not found"
# One query, under a time-out: a GPU in a bad state can hang nvidia-smi, and nothing before the
# first stage is boxed. Name, driver, compute capability, persistence mode, SM clock now and max.
SMI=$(timeout -k 2 30 nvidia-smi --query-gpu=name,driver_version,compute_cap,persistence_mode,clocks.sm,clocks.max.sm \
    --format=csv,noheader 2>/dev/null | head -1)
# a driver that knows no such field refuses the whole query: then the two that every one knows
[ -n "$SMI" ] || SMI=$(timeout -k 2 30 nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)
IFS=, read -r GPU_NAME GPU_DRIVER CC GPU_PM GPU_SM GPU_SM_MAX <<<"$SMI"
GPU_NAME=$(echo "${GPU_NAME:-}" | sed 's/^ *//; s/ *$//')
GPU_DRIVER=$(echo "${GPU_DRIVER:-}" | tr -d ' ')
CC=$(echo "${CC:-}" | tr -d ' ')
[ -n "$GPU_NAME" ] || die "no NVIDIA GPU: nvidia-smi lists none (or did not answer in 30 s)"
GPU_LINE="$GPU_NAME, $GPU_DRIVER"
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
BIN_DIR=$(dirname "$BIN")
case "$BIN" in
*/.carry/*)
    CARRY_LIB="$(dirname "$BIN_DIR")/lib"
    export LD_LIBRARY_PATH="$CARRY_LIB${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    ;;
esac
# the Python package's library: the carried (or built) librooftime.so beside the binary
[ -z "${ROOFTIME_LIB:-}" ] && [ -f "$BIN_DIR/librooftime.so" ] && export ROOFTIME_LIB="$BIN_DIR/librooftime.so"
export ROOFTIME_DATADIR=${ROOFTIME_DATADIR:-$ROOT/data}
export ROOFTIME_PYTHON=$PY
# the study's ncu cross-check (when asked for) leaves the clocks as the acceptance's ncu runs do
STUDY_ARGS="$STUDY_ARGS --ncu-clock-control $NCU_CLOCK"
export PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
mkdir -p "$OUT" || die "cannot create $OUT"
OUT=$(cd "$OUT" && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/gpu-acceptance-XXXXXX") || die "cannot create a work directory"
E=$W/evidence
mkdir -p "$E"
: >"$W/stages.tsv"
# pack: evidence.tar.gz in OUT now (atomically), in 15 MiB parts when larger (at most 3: with the
# images' 3, the JSON and the summary, the 8 files a device call brings back; beyond, said).
pack() {
    tar -C "$W" --exclude='*.bin' -czf "$W/evidence.tar.gz" evidence stages.tsv 2>/dev/null || {
        echo "gpu-acceptance: cannot pack the evidence" >&2
        return 1
    }
    rm -f "$OUT"/evidence.tar.gz.part* "$W/evidence.note"
    if [ "$(stat -c %s "$W/evidence.tar.gz")" -le $((15 << 20)) ]; then
        mv -f "$W/evidence.tar.gz" "$OUT/evidence.tar.gz"
    else
        rm -f "$OUT/evidence.tar.gz"
        split -b 15M -d -a 1 "$W/evidence.tar.gz" "$OUT/evidence.tar.gz.part"
        if [ -e "$OUT/evidence.tar.gz.part3" ]; then
            echo "evidence: over 45 MiB packed: only its first 45 MiB came back (parts 0-2)" >"$W/evidence.note"
        else
            echo "evidence: evidence.tar.gz.part0.. (cat them, then tar -xzf)" >"$W/evidence.note"
        fi
        rm -f "$W/evidence.tar.gz" "$OUT"/evidence.tar.gz.part[3-9]
    fi
}
# stopped from outside (the device call's limit): the evidence so far is packed first
# (the stage in flight runs in the background, waited for, so that the trap runs at once; its
# `timeout` leads a process group of its own, which the trap stops with everything under it)
STAGE_PID=""
stopped() {
    echo "gpu-acceptance: stopped by a signal; packing what there is" >&2
    [ -n "$STAGE_PID" ] && kill -TERM -- "-$STAGE_PID" 2>/dev/null
    [ -n "${WARM_PID:-}" ] && kill "$WARM_PID" 2>/dev/null
    printf "stopped\t143\t0\tby a signal after %d s\n" $((SECONDS - T0)) >>"$W/stages.tsv"
    pack
    exit 1
}
trap stopped TERM INT

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
TORCH_VERSION='
import importlib.util, os, sys
spec = importlib.util.find_spec("torch")
v = {}
if spec and spec.submodule_search_locations:
    with open(os.path.join(list(spec.submodule_search_locations)[0], "version.py")) as f:
        exec(f.read(), v)
print(sys.version.split()[0], "torch", v.get("__version__", "not found"), "CUDA", v.get("cuda"))
'
# what ran where; torch's version from its version.py, read without importing torch, which would
# spend seconds (many, the first time on a fresh machine) outside every box
{
    echo "gpu: $GPU_LINE"
    echo "gpu state: compute capability ${CC:-?}, persistence mode${GPU_PM:- ?}, SM clock${GPU_SM:- ?} (max${GPU_SM_MAX:- ?}); kernel $(uname -r)"
    echo "groups: $GROUPS_RUN"
    echo "boxes: $SUM s of the $BUDGET s budget$SLOW_NOTE; ncu --clock-control $NCU_CLOCK"
    echo "rooftime: $BIN ($(timeout -k 2 10 "$BIN" --version 2>&1 | head -1))"
    echo "python: $PY ($(timeout -k 2 20 "$PY" -c "$TORCH_VERSION" 2>&1 | tail -1))"
} >"$E/run.txt"
echo "gpu-acceptance: $GROUPS_RUN: stage boxes ${SUM} s of the ${BUDGET} s budget$SLOW_NOTE" >&2
BUDGET=$((BUDGET * SLOW))

# stage NAME CMD...: run with its box (the smaller of its box and what is left of the budget),
# output to evidence/NAME.log; one line in stages.tsv: name, exit code, seconds, the command.
stage() {
    local name=$1 box
    shift
    box=${STAGE_BOX:-$(boxof "$name")}
    local left=$((BUDGET - (SECONDS - T0)))
    [ "$box" -gt "$left" ] && box=$left
    if [ "$box" -lt 3 ]; then
        printf '%s\t124\t0\tno time left in the %ss budget\n' "$name" "$BUDGET" >>"$W/stages.tsv"
        echo "gpu-acceptance: $name: skipped, no time left" >&2
        return 124
    fi
    local s=$SECONDS rc
    echo "gpu-acceptance: [$((SECONDS - T0))s] $name (at most ${box}s)" >&2
    timeout -k 5 "$box" "$@" >"$E/$name.log" 2>&1 &
    STAGE_PID=$!
    wait "$STAGE_PID"
    rc=$?
    STAGE_PID=""
    printf '%s\t%d\t%d\t%s\n' "$name" "$rc" $((SECONDS - s)) "$*" >>"$W/stages.tsv"
    [ "$rc" -eq 0 ] || echo "gpu-acceptance: $name: exit $rc (see $name.log)" >&2
    return "$rc"
}
skip() { # skip NAME WHY: a stage that could not run, recorded
    printf '%s\t-1\t0\tskipped: %s\n' "$1" "$2" >>"$W/stages.tsv"
    echo "gpu-acceptance: $1: skipped: $2" >&2
}

# The metric list the importer reads (data/ncu/metrics.json, throughput set, this GPU).
CC=${CC//./}
# ncu-metrics prints the names one per line among comments and sample shell lines: the names only.
METRICS=$(timeout -k 2 10 "$BIN" ncu-metrics --arch "sm_${CC:-90}" 2>/dev/null |
    grep -E '^[a-z0-9]+__[A-Za-z0-9_.]+$' | paste -sd, -)
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /usr/local/cuda/nsight-compute-*/ncu \
    /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: ${NCU:-none} ($([ -n "$NCU" ] && env LD_LIBRARY_PATH="$NCU_LD" timeout -k 2 20 "$NCU" --version 2>&1 | tail -1))" >>"$E/run.txt"
# the study's cross-check runs the same ncu (its own search knows PATH and /usr/local/cuda only)
[ -n "$NCU" ] && export ROOFTIME_NCU=$NCU
# An ncu that cannot read the counters here: the first line that says so (ncu_stage); the later
# ncu stages are then skipped with it.
NCU_DENIED=""
ncu_denied() { # ncu_denied LOG...: the line of an ncu refused the counters, if any
    grep -h -m 1 -E 'ERR_NVGPUCTRPERM|does not have permission to access NVIDIA GPU Performance Counters|Failed to initialize the profiler|LibraryNotLoaded' \
        "$@" 2>/dev/null | head -1
}

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
    return 1
}

# ncu_stage NAME CACHE CLOCK CSV CMD...: CMD under ncu, its CSV table into evidence/CSV. Units in
# base units (bytes, not "Mbyte" with three digits) and kernel names mangled (import ncu
# demangles them as the collector does). When --clock-control base fails (an exit that is no
# time-out: a VM may refuse to lock the clocks), the same again with --clock-control none in what
# is left of the box (stage NAME-clock-none). evidence/NAME.clock says which one ran, and why.
# 0 when a CSV table was written, whatever ncu's exit (the target's, when it failed after some
# kernels: what ncu profiled is still imported; the stage's exit is in stages.tsv).
ncu_stage() {
    local name=$1 cache=$2 clock=$3 csv=$4 s=$SECONDS rc box
    shift 4
    box=$(boxof "$name")
    local common=(--csv --print-units base --print-kernel-base mangled --cache-control "$cache"
        --metrics "$METRICS")
    stage "$name" env LD_LIBRARY_PATH="$NCU_LD" "$NCU" "${common[@]}" --clock-control "$clock" \
        --log-file "$E/$name.tool.log" "$@"
    rc=$?
    local ran=$name
    if [ "$rc" -ne 0 ] && [ "$clock" = base ] && [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ]; then
        {
            echo "clock-control base: exit $rc:"
            grep -h -m 5 -E '==(ERROR|WARNING)==' "$E/$name.tool.log" "$E/$name.log" 2>/dev/null
        } >"$E/$name.clock"
        ran=$name-clock-none
        STAGE_BOX=$((box - (SECONDS - s))) stage "$ran" env LD_LIBRARY_PATH="$NCU_LD" "$NCU" \
            "${common[@]}" --clock-control none --log-file "$E/$ran.tool.log" "$@"
        rc=$?
        clock=none
    fi
    {
        echo "clock-control $clock ran (stage $ran, exit $rc)"
        grep -h -i -E '==(WARNING|ERROR)==.*clock' "$E/$ran.tool.log" "$E/$ran.log" 2>/dev/null
    } >>"$E/$name.clock"
    local denied
    denied=$(ncu_denied "$E/$name.tool.log" "$E/$name.log" "$E/$ran.tool.log" "$E/$ran.log")
    if [ -n "$denied" ]; then
        NCU_DENIED=$denied
        echo "$name: $denied" >"$E/ncu.denied"
        echo "gpu-acceptance: ncu cannot read the counters here: $denied" >&2
    fi
    pick_csv "$E/$csv" "$E/$ran.tool.log" "$E/$ran.log" || {
        echo "no ncu CSV table in $ran.tool.log or $ran.log" >>"$E/$name.clock"
        return 1
    }
}

ncu_probe() { # ncu_probe MODE CACHE CLOCK
    local mode=$1
    if [ -z "$NCU" ] || [ -n "$NCU_DENIED" ]; then
        local why="ncu not found (PATH, /usr/local/cuda, /opt/nvidia/nsight-compute)"
        [ -n "$NCU" ] && why="ncu cannot read the counters here (ncu.denied): $NCU_DENIED"
        skip "ncu-$mode" "$why"
        skip "import-ncu-$mode" "no ncu run"
        skip "compare-ncu-$mode" "no ncu run"
        return
    fi
    if ncu_stage "ncu-$mode" "$2" "$3" "ncu-probe-$mode.csv" "$BIN" machine selfcheck-kernels \
        --manifest "$E/ncu-$mode.tsv"; then
        stage "import-ncu-$mode" "$BIN" import ncu "$E/ncu-probe-$mode.csv" -o "$E/ncu-probe-$mode.json"
        if [ -s "$E/ncu-probe-$mode.json" ] && [ -s "$E/ncu-$mode.tsv" ]; then
            stage "compare-ncu-$mode" "$BIN" machine selfcheck-compare "$E/ncu-$mode.tsv" \
                "$E/ncu-probe-$mode.json" -o "$E/ncu-$mode-check.json"
        else
            skip "compare-ncu-$mode" "no ncu-probe-$mode.json or no manifest ncu-$mode.tsv"
        fi
    else
        skip "import-ncu-$mode" "ncu-$mode wrote no CSV table (see ncu-$mode.clock)"
        skip "compare-ncu-$mode" "no ncu-probe-$mode.json"
    fi
}

group() { # group NAME: whether to run it; after the previous group, the evidence is packed
    pack
    sel "$1"
}

# one training step: each kernel is replayed once per counter pass (7 on sm_90) by the collector and
# by ncu, and ncu adds its own setup per kernel; one step already has every kernel of a step
CNN=("$PY" "$ROOT/scripts/gpu-cnn-step.py" --steps 1)
# torch's files into the page cache beside the first group, which imports no Python: on a fresh
# machine the first `import torch` reads gigabytes of libraries from a cold disk, which the first
# stage that imports torch (selfcheck) would otherwise pay inside its box. No CUDA, no GPU; at
# most 120 s; how long it took is in evidence/warm.log.
WARM_PID=""
if [[ " $GROUPS_RUN " != " measure " ]]; then
    (
        s=$SECONDS
        timeout -k 2 120 "$PY" -c "import torch" >"$E/warm.log" 2>&1
        echo "import torch beside the first group (page cache warm-up): exit $?, $((SECONDS - s)) s" >>"$E/warm.log"
    ) &
    WARM_PID=$!
fi
if group measure; then
    # shellcheck disable=SC2086 # the options, word by word
    stage measure "$BIN" machine measure --gpu ${GPU_ACCEPTANCE_MEASURE:-} -o "$E/machine.json"
fi
if group selfcheck; then
    stage selfcheck "$BIN" machine measure --gpu --self-check --keep-dir "$E/selfcheck" \
        -o "$E/selfcheck.json"
fi
group ncu-base && ncu_probe base all "$NCU_CLOCK"
group ncu-none && ncu_probe none none none
if group cnn; then
    stage cnn "$BIN" profile --gpu --counters --no-keep-images --keep-dir "$E/cnn.cupti" \
        -o "$E/cnn.json" -- "${CNN[@]}"
fi
if group ncu-cnn; then
    if [ -z "$NCU" ]; then
        skip ncu-cnn "ncu not found"
        skip import-ncu-cnn "no ncu"
    elif [ -n "$NCU_DENIED" ]; then
        skip ncu-cnn "ncu cannot read the counters here (ncu.denied): $NCU_DENIED"
        skip import-ncu-cnn "no ncu run"
    elif ncu_stage ncu-cnn all "$NCU_CLOCK" ncu-cnn.csv "${CNN[@]}"; then
        stage import-ncu-cnn "$BIN" import ncu "$E/ncu-cnn.csv" -o "$E/ncu-cnn.json"
    else
        skip import-ncu-cnn "ncu-cnn wrote no CSV table (see ncu-cnn.clock)"
    fi
fi
if group python; then
    stage python "$PY" "$ROOT/scripts/gpu-python-check.py" --out "$E/python" --steps 1
fi
if group study; then
    # the measured machine; without one (measure failed or not selected), the preset of this GPU
    # rather than the study's own measurement, which would fail as measure did
    case "$GPU_LINE" in
    *H200*) MACHINE=(--machine h200) ;;
    *H100*) MACHINE=(--machine h100-sxm) ;;
    *A100*) MACHINE=(--machine a100) ;;
    *) MACHINE=() ;;
    esac
    [ -s "$E/machine.json" ] && MACHINE=(--machine "$E/machine.json")
    # its box, or, when more, all that is left of the budget but the report's box: the stages
    # before it mostly end well within theirs, and it is the one that grows with the GPU's
    # start-up costs (eight client processes); a box given by GPU_ACCEPTANCE_BOX_study is kept
    rest=$((BUDGET - (SECONDS - T0) - $(boxof report)))
    study_box=$(boxof study)
    [ -z "${GPU_ACCEPTANCE_BOX_study:-}" ] && [ "$rest" -gt "$study_box" ] && study_box=$rest
    # shellcheck disable=SC2086
    STAGE_BOX=$study_box stage study "$BIN" study --gpu -o "$E/study" "${MACHINE[@]}" $STUDY_ARGS
fi
if group report; then
    if [ -s "$E/machine.json" ] && [ -s "$E/cnn.json" ]; then
        stage report "$BIN" report --machine "$E/machine.json" --mode hier -o "$E/report" "$E/cnn.json"
    else
        skip report "no machine.json (measure) or no cnn.json (cnn) to report on"
    fi
fi
[ -n "$WARM_PID" ] && kill "$WARM_PID" 2>/dev/null # long done, or stuck past every stage
pack
trap - TERM INT # from here on, everything is in OUT already

# The self-check's raw counter images (*.bin, about 240 KB per launch) go into images.tar.gz,
# 15 MiB parts when larger (at most 3): the evidence is in OUT already.
(cd "$W" && find evidence/selfcheck -name '*.bin' 2>/dev/null | sort) >"$W/images.txt"
if [ -s "$W/images.txt" ]; then
    if tar -C "$W" -czf "$W/images.tar.gz" -T "$W/images.txt"; then
        if [ "$(stat -c %s "$W/images.tar.gz")" -le $((15 << 20)) ]; then
            mv "$W/images.tar.gz" "$OUT/"
        else
            split -b 15M -d -a 1 "$W/images.tar.gz" "$W/images.tar.gz.part"
            if [ "$(ls "$W"/images.tar.gz.part* | wc -l)" -le 3 ]; then
                mv "$W"/images.tar.gz.part* "$OUT/"
                echo "counter images: images.tar.gz.part0.. (cat them, then tar -xzf)" >"$W/images.note"
            else
                echo "counter images: over 45 MiB packed, not kept" >"$W/images.note"
            fi
        fi
    else
        echo "counter images: cannot pack them" >"$W/images.note"
    fi
fi

# Only now the evaluation, on what was packed: a failure here leaves the evidence in OUT.
timeout -k 2 $((15 * SLOW)) "$PY" "$ROOT/scripts/gpu-acceptance-eval.py" --work "$W" --gpu "$GPU_LINE" \
    --archs "$ROOFTIME_DATADIR/gpu/architectures.json" --groups "$GROUPS_RUN" --out "$OUT" \
    >"$W/eval.log" 2>&1
verdict=$?
if [ "$verdict" -ne 0 ] && [ "$verdict" -ne 10 ]; then
    {
        echo "$GPU_LINE: the evaluation failed (scripts/gpu-acceptance-eval.py exit $verdict);"
        echo "the evidence is in evidence.tar.gz. Its output:"
        sed 's/^/  /' "$W/eval.log" | tail -20
    } >"$OUT/summary.txt"
fi
[ -s "$W/images.note" ] && cat "$W/images.note" >>"$OUT/summary.txt"
[ -s "$W/evidence.note" ] && cat "$W/evidence.note" >>"$OUT/summary.txt"
cat "$OUT/summary.txt"
rm -rf "$W"
echo "gpu-acceptance: $((SECONDS - T0)) s; in $OUT: $(ls "$OUT" | paste -sd' ' -)" >&2
[ "$verdict" -eq 0 ]
