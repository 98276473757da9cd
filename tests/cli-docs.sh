# Docs the build keeps true: every source file under src/ is named in docs/architecture.md, and
# every public header under include/rooftime/ is reachable from rooftime.h through its includes.
# Files are matched by name, so a file that moves keeps passing as long as the docs name it; two
# files of the same name in different folders must each be named with their folder (`ncu/read.c`).
. "$(dirname "$0")/lib.sh"

# missing_sources SRC DOC: the .c/.cpp files under SRC (relative paths) that DOC does not name in
# backticks, alone (`ncu.c`) or at the end of a path (`src/import/ncu.c`, `ncu/ncu.c`).
missing_sources() {
    local src=$1 doc=$2
    grep -oE '`[^`]+`' "$doc" | tr -d '`' | sort -u >"$TMP/named"
    find "$src" -type f \( -name '*.c' -o -name '*.cpp' \) | sed "s|^$src/||" | LC_ALL=C sort >"$TMP/sources"
    awk -F/ '
        NR == FNR { named[$0] = 1; next }
        { base[FNR] = $NF; path[FNR] = $0; count[$NF]++; n = FNR }
        END {
            for (i = 1; i <= n; i++) {
                b = base[i]
                want = b
                if (count[b] > 1) { # a name shared by several files must come with its folder
                    k = split(path[i], part, "/")
                    want = part[k - 1] "/" b
                }
                found = 0
                for (t in named)
                    if (t == want || (length(t) > length(want) &&
                                      substr(t, length(t) - length(want)) == "/" want)) {
                        found = 1
                        break
                    }
                if (!found)
                    print path[i] "\t" want
            }
        }' "$TMP/named" "$TMP/sources"
}

# unreachable_headers INCLUDE: the headers under INCLUDE/rooftime that INCLUDE/rooftime/rooftime.h
# does not reach by following #include "rooftime/..." lines.
unreachable_headers() {
    local inc=$1
    : >"$TMP/seen"
    local queue="rooftime/rooftime.h" next h
    while [ -n "$queue" ]; do
        next=""
        for h in $queue; do
            grep -qxF "$h" "$TMP/seen" && continue
            echo "$h" >>"$TMP/seen"
            [ -f "$inc/$h" ] || continue
            next="$next $(sed -n 's|^[[:space:]]*#[[:space:]]*include[[:space:]]*"\(rooftime/[^"]*\)".*|\1|p' "$inc/$h")"
        done
        queue=$next
    done
    (cd "$inc" && find rooftime -type f -name '*.h') | LC_ALL=C sort | while read -r h; do
        grep -qxF "$h" "$TMP/seen" || echo "$h"
    done
}

DOC="$SRC/docs/architecture.md"
check "docs/architecture.md exists" test -f "$DOC"

# ---- the tree ----
missing_sources "$SRC/src" "$DOC" >"$TMP/missing"
while IFS="$(printf '\t')" read -r path want; do
    echo "FAIL: src/$path is not named in docs/architecture.md: name it as \`$want\` in its wing's row"
    FAILS=$((FAILS + 1))
done <"$TMP/missing"
check "every source file under src/ is named in docs/architecture.md" test ! -s "$TMP/missing"

unreachable_headers "$SRC/include" >"$TMP/unreached"
while read -r h; do
    echo "FAIL: include/$h is not reachable from include/rooftime/rooftime.h: add #include \"$h\" there"
    FAILS=$((FAILS + 1))
done <"$TMP/unreached"
check "every public header is reachable from rooftime.h" test ! -s "$TMP/unreached"

# Every header rooftime.h names exists, and the umbrella compiles on its own as strict C11.
sed -n 's|^#include "\(rooftime/[^"]*\)"|\1|p' "$SRC/include/rooftime/rooftime.h" >"$TMP/umbrella"
while read -r h; do
    check "rooftime.h includes $h, which exists" test -f "$SRC/include/$h"
done <"$TMP/umbrella"
printf '#include "rooftime/rooftime.h"\nint main(void) { return 0; }\n' >"$TMP/umbrella.c"
check "rooftime.h compiles alone (C11, -Wall -Wextra -Werror)" \
    "${CC:-cc}" -std=c11 -Wall -Wextra -Werror -fsyntax-only -I"$SRC/include" "$TMP/umbrella.c"

# ---- the checks can fail: a scratch tree with one source unnamed and one header unreachable ----
S="$TMP/scratch"
mkdir -p "$S/src/wing/room" "$S/src/wing/other" "$S/include/rooftime/wing"
touch "$S/src/wing/named.c" "$S/src/wing/unnamed.c" "$S/src/wing/room/same.c" "$S/src/wing/other/same.c"
printf 'the wing (`named.c`, `src/wing/room/same.c`, `same.c`)\n' >"$S/doc.md"
missing_sources "$S/src" "$S/doc.md" | cut -f1 >"$TMP/got"
printf 'wing/other/same.c\nwing/unnamed.c\n' >"$TMP/want"
check "the check finds an unnamed source, and a shared name without its folder" \
    cmp -s "$TMP/got" "$TMP/want"
printf '#include "rooftime/wing/a.h"\n' >"$S/include/rooftime/rooftime.h"
printf '#include "rooftime/wing/b.h"\n' >"$S/include/rooftime/wing/a.h"
touch "$S/include/rooftime/wing/b.h" "$S/include/rooftime/wing/orphan.h"
check "the check follows includes and finds an unreachable header" \
    test "$(unreachable_headers "$S/include")" = "rooftime/wing/orphan.h"

finish
