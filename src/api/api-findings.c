/* The API's findings of an analysis: the summary and callouts the report opens with, as JSON. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "api-internal.h"
#include "rooftime/api/api.h"
#include "rooftime/core/analysis-findings.h"
#include "rooftime/core/findings.h"
#include "rooftime/core/hints.h"
#include "rooftime/formats/hints-json.h"

static const char *kind_name(rt_findings_block_kind k)
{
    switch (k) {
    case RT_FINDINGS_LIST:
        return "list";
    case RT_FINDINGS_TABLE:
        return "table";
    case RT_FINDINGS_PARAGRAPH:
        return "paragraph";
    case RT_FINDINGS_CALLOUT:
        return "callout";
    }
    return "unknown";
}

/* One object per block: {"source", "section", "kind", "lead", "text", "rows", "note"}. */
static void add_blocks(json_t *out, const char *source, const rt_findings *f)
{
    for (size_t s = 0; f && s < f->n_sections; s++) {
        const rt_findings_section *sec = &f->sections[s];
        for (size_t b = 0; b < sec->n_blocks; b++) {
            const rt_findings_block *bl = &sec->blocks[b];
            json_t *rows = json_array();
            for (size_t r = 0; r < bl->n_rows; r++) {
                json_t *row = json_array();
                for (size_t c = 0; c < bl->n_cols; c++)
                    json_array_append_new(row, json_string(bl->cells[r * bl->n_cols + c]));
                json_array_append_new(rows, row);
            }
            json_array_append_new(out, json_pack("{s:s, s:s?, s:s, s:s?, s:s?, s:o, s:s?}",
                                                 "source", source, "section", sec->heading, "kind",
                                                 kind_name(bl->kind), "lead", bl->lead, "text",
                                                 bl->text, "rows", rows, "note", bl->note));
        }
    }
}

typedef struct findings_job {
    const rt_findings *summary, *callouts;
} findings_job;

static int write_findings(void *ctx, FILE *fp, rt_error *err)
{
    findings_job *j = ctx;
    json_t *out = json_array();
    add_blocks(out, "summary", j->summary);
    add_blocks(out, "callouts", j->callouts);
    int rc = json_dumpf(out, fp, JSON_COMPACT) == 0 ? 0 : -1;
    json_decref(out);
    if (rc != 0)
        rt_error_set(err, "cannot write the findings as JSON");
    return rc;
}

char *api_findings_json(const rt_analysis *an)
{
    rt_verdict_hints hints = {0};
    rt_error err;
    if (rt_verdict_hints_load(NULL, &hints, &err) != 0) {
        api_fail("%s", err.msg);
        return NULL;
    }
    findings_job j = {rt_analysis_summary(an, &hints), rt_analysis_findings(an)};
    char *s = api_capture(write_findings, &j);
    rt_findings_free((rt_findings *)j.summary);
    rt_findings_free((rt_findings *)j.callouts);
    rt_verdict_hints_release(&hints);
    return s;
}
