/* The stable C API of librooftime.so for other languages (the Python package, python/): opaque
 * handles, C strings in and out, one error message per thread. Nothing here prints or exits. */
#ifndef ROOFTIME_API_API_H
#define ROOFTIME_API_API_H

#include <stddef.h>

#include "rooftime/core/across.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/profile.h"

/* Exported from librooftime.so (the wings inside it are hidden). */
#define RT_API __attribute__((visibility("default")))

/* Bumped when a signature below changes or a function is added; the Python package checks it on
 * load (2: rt_api_import_opts, rt_api_import_options, rt_api_machine_measure_opts; 3:
 * rt_api_analysis_table, rt_api_table_free; 4: rt_api_analysis_table's RT_API_OPT_TEXT columns,
 * tag.<key>, which a package of 3 would misread; 5: rt_api_mean_profile, rt_api_gate; 6:
 * rt_api_kernel_name_key). */
#define RT_API_VERSION 6
RT_API int rt_api_version(void);

/*
 * Errors: a call that fails returns -1 or NULL and leaves its message (file, line, field where
 * known: the library's own rt_error) for rt_api_error(), per thread. rt_api_warnings() is the
 * warnings of this thread's last import or analysis, one per line ("" when none).
 */
RT_API const char *rt_api_error(void);
RT_API const char *rt_api_warnings(void);
/* Free a string this API returned. */
RT_API void rt_api_free(char *s);
/* Where data/ lives when $ROOFTIME_DATADIR is not set (the package's copy); 0 or -1. */
RT_API int rt_api_set_datadir(const char *dir);
RT_API const char *rt_api_datadir(void);

/* ---- machines (api-machine.c) ---- */
/* A preset name (v100, h100-sxm ...) or a machine file. */
RT_API rt_machine *rt_api_machine_load(const char *name_or_path);
/* Measure this machine (quick: the short run, under 30 s on 2 cores). */
RT_API rt_machine *rt_api_machine_measure(int quick);
/* The same with the arguments of `--threads N` (NULL: all cores) and `--max-isa ISA` (sse, avx2,
 * avx512, amx; NULL: every ISA) as the command line spells them, checked as the command checks
 * them before anything runs. */
RT_API rt_machine *rt_api_machine_measure_opts(int quick, const char *threads, const char *max_isa);
RT_API char *rt_api_machine_json(const rt_machine *m);
RT_API int rt_api_machine_save(const rt_machine *m, const char *path);
RT_API const char *rt_api_machine_name(const rt_machine *m);
RT_API void rt_api_machine_free(rt_machine *m);

/* ---- profiles (api-profile.c) ---- */
/* A rooftime profile file; its communication kernels tagged as `analyze` tags them. */
RT_API rt_profile *rt_api_profile_load(const char *path);
/*
 * Import other tools' output as `rooftime import KIND` does: kind "ncu" (n files), "table",
 * "torch", "onednn" (one file each) or "cupti" (one directory), with the command's options as
 * name/value pairs: name the long option without its dashes ("per-launch", "metrics",
 * "tensor-factor"), value its argument as the command line spells it ("512", "sm_80",
 * "time=CUDA Time"), or NULL for a flag. A repeatable option ("tag", "map", "name-column") comes
 * once per value; another given twice keeps the last, as on the command line. An option KIND does
 * not take, a flag with a value, an option without its value or a bad value fails with the
 * command's message ("import ncu: --tensor-factor takes a number > 0, not 'x'"). The strings are
 * read during the call only. The profile records this process's identity (launcher rank, host,
 * device) as the command's does. In api-import.c.
 */
typedef struct rt_api_option {
    const char *name;
    const char *value;
} rt_api_option;
RT_API rt_profile *rt_api_import_opts(const char *kind, const char *const *paths, size_t n,
                                      const rt_api_option *opts, size_t n_opts);
/* The options KIND takes, one per line: "name" a flag, "name=" one value, "name=*" repeatable
 * (a static string; NULL with the error set for an unknown kind). */
RT_API const char *rt_api_import_options(const char *kind);
/* Version 1's import: ai_file as --ai-file of table, conv as --conv-flops of torch and onednn
 * (each NULL when not given); rt_api_import_opts with those two. */
