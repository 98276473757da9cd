/* Where a command writes: -o files opened atomically before the work, never over an input. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli-output.h"
#include "commands.h"
#include "rooftime/formats/profile-json.h"
#include "rooftime/util/rank-identity.h"
#include "rooftime/util/strings.h"

int cli_output_is_input(const char *path, char *const *inputs, size_t n_inputs)
{
    struct stat so;
    int have = stat(path, &so) == 0;
    for (size_t i = 0; i < n_inputs; i++) {
        if (!inputs[i] || strcmp(inputs[i], "-") == 0)
            continue;
        struct stat si;
        if (have && stat(inputs[i], &si) == 0) {
            if (si.st_dev == so.st_dev && si.st_ino == so.st_ino)
                return 1;
        } else if (strcmp(inputs[i], path) == 0) {
            return 1;
        }
    }
    return 0;
}

int cli_output_check(const char *cmd, const char *path, char *const *inputs, size_t n_inputs)
{
    if (!path)
        return 0;
    if (!*path)
        return cli_usage_error(cmd, "-o: the output path is empty");
    if (cli_output_is_input(path, inputs, n_inputs))
        return cli_usage_error(cmd, "output '%s' is also an input: it would be overwritten", path);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        cli_error("cannot write '%s': is a directory", path);
        return RT_EXIT_FAIL;
    }
    /* The atomic writer renames a new file over the path: over a device such as /dev/null it
     * would replace the device itself. */
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        cli_error("cannot write '%s': not a regular file (leave out -o for standard output)", path);
        return RT_EXIT_FAIL;
    }
    /* The directory must take a new file: the atomic writer creates one beside the output. */
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : strdup(".");
    int ok = dir && access(dir, W_OK | X_OK) == 0;
    int e = errno;
    if (!ok) {
        cli_error("cannot write '%s': %s", path, dir ? strerror(e) : "out of memory");
        free(dir);
        return RT_EXIT_FAIL;
    }
    free(dir);
    return 0;
}

enum { CLI_OUTPUT_BUF = 1 << 18 };

int cli_output_open(cli_output *o, const char *cmd, const char *path, char *const *inputs,
                    size_t n_inputs)
{
    memset(o, 0, sizeof *o);
    o->path = path;
    o->fp = stdout;
    int rc = cli_output_check(cmd, path, inputs, n_inputs);
    if (rc != 0 || !path)
        return rc;
    rt_error err;
    if (rt_atomic_open(&o->af, path, &err) != 0) {
        cli_error("%s", err.msg);
        return RT_EXIT_FAIL;
    }
    o->fp = o->af.fp;
    /* Tables of a million rows are hundreds of MB: written in 256 KiB pieces, not 4 KiB (glibc
     * takes the size only with a buffer of one's own). */
    o->buf = rt_xmalloc(CLI_OUTPUT_BUF);
    if (setvbuf(o->fp, o->buf, _IOFBF, CLI_OUTPUT_BUF) != 0) {
        free(o->buf);
        o->buf = NULL;
    }
    return 0;
}

int cli_output_close(cli_output *o, int write_failed)
{
    if (!o->path) {
        if (write_failed)
            cli_error("cannot write to standard output");
        return write_failed ? RT_EXIT_FAIL : RT_EXIT_OK;
    }
    if (!o->af.fp)
        return RT_EXIT_FAIL;
    if (write_failed) {
        rt_atomic_abort(&o->af);
        free(o->buf);
        o->buf = NULL;
        cli_error("cannot write '%s'", o->path);
        return RT_EXIT_FAIL;
    }
    rt_error err;
    int rc = rt_atomic_commit(&o->af, &err);
    free(o->buf); /* after the stream's close */
    o->buf = NULL;
    if (rc != 0) {
        cli_error("%s", err.msg);
        return RT_EXIT_FAIL;
    }
    return RT_EXIT_OK;
}

void cli_output_abort(cli_output *o)
{
    if (o->path && o->af.fp)
        rt_atomic_abort(&o->af);
    free(o->buf); /* after the stream's close */
    o->buf = NULL;
}

int cli_identity(const rt_rank_identity **out)
{
    static rt_rank_identity id;
    static int state; /* 0 unread, 1 read, -1 failed */
    static rt_error err;
    if (state == 0) {
        state = rt_rank_identity_read(&id, &err) == 0 ? 1 : -1;
        if (state < 0)
            rt_rank_identity_release(&id);
    }
    *out = &id;
    if (state < 0) {
        cli_error("%s", err.msg);
        return RT_EXIT_FAIL;
    }
    return 0;
}

int cli_output_expand(const char *cmd, const char *pattern, char **out)
{
    *out = NULL;
    if (!pattern)
        return 0;
    const rt_rank_identity *id;
    int rc = cli_identity(&id);
    if (rc != 0)
        return rc;
    size_t cap = strlen(pattern) + 1, n = 0;
    char *s = rt_xmalloc(cap);
    for (const char *c = pattern; *c; c++) {
        char piece[300];
        const char *add = piece;
        long v = -2;
        if (*c != '%') {
            piece[0] = *c;
            piece[1] = '\0';
        } else if (c[1] == '%') {
            add = "%";
        } else if (c[1] == 'h') {
            add = id->host ? id->host : "unknown-host";
        } else if (c[1] == 'r' || c[1] == 'l' || c[1] == 's') {
            v = c[1] == 'r' ? id->rank : c[1] == 'l' ? id->local_rank : id->size;
            if (v < 0) {
                free(s);
                return cli_usage_error(
                    cmd,
                    "-o '%s': %%%c needs the %s from a launcher (OMPI_COMM_WORLD_*, PMI_*, "
                    "SLURM_* or torchrun's RANK/LOCAL_RANK/WORLD_SIZE), and none is set",
                    pattern, c[1],
                    c[1] == 'r'   ? "rank"
                    : c[1] == 'l' ? "local rank"
                                  : "job size");
            }
            snprintf(piece, sizeof piece, "%ld", v);
        } else {
            free(s);
            return cli_usage_error(cmd,
                                   "-o '%s': unknown placeholder '%%%.1s' (%%r rank, %%l local "
                                   "rank, %%s size, %%h host, %%%% a '%%')",
                                   pattern, c[1] ? c + 1 : "");
        }
        if (*c == '%')
            c++;
        size_t k = strlen(add);
        if (n + k + 1 > cap) {
            cap = 2 * (n + k + 1);
            s = rt_xrealloc(s, cap);
        }
        memcpy(s + n, add, k + 1);
        n += k;
    }
    s[n] = '\0';
    *out = s;
    return 0;
}

int cli_output_required(const char *cmd, const char *output, char **out_path)
{
    if (!output)
        return cli_usage_error(cmd, "-o FILE is required");
    if (!*output)
        return cli_usage_error(cmd, "-o: the output path is empty");
    return cli_output_expand(cmd, output, out_path);
}

int cli_save_profile(rt_profile *p, const rt_tags *tags, const char *output)
{
    rt_error err;
    const rt_rank_identity *id;
    if (cli_identity(&id) != 0)
        return -1;
    p->identity = rt_rank_identity_stamp(p->identity, id);
    rt_tags_copy(&p->tags, tags);
    if (rt_profile_save(p, output, &err) != 0) {
        /* An importer's values that no profile may hold: the input they came from is named. */
        const rt_provenance *pv = &p->provenance;
        if (pv->n_inputs)
            cli_error("%s (read from '%s'%s)", err.msg, pv->inputs[0],
                      pv->n_inputs > 1 ? " and more" : "");
        else
            cli_error("%s", err.msg);
        return -1;
    }
    return 0;
}
