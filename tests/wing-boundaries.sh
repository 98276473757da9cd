# The wings' one-way dependencies are enforced by the build: for every wing and every wing it
# does not depend on, a file of the first that includes a header of the second must not compile
# (the list comes from cmake/RooftimeWings.cmake); each wing's own header must compile.
. "$(dirname "$0")/lib.sh"
BUILD=${ROOFTIME_BUILD:?ROOFTIME_BUILD names the build tree}
list="$BUILD/wing-boundaries.txt"
check "the build wrote the list of forbidden includes" test -s "$list"
check "core may not include render, import, probe, study or formats" \
    sh -c "for o in render import probe study formats; do grep -q \"^core \$o \" '$list' || exit 1; done"
while read -r wing other header; do
    if cmake --build "$BUILD" --target "boundary_${wing}_${other}" >"$TMP/log" 2>&1; then
        check "wing $wing including $header fails to build" false
    else
        check "wing $wing including $header fails because the header is out of its view" \
            grep -q "No such file or directory" "$TMP/log"
    fi
done <"$list"
for wing in $(cut -d' ' -f1 "$list" | sort -u); do
    check "wing $wing includes its own header" cmake --build "$BUILD" --target "boundary_${wing}_${wing}"
done
# The core knows no file format: no JSON library in its sources or headers, none linked.
check "no core file includes jansson.h" sh -c "! grep -rln 'jansson' '$SRC/src/core' '$SRC/include/rooftime/core'"
check "the core links no JSON library" sh -c "! grep -q -i jansson '$BUILD/src/core/CMakeFiles/rt_core.dir/link.txt' 2>/dev/null && ! grep -rq 'jansson' '$SRC/src/core/CMakeLists.txt'"
# util links jansson for the one JSON reader every wing that reads data/ calls (json-read.h,
# data-file.h): the core, which knows no file format, includes neither.
check "no core file includes util's JSON reader" \
    sh -c "! grep -rlnE 'util/(json-read|data-file)\.h' '$SRC/src/core' '$SRC/include/rooftime/core'"
# Nothing reaches around the views with a relative path into another folder.
check "no source includes a path with .." sh -c "! grep -rn '#include \"\\.\\./' '$SRC/src' '$SRC/include'"
# The command's rooms (src/cli/import/, machine/, profile/) include their own headers and the
# root's (on the include path), never another room's: no src/cli file names a folder in an
# include but rooftime/.
check "no src/cli file includes a header of a room" \
    sh -c "! grep -rnE '#include \"[^\"]*/' '$SRC/src/cli' | grep -v '\"rooftime/'"
# One responsibility per file: none grows past 700 lines (split it by what it does).
long=$(find "$SRC/src" "$SRC/include" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cpp' \) \
    -exec awk 'END { if (NR > 700) print FILENAME " (" NR " lines)" }' {} \;)
[ -z "$long" ] || echo "files over 700 lines: $long"
check "no source file is over 700 lines" test -z "$long"
echo "$PASSES passed, $FAILS failed"
[ "$FAILS" -eq 0 ]
