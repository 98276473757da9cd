/* `rooftime import table FILE`: a processed result table, a row of the importers' table. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-import.h"
#include "commands.h"
#include "rooftime/import/table.h"
#include "rooftime/util/strings.h"

/* The options, and the --map and --name-column lists they point into (heap arrays). */
typedef struct table_state {
    rt_table_options o;
    rt_table_map *map;
    const char **names;
    size_t n_map, n_names;
} table_state;

static const struct option options[] = {
    {"ai-file", required_argument, NULL, 'a'}, {"map", required_argument, NULL, 'm'},
    {"no-defaults", no_argument, NULL, 'N'},   {"name-column", required_argument, NULL, 'n'},
    {"time", required_argument, NULL, 'T'},    {0}};

static int option(void *state, int c, char *arg)
{
    table_state *s = state;
    switch (c) {
    case 'a':
        s->o.ai_file = arg;
        return 0;
    case 'm': {
        char *eq = strchr(arg, '=');
        if (!eq || eq == arg || !eq[1])
            return cli_usage_error("import", "--map takes quantity=column, not '%s'", arg);
        *eq = '\0'; /* argv is ours to split */
        s->map = rt_xrealloc(s->map, (s->n_map + 1) * sizeof *s->map);
        s->map[s->n_map++] = (rt_table_map){.quantity = arg, .column = eq + 1};
        return 0;
    }
    case 'N':
        s->o.no_defaults = true;
        return 0;
    case 'T': {
        rt_error terr;
        if (rt_time_kind_parse(arg, &s->o.time_kind, &terr) != 0)
            return cli_usage_error("import", "--time: %s", terr.msg);
        return 0;
    }
    case 'n':
        s->names = rt_xrealloc(s->names, (s->n_names + 1) * sizeof *s->names);
        s->names[s->n_names++] = arg;
        return 0;
    }
    return -1;
}

static const char *option_input(const void *state)
{
    return ((const table_state *)state)->o.ai_file;
}

static int read_table(void *state, const cli_import_args *a, rt_profile **p, rt_warnings *w,
                      rt_error *err)
{
    table_state *s = state;
    s->o.map = s->map;
    s->o.n_map = s->n_map;
    s->o.name_columns = s->names;
    s->o.n_name_columns = s->n_names;
    return rt_import_table(a->inputs[0], &s->o, p, w, err);
}

/* The columns it chose, so that a table in another layout can be checked at a glance. */
static void report(const void *state, const cli_import_args *a, const rt_profile *p)
{
    (void)state;
    printf("columns:");
    for (size_t i = 0; i < p->provenance.formulas.n; i++)
        printf("%s %s = '%s'", i ? "," : "", p->provenance.formulas.v[i].key,
               p->provenance.formulas.v[i].value);
    printf("\n");
    static const char *const notes[][2] = {
        {"tags", "tags"}, {"name columns", "in the name"}, {"unused columns", "not used"}};
    for (size_t i = 0; i < sizeof notes / sizeof notes[0]; i++) {
        const char *v = rt_tags_get(&p->provenance.notes, notes[i][0]);
        if (v)
            printf("%s: %s\n", notes[i][1], v);
    }
    printf("%s: %zu kernels from %s\n", a->output, p->n_kernels, a->inputs[0]);
}

static void release(void *state)
{
    table_state *s = state;
    free(s->map);
    free(s->names);
}

const cli_importer cli_importer_table = {
    .name = "table",
    .summary = "a processed table, one kernel or config per row",
    .synopsis =
        "rooftime import table FILE [--ai-file FILE] [--map QUANTITY=COLUMN]... -o PROFILE\n",
    .help = "import table: one kernel or config per row; defaults read the paper's V100 tables\n"
            "  -o, --output FILE      the profile to write (required)\n"
            "      --ai-file FILE     more AI columns (L2 AI, L1 AI), joined by the tag columns\n"
            "  -m, --map Q=COLUMN     time, invocations, name, flops.UNIT, flops.total, "
            "bytes.LEVEL,\n"
            "                         ai.LEVEL (bytes = FLOPs / AI), tag.NAME (repeatable)\n"
            "      --no-defaults      only the --map columns (defaults: CUDA Time, Invocations,\n"
            "                         FP32/FP16/TC FLOPs, FLOPs, DRAM AI -> HBM, L2 AI, L1 AI)\n"
            "      --name-column COL  a tag column that goes into the kernel name instead of the "
            "tags\n"
            "                         (repeatable; default: Input Shape, Kernel Shape)\n"
            "      --time device|wall what the time column measures (default: device for the "
            "paper's\n"
            "                         CUDA Time, else unknown; see docs/model.md)\n"
            "  -t, --tag KEY=VALUE    tag the profile (repeatable)\n"
            "\n",
    .short_opts = "m:",
    .options = options,
    .state_size = sizeof(table_state),
    .max_inputs = 1,
    .no_input = "no table file given",
    .too_many = "import table reads one table at a time",
    .option = option,
    .option_input = option_input,
    .read = read_table,
    .report = report,
    .release = release,
};