RT_API rt_profile *rt_api_import(const char *kind, const char *const *paths, size_t n,
                                 const char *ai_file, const char *conv);
/* A trace of the torch runner (data/torch/runner) as `profile --torch` imports it: the cost
 * model, by source line, the wall time and its coverage in the notes; command names the run. */
RT_API rt_profile *rt_api_profile_torch_trace(const char *trace, double wall_seconds,
                                              const char *command);
/* The CUPTI collector for rooftime.gpu.profile() (api-gpu.c): the real path of
 * librooftime-cupti.so, found as `profile --gpu` finds it ($ROOFTIME_CUPTI_LIB, else beside
 * librooftime.so), and the comma list of metrics its counters mode collects on this machine's GPUs
 * (as `profile --gpu --counters`). Heap strings (rt_api_free), or NULL with the error set. */
RT_API char *rt_api_cupti_lib(void);
RT_API char *rt_api_cupti_metrics(void);
RT_API char *rt_api_profile_json(const rt_profile *p);
RT_API int rt_api_profile_save(const rt_profile *p, const char *path);
RT_API size_t rt_api_profile_kernels(const rt_profile *p);
/* The key a kernel's name shares with its other printings (rooftime/core/kernel-name-key.h: the
 * collector's __cxa_demangle text, Nsight Compute's shortened one, the mangled name), for
 * matching kernels across tools; a heap string (rt_api_free), or NULL with the error set. */
RT_API char *rt_api_kernel_name_key(const char *name);
RT_API void rt_api_profile_free(rt_profile *p);

/* ---- analyses (api-analysis.c) ---- */
typedef struct rt_api_analysis rt_api_analysis;
/*
 * The analysis of `analyze`: mode "single" or "hier" (NULL: each output's default, as the
 * commands: hier for the tables, the view's for plot, single for report); tau, reference,
 * group_by and ignore as the options of the same names (comma lists; each NULL when not given).
 * The machine and profiles are copied where the options change them; the caller keeps the
 * profiles alive while the analysis lives.
 */
RT_API rt_api_analysis *rt_api_analyze(const rt_machine *m, rt_profile *const *ps, size_t n,
                                       const char *mode, const char *tau, const char *reference,
                                       const char *group_by, const char *ignore);
/* The tables as `analyze --format F`: "csv", "json" or "text" (top: its --top); or "findings":
 * the summary and callouts of `report` as a JSON array, one object per block ({"source",
 * "section", "kind", "lead", "text", "rows", "note"}); or "head": the JSON's members before its
 * lists (schema, mode, machine, totals), whatever the number of kernels. */
RT_API char *rt_api_analysis_text(rt_api_analysis *a, const char *format, size_t top);

/*
 * One table of `analyze --format csv` as columns (api-table.c): kind "config" or "kernel" (the
 * CSV's first field) gives its rows in the CSV's order and its columns in the CSV's order, under
 * the CSV header's names, the values the CSV prints (before printing rounds them to 9 digits).
 * A column is RT_API_TEXT (n_rows NUL-terminated UTF-8 strings, one after another), RT_API_INT
 * (n_rows int64_t), RT_API_REAL (n_rows doubles; NAN where the CSV's field is empty) or
 * RT_API_COUNT (n_rows doubles that count something, invocations: whole numbers in the profiles
 * rooftime writes) or RT_API_OPT_TEXT (text a row may lack, the tag.<key> columns: n_rows bytes,
 * 1 where the row has a value and 0 where not, then n_rows NUL-terminated UTF-8 strings, "" where
 * not); size is its data's bytes. Freed whole by rt_api_table_free; NULL with the error set.
 * The tag columns' warning (tag keys beyond the 64 columns) is this call's rt_api_warnings().
 */
enum { RT_API_TEXT = 0, RT_API_INT = 1, RT_API_REAL = 2, RT_API_COUNT = 3, RT_API_OPT_TEXT = 4 };
typedef struct rt_api_column {
    char *name;
    int type;
    void *data;
    size_t size;
} rt_api_column;
typedef struct rt_api_table {
    size_t n_rows, n_columns;
    rt_api_column *columns;
} rt_api_table;
RT_API rt_api_table *rt_api_analysis_table(rt_api_analysis *a, const char *kind);
RT_API void rt_api_table_free(rt_api_table *t);

