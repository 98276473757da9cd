# Sourced by the shell benchmarks (bench-likwid.sh, bench-loaded.sh): their shared options and
# setup. It sets no shell options of its own.
#
# bench_setup NAME TOGGLE ARG...: parses the benchmark's arguments:
#   TOGGLE (--quick or --full) flips $quick between "" and "--quick" from the default the
#   caller set; --keep DIR keeps the work files there; -h/--help prints the comment block at the
#   top of the script (from its line 2 to the first line that is not a comment); anything else
#   is the rooftime binary (default $ROOFTIME_BIN, else build/rooftime beside bench/).
# Sets quick, keep, bin and work (the work directory, made; the caller removes it when keep is
# empty). Exits 2 on a usage error or a missing binary.
bench_setup() {
    local name=$1 toggle=$2
    shift 2
    keep=""
    bin=""
    while [ $# -gt 0 ]; do
        case "$1" in
        "$toggle") if [ "$toggle" = --quick ]; then quick="--quick"; else quick=""; fi ;;
        --keep) keep="$2"; shift ;;
        -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "$name: unknown option '$1'" >&2; exit 2 ;;
        *) bin="$1" ;;
        esac
        shift
    done
    local here
    here=$(cd "$(dirname "$0")" && pwd)
    bin=${bin:-${ROOFTIME_BIN:-$here/../build/rooftime}}
    if [ ! -x "$bin" ]; then
        echo "$name: rooftime binary '$bin' not found (pass it as the argument)" >&2
        exit 2
    fi
    work=${keep:-$(mktemp -d)}
    mkdir -p "$work"
}
