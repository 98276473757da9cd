/* What `study` and `study --gpu` (cmd-study.c, cmd-study-gpu.c) share: their list options and
 * the writing of their analysis files. */
#include <string.h>

#include "cli-study.h"
#include "cli-inputs.h"
#include "commands.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/util/atomic-file.h"
#include "rooftime/util/strings.h"

int cli_study_flags(const char *opt, const char *list, bool *flags, int n,
                    int (*parse)(const char *, int *, rt_error *))
{
    size_t m;
    char **names = rt_split_list(list, &m);
    for (int i = 0; i < n; i++)
        flags[i] = false;
    int rc = m ? 0 : -1;
    rt_error err = {{0}};
    if (!m) {
        parse("", &(int){0}, &err); /* its message lists the known names */
        const char *known = strstr(err.msg, "(known:");
        cli_usage_error("study", "%s: expected a comma-separated list %s", opt, known ? known : "");
    }
    for (size_t i = 0; i < m && rc == 0; i++) {
        int v;
        if (parse(names[i], &v, &err) < 0) {
            cli_usage_error("study", "%s: %s", opt, err.msg);
            rc = -1;
        } else {
            flags[v] = true;
        }
    }
    rt_free_list(names, m);
    return rc;
}

int cli_study_op_flag(const char *s, int *v, rt_error *err)
{
    rt_study_op x = 0;
    int rc = rt_study_op_parse(s, &x, err);
    *v = (int)x;
    return rc;
}

int cli_study_write_analysis(const rt_analysis *a, rt_format fmt, const char *path)
{
    rt_atomic_file af = {0};
    rt_error err;
    rt_warnings warn = {0};
    int wr =
        rt_atomic_open(&af, path, &err) == 0 ? rt_analysis_write(a, fmt, af.fp, &warn, &err) : -1;
    cli_print_warnings(&warn, 10, NULL);
    rt_warnings_release(&warn);
    if (wr != 0) {
        if (af.fp)
            rt_atomic_abort(&af);
        cli_error("%s", err.msg);
        return -1;
    }
    if (rt_atomic_commit(&af, &err) != 0) {
        cli_error("%s", err.msg);
        return -1;
    }
    return 0;
}
