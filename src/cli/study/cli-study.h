/* What `study` and `study --gpu` (cmd-study.c, cmd-study-gpu.c) share: their options, parsed in one
 * place, and the writing of their analysis files, findings and report (cli-study.c). */
#ifndef ROOFTIME_CLI_STUDY_H
#define ROOFTIME_CLI_STUDY_H

#include <stdbool.h>

#include "rooftime/core/analysis.h"
#include "rooftime/core/findings.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/profile.h"
#include "rooftime/formats/analysis-format.h"
#include "rooftime/render/report.h"
#include "rooftime/study/study-gpu-plan.h"
#include "rooftime/study/study-run.h"
#include "rooftime/util/error.h"

/* The options of `study` or of `study --gpu`: what is not given is left as it is. */
typedef struct cli_study_args {
    rt_study_opts *cpu;     /* `study`: its selections, iterations and scale go here */
    rt_study_gpu_opts *gpu; /* `study --gpu` (cpu NULL): or here, with the device INDEX */
    const char *dir;        /* -o */
    const char *machine;    /* --machine */
    const char *mode;       /* --mode */
    /* study --gpu only */
    bool dry_run, no_ncu;
    const char *from;      /* --from RUN */
    double client_timeout; /* --client-timeout S */
    const char *ncu_clock; /* --ncu-clock-control: "base" (then "none" when it fails) or "none" */
} cli_study_args;

/* Parse argv (as `study` got it) into a, the one table of both forms' options: an option of the
 * other form is unknown here. 0, or the exit code of the usage error it printed. */
int cli_study_options(int argc, char **argv, cli_study_args *a);

/* A comma list of names (option opt) into n flags with parse; -1 after a usage error naming the
 * bad name, or listing the known ones when the list is empty. */
int cli_study_flags(const char *opt, const char *list, bool *flags, int n,
                    int (*parse)(const char *, int *, rt_error *));

/* An operation's name (conv2d, lstm) as a flag index, for cli_study_flags. */
int cli_study_op_flag(const char *s, int *v, rt_error *err);

/* The analysis as fmt into path, atomically (nothing left on an error), its warnings printed;
 * 0, or -1 after an error message. */
int cli_study_write_analysis(const rt_analysis *a, rt_format fmt, const char *path);
/* What both studies do with their analysis: its warnings on standard error (the first five, naming
 * DIR/analysis.json for the rest), then DIR/analysis.txt and DIR/analysis.json; 0, or -1 (said). */
int cli_study_write_analyses(const rt_analysis *a, const char *dir);

/* What both studies write after their analysis a of profiles on m: the findings as text into
 * DIR/findings.txt, and the report into dir with a's callouts and summary (and, beside a
 * single-mode analysis, the profiles analysed in hier mode, grouped by g); ro gives the title,
 * splits and series, its findings, callouts and summary are set here. The findings' text (caller
 * frees), or NULL after an error message. */
char *cli_study_write_report(const rt_machine *m, rt_mode mode, const rt_analysis *a,
                             rt_profile *const *profiles, size_t n, const rt_group_opts *g,
                             const rt_findings *findings, rt_report_opts *ro, const char *dir);

#endif
