/* `rooftime import table FILE`: a processed result table, a row of the importers' table
 * (rooftime/import/importers.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rooftime/import/importers.h"
#include "rooftime/import/table.h"
#include "rooftime/util/strings.h"

/* The options, and the --map and --name-column lists they point into (heap arrays; the --map
 * values split in copies). */
typedef struct table_state {
    rt_table_options o;
    rt_table_map *map;
    char **map_text;
    const char **names;
    size_t n_map, n_names;
} table_state;

static const rt_import_option options[] = {
    {"ai-file", 0, RT_IMPORT_FILE, "FILE",
     "more AI columns (L2 AI, L1 AI), joined by the tag columns", NULL},
    {"map", 'm', RT_IMPORT_LIST, "Q=COLUMN",
     "time, invocations, name, flops.UNIT, flops.total, bytes.LEVEL,\n"
     "ai.LEVEL (bytes = FLOPs / AI), tag.NAME (repeatable)",
     NULL},
    {"no-defaults", 0, RT_IMPORT_FLAG, NULL,
     "only the --map columns (defaults: CUDA Time, Invocations,\n"
     "FP32/FP16/TC FLOPs, FLOPs, DRAM AI -> HBM, L2 AI, L1 AI)",
     NULL},
    {"name-column", 0, RT_IMPORT_LIST, "COL",
     "a tag column that goes into the kernel name instead of the tags\n"
     "(repeatable; default: Input Shape, Kernel Shape)",
     "Input Shape, Kernel Shape"},
    {"time", 0, RT_IMPORT_VALUE, "device|wall",
     "what the time column measures (default: device for the paper's\n"
     "CUDA Time, else unknown; see docs/model.md)",
     NULL},
};

static int apply(void *state, const rt_import_option *opt, const char *v, rt_error *err)
{
    table_state *s = state;
    const char *name = opt->name;
    if (strcmp(name, "ai-file") == 0) {
        s->o.ai_file = v;
    } else if (strcmp(name, "map") == 0) {
        const char *eq = strchr(v, '=');
        if (!eq || eq == v || !eq[1]) {
            rt_error_set(err, "--map takes quantity=column, not '%s'", v);
            return -1;
        }
        s->map = rt_xrealloc(s->map, (s->n_map + 1) * sizeof *s->map);
        s->map_text = rt_xrealloc(s->map_text, (s->n_map + 1) * sizeof *s->map_text);
        char *q = s->map_text[s->n_map] = rt_strdup(v);
        q[eq - v] = '\0';
        s->map[s->n_map++] = (rt_table_map){.quantity = q, .column = q + (eq - v) + 1};
    } else if (strcmp(name, "no-defaults") == 0) {
        s->o.no_defaults = true;
    } else if (strcmp(name, "name-column") == 0) {
        s->names = rt_xrealloc(s->names, (s->n_names + 1) * sizeof *s->names);
        s->names[s->n_names++] = v;
    } else if (strcmp(name, "time") == 0) {
        rt_error terr;
        if (rt_time_kind_parse(v, &s->o.time_kind, &terr) != 0) {
            rt_error_set(err, "--time: %s", terr.msg);
            return -1;
        }
    }
    return 0;
}

static int read_table(void *state, const rt_import_run *r, rt_profile **p, rt_warnings *w,
                      rt_error *err)
{
    table_state *s = state;
    s->o.map = s->map;
    s->o.n_map = s->n_map;
    s->o.name_columns = s->names;
    s->o.n_name_columns = s->n_names;
    return rt_import_table(r->inputs[0], &s->o, p, w, err);
}

/* The columns it chose, so that a table in another layout can be checked at a glance. */
static void report(const void *state, const rt_import_run *r, const rt_profile *p, FILE *out)
{
    (void)state;
    fprintf(out, "columns:");
    for (size_t i = 0; i < p->provenance.formulas.n; i++)
        fprintf(out, "%s %s = '%s'", i ? "," : "", p->provenance.formulas.v[i].key,
                p->provenance.formulas.v[i].value);
    fprintf(out, "\n");
    static const char *const notes[][2] = {
        {"tags", "tags"}, {"name columns", "in the name"}, {"unused columns", "not used"}};
    for (size_t i = 0; i < sizeof notes / sizeof notes[0]; i++) {
        const char *v = rt_tags_get(&p->provenance.notes, notes[i][0]);
        if (v)
            fprintf(out, "%s: %s\n", notes[i][1], v);
    }
    fprintf(out, "%s: %zu kernels from %s\n", r->output, p->n_kernels, r->inputs[0]);
}

static void release(void *state)
{
    table_state *s = state;
    for (size_t i = 0; i < s->n_map; i++)
        free(s->map_text[i]);
    free(s->map_text);
    free(s->map);
    free(s->names);
}

const rt_importer rt_importer_table = {
    .name = "table",
    .summary = "a processed table, one kernel or config per row",
    .synopsis =
        "rooftime import table FILE [--ai-file FILE] [--map QUANTITY=COLUMN]... -o PROFILE\n",
    .help = "import table: one kernel or config per row; defaults read the paper's V100 tables\n",
    .usage_lists_shared = 1,
    .options = options,
    .n_options = sizeof options / sizeof options[0],
    .state_size = sizeof(table_state),
    .max_inputs = 1,
    .no_input = "no table file given",
    .too_many = "import table reads one table at a time",
    .apply = apply,
    .read = read_table,
    .report = report,
    .release = release,
};
