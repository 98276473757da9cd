/* The API's errors, warnings, strings, data directory and this process's identity. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api-internal.h"
#include "rooftime/api/api.h"
#include "rooftime/util/datadir.h"
#include "rooftime/util/rank-identity.h"

static _Thread_local char last_error[2048];
static _Thread_local char *last_warnings;

int rt_api_version(void)
{
    return RT_API_VERSION;
}

const char *rt_api_error(void)
{
    return last_error;
}

const char *rt_api_warnings(void)
{
    return last_warnings ? last_warnings : "";
}

void rt_api_free(char *s)
{
    free(s);
}

void api_begin(void)
{
    last_error[0] = '\0';
    free(last_warnings);
    last_warnings = NULL;
}

void api_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
}

void api_keep_warnings(const rt_warnings *w)
{
    /* Appended: one call may compute several analyses (a report's single and hier modes). */
    size_t had = last_warnings ? strlen(last_warnings) : 0, len = had;
    for (size_t i = 0; i < w->n; i++)
        len += strlen(w->msg[i]) + 1;
    if (len == had)
        return;
    char *all = realloc(last_warnings, len + 1);
    if (!all)
        return;
    last_warnings = all;
    char *o = all + had;
    for (size_t i = 0; i < w->n; i++) {
        size_t k = strlen(w->msg[i]);
        memcpy(o, w->msg[i], k);
        o[k] = '\n';
        o += k + 1;
    }
    *o = '\0';
}

char *api_capture(api_writer fn, void *ctx)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    if (!fp) {
        api_fail("cannot open a memory stream");
        return NULL;
    }
    rt_error err = {{0}};
    int rc = fn(ctx, fp, &err);
    if (fclose(fp) != 0 && rc == 0) {
        api_fail("cannot write to a memory stream");
        rc = -1;
    } else if (rc != 0) {
        api_fail("%s", err.msg[0] ? err.msg : "cannot write the output");
    }
    if (rc != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

int rt_api_set_datadir(const char *dir)
{
    api_begin();
    rt_datadir_set(dir);
    return 0;
}

const char *rt_api_datadir(void)
{
    return rt_datadir();
}

rt_rank_identity *api_identity(void)
{
    rt_rank_identity id;
    rt_error err = {{0}};
    rt_rank_identity_init(&id);
    if (rt_rank_identity_read(&id, &err) != 0) {
        rt_rank_identity_release(&id);
        api_fail("%s", err.msg);
        return NULL;
    }
    rt_rank_identity *out = rt_rank_identity_dup(&id);
    rt_rank_identity_release(&id);
    return out;
}
