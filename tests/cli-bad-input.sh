# Bad data files: exit 1, a message naming the file and the problem, no crash, no output file left.
. "$(dirname "$0")/lib.sh"

M=$SRC/data/machines/v100.json
good='{"schema": "rooftime.profile/1", "kernels": [{"name": "k", "invocations": 1, "time": 1e-3, "flops": {"fp32": 1e9}, "bytes": {"HBM": 1e6}}]}'

bad() { # NAME CONTENT PATTERN
    printf '%s' "$2" >"$TMP/$1.json"
    expect 1 "$3" -- analyze --machine "$M" -o "$TMP/out-$1.txt" "$TMP/$1.json"
    check "$1: no output file left" test ! -e "$TMP/out-$1.txt"
    check "$1: no temporary file left" sh -c "! ls '$TMP' | grep -q 'out-$1.txt.tmp'"
}

bad malformed '{"schema": "rooftime.profile/1", "kernels": [' "malformed.json': line 1, column [0-9]+"
bad missing '{"schema": "rooftime.profile/1", "kernels": [{"name": "k", "invocations": 1}]}' "line 1, column 46: field 'kernels\[0\]\.time': missing"
bad wrongtype '{"schema": "rooftime.profile/1", "kernels": [{"name": "k", "invocations": 1, "time": "fast"}]}' "line 1, column 86: field 'kernels\[0\]\.time': expected a number, got a string"
bad nan '{"schema": "rooftime.profile/1", "kernels": [{"name": "k", "invocations": 1, "time": NaN}]}' "nan.json': line 1, column [0-9]+: invalid token"
bad negative '{"schema": "rooftime.profile/1", "kernels": [{"name": "k", "invocations": 1, "time": -1}]}' "line 1, column 86: field 'kernels\[0\]\.time': -1 is below the minimum 0"
bad empty '' "empty.json': the file is empty"
bad schema '{"schema": "rooftime.machine/1", "kernels": []}' "line 1, column 12: field 'schema': expected \"rooftime.profile/1\""
bad flops '{"schema": "rooftime.profile/1", "kernels": [{"name": "k", "invocations": 1, "time": 1, "flops": {"fp32": -5}}]}' "line 1, column 107: field 'kernels\[0\]\.flops\.fp32'"
bad tags '{"schema": "rooftime.profile/1", "kernels": [{"name": "k", "invocations": 1, "time": 1, "tags": {"pass": [1]}}]}' "line 1, column 106: field 'kernels\[0\]\.tags\.pass': expected a string or a number"
bad notobject '[1, 2, 3]' "line 1, column 1: field '\(top\)': expected an object, got an array"
# A field in a pretty-printed profile is named by its line, as a syntax error is: the value's line
# when it is there, the line of the object it is missing from when it is not.
printf '{\n  "schema": "rooftime.profile/1",\n  "kernels": [\n    {"name": "a", "invocations": 1, "time": 1},\n    {"name": "b", "invocations": 1,\n     "time": "slow"}\n  ]\n}\n' >"$TMP/pretty.json"
expect 1 "pretty.json': line 6, column 14: field 'kernels\[1\]\.time': expected a number" -- analyze --machine "$M" "$TMP/pretty.json"
printf '{\n  "schema": "rooftime.profile/1",\n  "kernels": [\n    {"name": "a", "invocations": 1, "time": 1},\n    {"name": "b",\n     "invocations": 1}\n  ]\n}\n' >"$TMP/pretty.json"
expect 1 "pretty.json': line 5, column 5: field 'kernels\[1\]\.time': missing" -- analyze --machine "$M" "$TMP/pretty.json"

# 100 MB of random bytes.
head -c 100000000 /dev/urandom >"$TMP/random.json"
expect 1 "random.json': " -- analyze --machine "$M" "$TMP/random.json"

expect 1 "nosuch.json': no such file" -- analyze --machine "$M" "$TMP/nosuch.json"
expect 1 "is a directory" -- analyze --machine "$M" "$TMP"

# Bad machine files.
badm() { # NAME CONTENT PATTERN
    printf '%s' "$good" >"$TMP/good.json"
    printf '%s' "$2" >"$TMP/m-$1.json"
    expect 1 "$3" -- analyze --machine "$TMP/m-$1.json" "$TMP/good.json"
}
mach='"schema": "rooftime.machine/1", "name": "x", "units": [{"name": "fp32", "flops": 1e12}], "levels": [{"name": "DRAM", "bytes_per_s": 1e11}], "launch_overhead": {"seconds": 1e-6}'
badm noref "{$mach}" "m-noref.json': line 1, column 1: field 'reference': missing"
printf '{\n"schema": "rooftime.machine/1", "name": "x", "launch_overhead": {"seconds": 1e-6},\n"units": [{"name": "fp32", "flops": 1e12}],\n"levels": [{"name": "DRAM", "bytes_per_s": "fast"}], "reference": {"unit": "fp32", "level": "DRAM"}}\n' >"$TMP/m-lines.json"
expect 1 "m-lines.json': line 4, column 44: field 'levels\[0\]\.bytes_per_s': expected a number" -- analyze --machine "$TMP/m-lines.json" "$TMP/good.json"
badm badref "{$mach, \"reference\": {\"unit\": \"tensor\", \"level\": \"DRAM\"}}" "reference unit 'tensor' is not one of its units"
badm zero "{\"schema\": \"rooftime.machine/1\", \"name\": \"x\", \"units\": [{\"name\": \"fp32\", \"flops\": 0}], \"levels\": [{\"name\": \"DRAM\", \"bytes_per_s\": 1e11}], \"launch_overhead\": {\"seconds\": 1e-6}, \"reference\": {\"unit\": \"fp32\", \"level\": \"DRAM\"}}" "unit 'fp32': FLOP/s must be positive"

# An unwritable output path: a clear error, nothing left behind.
printf '%s' "$good" >"$TMP/good.json"
expect 1 "cannot write '/nonexistent-dir/out.txt'" -- analyze --machine "$M" -o /nonexistent-dir/out.txt "$TMP/good.json"
# And a good run writes its file whole.
expect 0 "" -- analyze --machine "$M" -o "$TMP/ok.txt" "$TMP/good.json"
check "output written" grep -q "kernels by time" "$TMP/ok.txt"
finish
