# Docs the build keeps true: docs/architecture.md's inventory has one row per source file under
# src/ (its path from src/) and no row for a file that is gone, and every public header under
# include/rooftime/ is reachable from rooftime.h through its includes.
. "$(dirname "$0")/lib.sh"

# missing_sources SRC DOC: the .c/.cpp files under SRC (relative paths) that DOC does not name in
# backticks, alone (`ncu.c`) or at the end of a path (`src/import/ncu.c`, `ncu/ncu.c`).
# The inventory's paths (rows "| `path` | ... |" after "## Inventory") against the tree: one
# line "missing<TAB>path" per source file without a row, "stale<TAB>path" per row without a file,
# "twice<TAB>path" per path with two rows.
inventory_diff() {
    local src=$1 doc=$2
    sed -n '/^## Inventory/,$p' "$doc" | sed -n 's/^| `\([^`]*\)` |.*/\1/p' | grep -v '^src/' |
        LC_ALL=C sort >"$TMP/rows"
    (cd "$src" && find . -type f \( -name '*.c' -o -name '*.cpp' \)) | sed 's|^\./||' |
        LC_ALL=C sort >"$TMP/sources"
    LC_ALL=C comm -23 "$TMP/sources" <(LC_ALL=C sort -u "$TMP/rows") | sed 's/^/missing\t/'
    LC_ALL=C comm -13 "$TMP/sources" <(LC_ALL=C sort -u "$TMP/rows") | sed 's/^/stale\t/'
    uniq -d "$TMP/rows" | sed 's/^/twice\t/'
}

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
inventory_diff "$SRC/src" "$DOC" >"$TMP/inventory"
while IFS="$(printf '\t')" read -r what path; do
    case $what in
    missing) echo "FAIL: src/$path has no row in docs/architecture.md's inventory: add \`$path\` there (python3 scripts/architecture-inventory.py --write)" ;;
    stale) echo "FAIL: docs/architecture.md's inventory names $path, which is not under src/: remove its row" ;;
    twice) echo "FAIL: docs/architecture.md's inventory names $path twice" ;;
    esac
    FAILS=$((FAILS + 1))
done <"$TMP/inventory"
check "docs/architecture.md's inventory and the source files under src/ agree" test ! -s "$TMP/inventory"

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

# ---- the checks can fail: a scratch tree with a source without a row, a row without a source,
# a row twice, and a header unreachable ----
S="$TMP/scratch"
mkdir -p "$S/src/wing/room" "$S/include/rooftime/wing"
touch "$S/src/wing/named.c" "$S/src/wing/unnamed.c" "$S/src/wing/room/same.c"
printf '## Inventory\n\n| `wing/named.c` | x |\n| `wing/room/same.c` | y |\n| `wing/room/same.c` | y |\n| `wing/gone.c` | z |\n' >"$S/doc.md"
inventory_diff "$S/src" "$S/doc.md" | LC_ALL=C sort >"$TMP/got"
printf 'missing\twing/unnamed.c\nstale\twing/gone.c\ntwice\twing/room/same.c\n' | LC_ALL=C sort >"$TMP/want"
check "the check finds a source without a row, a row without a source and a row twice" \
    cmp -s "$TMP/got" "$TMP/want"
printf '#include "rooftime/wing/a.h"\n' >"$S/include/rooftime/rooftime.h"
printf '#include "rooftime/wing/b.h"\n' >"$S/include/rooftime/wing/a.h"
touch "$S/include/rooftime/wing/b.h" "$S/include/rooftime/wing/orphan.h"
check "the check follows includes and finds an unreachable header" \
    test "$(unreachable_headers "$S/include")" = "rooftime/wing/orphan.h"

finish
