/* oneDNN verbose logs, descriptors: problem shapes ("mb16_ic64oc64_ih56..."), dimension lists
 * ("2x3x4x5:2x3x4x5") and memory descriptors ("src_f32::blocked:abcd:f0"). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onednn-internal.h"
#include "rooftime/util/strings.h"

/* Dimension lists such as "4x32x64:4x64x48:4x32x48". */

int rt_onednn_dims_parse(const char *s, dimlists *dl)
{
    memset(dl, 0, sizeof *dl);
    const char *p = s;
    if (!*p)
        return -1;
    dl->n = 1;
    for (;;) {
        if (!isdigit((unsigned char)*p))
            return -1;
        double v = 0;
        while (isdigit((unsigned char)*p))
            v = v * 10 + (*p++ - '0');
        int l = dl->n - 1;
        if (dl->nd[l] == MAX_DIMS)
            return -1;
        dl->d[l][dl->nd[l]++] = v;
        if (*p == '\0')
            return 0;
        if (*p == 'x') {
            p++;
        } else if (*p == ':') {
            if (dl->n == MAX_LISTS)
                return -1;
            dl->n++;
            p++;
        } else {
            return -1;
        }
    }
}

double rt_onednn_dims_prod(const dimlists *dl, int l)
{
    double p = 1;
    for (int i = 0; i < dl->nd[l]; i++)
        p *= dl->d[l][i];
    return p;
}

double rt_onednn_dt_size(const char *dt)
{
    static const struct {
        const char *dt;
        double size;
    } t[] = {{"f32", 4},  {"f64", 8},     {"bf16", 2},    {"f16", 2},     {"s8", 1},
             {"u8", 1},   {"s32", 4},     {"f8_e5m2", 1}, {"f8_e4m3", 1}, {"s4", 0.5},
             {"u4", 0.5}, {"boolean", 1}, {"undef", 0}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (strcmp(t[i].dt, dt) == 0)
            return t[i].size;
    return -1;
}

int rt_onednn_md_parse(const char *tok, mdesc *m)
{
    memset(m, 0, sizeof *m);
    char buf[256];
    if (strlen(tok) >= sizeof buf)
        return -1;
    strcpy(buf, tok);
    char *parts[8];
    int np = 0;
    char *s = buf;
    parts[np++] = s;
    for (; *s && np < 8; s++)
        if (*s == ':') {
            *s = '\0';
            parts[np++] = s + 1;
        }
    if (np >= 2 && rt_onednn_dt_size(parts[1]) >= 0) { /* later 3.x: arg:dt:... */
        snprintf(m->arg, sizeof m->arg, "%s", parts[0]);
        snprintf(m->dt, sizeof m->dt, "%s", parts[1]);
        if (np >= 5)
            snprintf(m->layout, sizeof m->layout, "%s", parts[4]);
        return 0;
    }
    /* The data type is the longest known suffix "_DT" of the first part (f8_e5m2 holds a '_'). */
    static const char *dts[] = {"f8_e5m2", "f8_e4m3", "boolean", "undef", "bf16", "f16", "f32",
                                "f64",     "s32",     "s8",      "u8",    "s4",   "u4"};
    char *us = NULL;
    size_t l0 = strlen(parts[0]);
    for (size_t i = 0; i < sizeof dts / sizeof dts[0] && !us; i++) {
        size_t dl = strlen(dts[i]);
        if (l0 > dl + 1 && parts[0][l0 - dl - 1] == '_' && strcmp(parts[0] + l0 - dl, dts[i]) == 0)
            us = parts[0] + l0 - dl - 1;
    }
    if (!us)
        return -1;
    *us = '\0';
    snprintf(m->arg, sizeof m->arg, "%s", parts[0]);
    snprintf(m->dt, sizeof m->dt, "%s", us + 1);
    /* "src_f32::blocked:abcd:f0" -> parts: src_f32, "", blocked, abcd, f0 */
    if (np >= 4)
        snprintf(m->layout, sizeof m->layout, "%s", parts[3]);
    return 0;
}

int rt_onednn_mds_parse(const char *s, mdlist *ml, rt_error *err)
{
    ml->n = 0;
    char buf[2048];
    if (strlen(s) >= sizeof buf) {
        rt_error_set(err, "memory descriptors too long");
        return -1;
    }
    strcpy(buf, s);
    char *save = NULL;
    for (char *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        if (ml->n == MAX_MDS) {
            rt_error_set(err, "more than %d memory descriptors", MAX_MDS);
            return -1;
        }
        if (rt_onednn_md_parse(tok, &ml->m[ml->n]) != 0) {
            rt_error_set(err, "cannot read memory descriptor '%s'", tok);
            return -1;
        }
        ml->n++;
    }
    if (ml->n == 0) {
        rt_error_set(err, "no memory descriptors");
        return -1;
    }
    return 0;
}

/* The value of "key:value" in the auxiliary field ("alg:vanilla_lstm direction:... flags:S"). */
void rt_onednn_aux_get(const char *aux, const char *key, char *out, size_t n)
{
    out[0] = '\0';
    size_t kl = strlen(key);
    for (const char *p = aux; (p = strstr(p, key)) != NULL; p += kl) {
        if ((p == aux || p[-1] == ' ') && p[kl] == ':') {
            const char *v = p + kl + 1;
            size_t l = strcspn(v, " ");
            if (l >= n)
                l = n - 1;
            memcpy(out, v, l);
            out[l] = '\0';
            return;
        }
    }
}

/* The argument name without "diff_" (its traffic is the same size as the plain argument's). */
const char *rt_onednn_base_arg(const char *arg, int *is_diff)
{
    *is_diff = strncmp(arg, "diff_", 5) == 0;
    return *is_diff ? arg + 5 : arg;
}
