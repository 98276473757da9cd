#!/bin/bash
# Rank identity: each launcher's variables tag `import`, `profile` and `machine measure` output,
# and -o 'run.%r.json' gives one file per rank.
. "${ROOFTIME_SRC:-..}/tests/lib.sh"
LOG=$SRC/tests/data/onednn-2.6-primitives.log
# Nothing of the caller's launcher may leak into the test.
unset OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_LOCAL_RANK OMPI_COMM_WORLD_SIZE PMI_RANK PMI_SIZE \
    MPI_LOCALRANKID SLURM_PROCID SLURM_LOCALID SLURM_NTASKS RANK LOCAL_RANK WORLD_SIZE \
    CUDA_VISIBLE_DEVICES HIP_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES ZE_AFFINITY_MASK

# identity FILE: the "identity" member as launcher/rank/local_rank/size/device.
identity() {
    python3 -c 'import json,sys; i=json.load(open(sys.argv[1])).get("identity",{})
print("/".join(str(i.get(k,"-")) for k in ("launcher","rank","local_rank","size","device")))' "$1"
}

# One row per launcher: its variables | the file -o names | the identity expected.
while IFS='|' read -r vars file want; do
    env $vars "$BIN" import onednn "$LOG" -o "$TMP/run.%r.%l.%s.json" >"$TMP/out" 2>"$TMP/err"
    check "import under '$vars' exits 0 ($(cat "$TMP/err"))" test $? -eq 0
    check "import under '$vars' writes $file" test -f "$TMP/$file"
    [ -f "$TMP/$file" ] && check "identity under '$vars': $(identity "$TMP/$file") = $want" \
        test "$(identity "$TMP/$file")" = "$want"
done <<'ROWS'
OMPI_COMM_WORLD_RANK=3 OMPI_COMM_WORLD_LOCAL_RANK=1 OMPI_COMM_WORLD_SIZE=8 CUDA_VISIBLE_DEVICES=1|run.3.1.8.json|openmpi/3/1/8/cuda:1
PMI_RANK=5 PMI_SIZE=6 MPI_LOCALRANKID=0|run.5.0.6.json|pmi/5/0/6/-
SLURM_PROCID=7 SLURM_LOCALID=3 SLURM_NTASKS=16 HIP_VISIBLE_DEVICES=2|run.7.3.16.json|slurm/7/3/16/hip:2
RANK=2 LOCAL_RANK=2 WORLD_SIZE=4|run.2.2.4.json|torchrun/2/2/4/-
OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_LOCAL_RANK=0 OMPI_COMM_WORLD_SIZE=2 SLURM_PROCID=9 SLURM_LOCALID=9 SLURM_NTASKS=10|run.1.0.2.json|openmpi/1/0/2/-
ROWS

# The host is always recorded; %h and %% expand.
"$BIN" import onednn "$LOG" -o "$TMP/h.%h.%%.json" >/dev/null 2>&1
check "%h and %% expand" test -f "$TMP/h.$(hostname).%.json"
check "no launcher: identity holds the host only" test "$(identity "$TMP/h.$(hostname).%.json")" = "-/-/-/-/-"

# A tagged profile loads back: analyze reads it.
expect 0 "" -- analyze -m v100 "$TMP/run.3.1.8.json"

# profile: the command runs under the launcher's variables.
env RANK=1 LOCAL_RANK=1 WORLD_SIZE=2 "$BIN" profile -o "$TMP/p.%r.json" --keep-log "$TMP/p.%r.log" -- \
    cat "$LOG" >/dev/null 2>"$TMP/err"
check "profile -o p.%r.json writes p.1.json ($(cat "$TMP/err"))" test -f "$TMP/p.1.json"
check "profile --keep-log p.%r.log writes p.1.log" test -f "$TMP/p.1.log"
[ -f "$TMP/p.1.json" ] && check "profile identity" test "$(identity "$TMP/p.1.json")" = "torchrun/1/1/2/-"

# Errors: %r without a launcher, unknown placeholders (usage, exit 2); bad launcher values (exit 1).
expect 2 "%r needs the rank from a launcher" -- import onednn "$LOG" -o "$TMP/x.%r.json"
expect 2 "unknown placeholder '%q'" -- import onednn "$LOG" -o "$TMP/x.%q.json"
# every importer expands -o through the one shared path (import cupti wrote 'x.%r.json' before)
for kind in ncu table torch cupti; do
    expect 2 "%r needs the rank from a launcher" -- import $kind "$LOG" -o "$TMP/x.%r.json"
done
expect 2 "unknown placeholder" -- machine measure -o "$TMP/x.%"
OMPI_COMM_WORLD_RANK=abc expect 1 "OMPI_COMM_WORLD_RANK='abc' is not a whole number" -- import onednn "$LOG" -o "$TMP/x.json"
SLURM_PROCID=4 SLURM_NTASKS=4 expect 1 "SLURM_PROCID=4 is not below SLURM_NTASKS=4" -- import onednn "$LOG" -o "$TMP/x.json"
check "no output after a bad launcher variable" test ! -e "$TMP/x.json"

# A file whose identity is malformed: the error names the field.
python3 - "$TMP/run.3.1.8.json" "$TMP/bad.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1])); p["identity"]["rank"] = 9
json.dump(p, open(sys.argv[2], "w"))
PY
expect 1 "identity.rank.*not below the size 8" -- analyze -m v100 "$TMP/bad.json"
python3 - "$TMP/run.3.1.8.json" "$TMP/bad2.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1])); p["identity"]["local_rank"] = 1.5
json.dump(p, open(sys.argv[2], "w"))
PY
expect 1 "identity.local_rank.*whole number" -- analyze -m v100 "$TMP/bad2.json"

# machine measure: the machine file carries the identity too (the quickest measurement).
env PMI_RANK=0 PMI_SIZE=1 "$BIN" machine measure --quick --threads 1 -o "$TMP/m.%r.json" >/dev/null 2>&1
check "machine measure -o m.%r.json writes m.0.json" test -f "$TMP/m.0.json"
[ -f "$TMP/m.0.json" ] && check "machine identity" test "$(identity "$TMP/m.0.json")" = "pmi/0/-/1/-"
[ -f "$TMP/m.0.json" ] && expect 0 "" -- machine show "$TMP/m.0.json"
finish