/* The options of `rooftime plot`; zero or NULL fields take its defaults. */
typedef struct rt_api_plot_opts {
    const char *view;   /* roofline, complexity, time, 4d (default) */
    const char *points; /* configs (default) or kernels */
    const char *title;
    const char *series_by, *marker_by, *fill_by, *family;
    const char *where; /* "TAG=VALUE" lines, joined by '\n' */
    double width, height;
    size_t labels;
    int all_roofs;
} rt_api_plot_opts;
/* The chart as SVG text (path NULL), or written to path (.svg, .png, .pdf; atomic). */
RT_API char *rt_api_analysis_svg(rt_api_analysis *a, const rt_api_plot_opts *o);
RT_API int rt_api_analysis_plot(rt_api_analysis *a, const rt_api_plot_opts *o, const char *path);

/* The options of `rooftime report`. */
typedef struct rt_api_report_opts {
    const char *title;
    const char *split_by; /* comma list */
    const char *series_by, *marker_by, *fill_by;
    const char *points;
    int all_roofs;
} rt_api_report_opts;
/* DIR/report.html and its charts, as `rooftime report -o DIR`. */
RT_API int rt_api_analysis_report(rt_api_analysis *a, const rt_api_report_opts *o, const char *dir);
RT_API void rt_api_analysis_free(rt_api_analysis *a);

/* ---- two runs (api-diff.c) ---- */
/* The table of `rooftime diff BEFORE AFTER` ("text" or "csv"): m NULL for no verdicts; mode
 * (NULL: single), tau and reference as its options (they need m); by "name" (NULL), "op" or a
 * tag; top its --top (0: 30). The profiles are not changed. */
RT_API char *rt_api_diff(const rt_profile *before, const rt_profile *after, const rt_machine *m,
                         const char *mode, const char *tau, const char *reference, const char *by,
                         size_t top, const char *format);
/* The mean of several runs of one workload as one profile (`diff --gate`'s table of a side):
 * each kernel's time, invocations, FLOPs and bytes over the runs divided by n. */
RT_API rt_profile *rt_api_mean_profile(const rt_profile *const *runs, size_t n);
/* The options of `diff --gate`: threshold, min_share (fractions) and launches; a negative value
 * takes the default (5%, 1%, 0.5); the flags as --strict, --allow-other-machine,
 * --allow-suspect-machine; junit and summary files to write (NULL: none). */
typedef struct rt_api_gate_opts {
    double threshold, min_share, launches;
    int strict, other_machine, suspect_machine;
    const char *junit, *summary;
} rt_api_gate_opts;
/* The gate of `rooftime diff --gate` on the runs before[0..nb) and after[0..na), the other
 * arguments as rt_api_diff's: format "text" (what the command prints) or "csv" (every row:
 * state, check, subject, name, source, before, after, ratio, margin, line); *status (may be
 * NULL) gets 0 pass, 1 fail, 2 refused. NULL with the error set. The profiles are not changed. */
RT_API char *rt_api_gate(const rt_profile *const *before, size_t nb, const rt_profile *const *after,
                         size_t na, const rt_machine *m, const char *mode, const char *tau,
                         const char *reference, const char *by, size_t top,
                         const rt_api_gate_opts *o, const char *format, int *status);

/* ---- across ranks (api-across.c) ---- */
/* `analyze --across rank` over profile files (one per rank, folded one at a time); straggler and
 * slowest as its options (0: the defaults, 0.2 and 3). */
RT_API rt_across *rt_api_across_new(const char *const *paths, size_t n, double straggler,
                                    size_t slowest);
/* Its text ("text", top rows per table) or "json" output. */
RT_API char *rt_api_across_text(const rt_across *a, const char *format, size_t top);
/* Its --chart (.svg, .png, .pdf); m may be NULL (no compute roof). */
RT_API int rt_api_across_chart(const rt_across *a, const rt_machine *m, const char *path);
RT_API void rt_api_across_free(rt_across *a);

#endif
