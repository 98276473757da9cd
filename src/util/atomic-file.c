/* Output files that appear whole or not at all: write to a temporary name, then rename. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rooftime/util/atomic-file.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

int rt_atomic_open(rt_atomic_file *af, const char *path, rt_error *err)
{
    memset(af, 0, sizeof *af);
    char *tmp = rt_asprintf("%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        rt_error_set(err, "cannot write '%s': %s", path, strerror(errno));
        free(tmp);
        return -1;
    }
    /* mkstemp makes 0600; an output file should be readable like any other. */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    af->fp = fdopen(fd, "w");
    if (!af->fp) {
        rt_error_set(err, "cannot write '%s': %s", path, strerror(errno));
        close(fd);
        unlink(tmp);
        free(tmp);
        return -1;
    }
    af->path = rt_strdup(path);
    af->tmp = tmp;
    return 0;
}

int rt_atomic_commit(rt_atomic_file *af, rt_error *err)
{
    int bad = ferror(af->fp);
    int saved = errno;
    if (fclose(af->fp) != 0 && !bad) {
        bad = 1;
        saved = errno;
    }
    af->fp = NULL;
    if (bad) {
        rt_error_set(err, "cannot write '%s': %s", af->path, strerror(saved ? saved : EIO));
        unlink(af->tmp);
    } else if (rename(af->tmp, af->path) != 0) {
        rt_error_set(err, "cannot write '%s': %s", af->path, strerror(errno));
        unlink(af->tmp);
        bad = 1;
    }
    free(af->path);
    free(af->tmp);
    af->path = af->tmp = NULL;
    return bad ? -1 : 0;
}

void rt_atomic_abort(rt_atomic_file *af)
{
    if (af->fp)
        fclose(af->fp);
    if (af->tmp)
        unlink(af->tmp);
    free(af->path);
    free(af->tmp);
    memset(af, 0, sizeof *af);
}

int rt_write_file_atomic(const char *path, const void *data, size_t n, rt_error *err)
{
    rt_atomic_file af;
    if (rt_atomic_open(&af, path, err) != 0)
        return -1;
    if (n && fwrite(data, 1, n, af.fp) != n) {
        rt_error_set(err, "cannot write '%s': %s", path, strerror(errno));
        rt_atomic_abort(&af);
        return -1;
    }
    return rt_atomic_commit(&af, err);
}

int rt_mkdir_p(const char *path, rt_error *err)
{
    char *buf = rt_strdup(path);
    size_t len = strlen(buf);
    for (size_t i = 1; i <= len; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        char c = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
            rt_error_set(err, "cannot create directory '%s': %s", buf, strerror(errno));
            free(buf);
            return -1;
        }
        buf[i] = c;
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        rt_error_set(err, "cannot create directory '%s': not a directory", path);
        free(buf);
        return -1;
    }
    free(buf);
    return 0;
}

int rt_path_in_dir(const char *path, const char *dir)
{
    const char *slash = strrchr(path, '/');
    char *parent = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : strdup(".");
    struct stat sp, sd;
    int in = parent && stat(parent, &sp) == 0 && stat(dir, &sd) == 0 && S_ISDIR(sd.st_mode) &&
             sp.st_dev == sd.st_dev && sp.st_ino == sd.st_ino;
    free(parent);
    return in;
}
