/* The AI table (--ai-file) joined to the main table by the tag columns they share. */
#include <stdlib.h>

#include "table-internal.h"
#include "rooftime/util/strings.h"

/* The AI table joins by the tag columns of its second header row: the main table has them. */
int table_join_columns(table_import *ti, rt_error *err)
{
    table *t = ti->t;
    ti->keycol = rt_xcalloc(t[1].ncol + 1, sizeof *ti->keycol);
    ti->maincol = rt_xcalloc(t[1].ncol + 1, sizeof *ti->maincol);
    for (size_t c = 0; c < t[1].ncol; c++) {
        if (!t[1].tagpart[c])
            continue;
        int mc = rt_table_find(&t[0], t[1].col[c]);
        if (mc < 0) {
            rt_error_set(err, "%s: tag column '%s' is not in %s", ti->opt->ai_file, t[1].col[c],
                         ti->path);
            return -1;
        }
        ti->keycol[ti->nk] = c;
        ti->maincol[ti->nk++] = (size_t)mc;
    }
    if (ti->nk == 0) {
        rt_error_set(err, "%s: no tag columns to join with %s (two-row header expected)",
                     ti->opt->ai_file, ti->path);
        return -1;
    }
    return 0;
}

/* Join the AI table by the tag columns it has: a map from their values to its first row. */
int table_join_rows(table_import *ti, rt_error *err)
{
    table *t = ti->t;
    char *key = NULL;
    size_t kcap = 0;
    int rc = 0;
    for (size_t r = 0; r < t[1].nrow; r++) {
        size_t len = rt_table_join_key(&t[1], r, ti->keycol, ti->nk, &key, &kcap);
        if (rt_name_index_get(&ti->keys, key, len) == (size_t)-1)
            rt_name_index_put(&ti->keys, key, len, r);
    }
    ti->join = rt_xmalloc(t[0].nrow * sizeof *ti->join);
    for (size_t r = 0; r < t[0].nrow && rc == 0; r++) {
        size_t len = rt_table_join_key(&t[0], r, ti->maincol, ti->nk, &key, &kcap);
        size_t at = rt_name_index_get(&ti->keys, key, len);
        if (at == (size_t)-1) {
            rt_error_set(err, "%s: line %lu: no row with the same %s ... in %s", ti->path,
                         t[0].line[r], t[1].col[ti->keycol[0]], ti->opt->ai_file);
            rc = -1;
        }
        ti->join[r] = at;
    }
    free(key);
    return rc;
}
