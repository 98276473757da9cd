/* PyTorch trace import, one event: a strict scanner for plain events, jansson for the rest. */
#define _GNU_SOURCE /* memmem */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "torch-internal.h"
#include "rooftime/util/strings.h"

/* FLOPs unit of one recorded input type ("float", "c10::BFloat16" ...), or NULL. */
static const char *unit_of_type(const char *s, size_t n)
{
    if (n == 0)
        return NULL;
    if (memmem(s, n, "BFloat16", 8))
        return "bf16";
    if (memmem(s, n, "Half", 4))
        return "fp16";
    if (n == 6 && memcmp(s, "double", 6) == 0)
        return "fp64";
    if (n == 5 && memcmp(s, "float", 5) == 0)
        return "fp32";
    return NULL;
}

void rt_torch_evf_release(evf *f)
{
    free(f->dims);
    free(f->types);
    free(f->concrete);
    free(f->stack);
    free(f->call_from);
    f->dims = f->types = f->concrete = f->stack = f->call_from = NULL;
}

/* A whole number from 0 to 10^18 - 1, as the scanner below reads them; -1: not one. */
static int64_t count_of(const json_t *v)
{
    return v && json_is_integer(v) && json_integer_value(v) >= 0 &&
                   json_integer_value(v) < 1000000000000000000LL
               ? (int64_t)json_integer_value(v)
               : -1;
}

/* args.correlation, args."External id" and args.bytes (a memcpy's), whole numbers >= 0. */
static void rt_torch_event_ids_from_json(const json_t *args, evf *f)
{
    f->seq = count_of(json_object_get(args, "Sequence number"));
    f->seq_ok = f->seq >= 0;
    f->corr = count_of(json_object_get(args, "correlation"));
    f->ext = count_of(json_object_get(args, "External id"));
    int64_t b = count_of(json_object_get(args, "bytes"));
    f->corr_ok = f->corr >= 0;
    f->ext_ok = f->ext >= 0;
    f->bytes_ok = b >= 0;
    f->bytes = (double)b;
}

void rt_torch_event_from_json(const json_t *j, evf *f)
{
    memset(f, 0, sizeof *f);
    f->is_object = json_is_object(j);
    if (!f->is_object)
        return;
    f->ph = json_string_value(json_object_get(j, "ph"));
    f->cat = json_string_value(json_object_get(j, "cat"));
    f->name = json_string_value(json_object_get(j, "name"));
    const json_t *v;
    if ((v = json_object_get(j, "ts")) && json_is_number(v)) {
        f->ts_ok = 1;
        f->ts = json_number_value(v);
    }
    if ((v = json_object_get(j, "dur")) && json_is_number(v)) {
        f->dur_ok = 1;
        f->dur = json_number_value(v);
    }
    char *ps = json_dumps(json_object_get(j, "pid") ? json_object_get(j, "pid") : json_null(),
                          JSON_ENCODE_ANY | JSON_COMPACT);
    char *ts = json_dumps(json_object_get(j, "tid") ? json_object_get(j, "tid") : json_null(),
                          JSON_ENCODE_ANY | JSON_COMPACT);
    snprintf(f->thread, sizeof f->thread, "%s/%s", ps ? ps : "", ts ? ts : "");
    free(ps);
    free(ts);
    const json_t *args = json_object_get(j, "args");
    if (!json_is_object(args))
        return;
    const json_t *dims = json_object_get(args, "Input Dims");
    if (dims && json_is_array(dims) && json_array_size(dims) > 0)
        f->dims = json_dumps(dims, JSON_COMPACT);
    const json_t *types = json_object_get(args, "Input type");
    if (types && json_is_array(types))
        f->types = json_dumps(types, JSON_COMPACT);
    const json_t *conc = json_object_get(args, "Concrete Inputs");
    if (conc && json_is_array(conc))
        f->concrete = json_dumps(conc, JSON_COMPACT);
    const char *stack = json_string_value(json_object_get(args, "Call stack"));
    if (stack)
        f->stack = rt_strdup(stack);
    const char *from = json_string_value(json_object_get(args, "CallFrom"));
    if (from)
        f->call_from = rt_strdup(from);
    if ((v = json_object_get(args, "flops")) && json_is_number(v)) {
        f->flops_ok = 1;
        f->flops = json_number_value(v);
    }
    rt_torch_event_ids_from_json(args, f);
    if ((v = json_object_get(args, "steps")) && json_is_number(v)) {
        f->steps_ok = 1;
        f->steps = json_number_value(v);
    }
    size_t i;
    const json_t *t;
    json_array_foreach(json_object_get(args, "Input type"), i, t)
    {
        const char *s = json_string_value(t);
        if (s && (f->unit = unit_of_type(s, strlen(s))) != NULL)
            break;
    }
}

/* ---- the fast path: a strict scanner for plain events; anything unusual goes to jansson ---- */

#define AT(p, e) ((p) < (e) ? *(p) : '\0')

static const char *sc_ws(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    return p;
}

/* A string at p: the end after its quote; *plain = no escapes, ASCII only (copyable as is). */
static const char *sc_string(const char *p, const char *e, int *plain)
{
    *plain = 1;
    for (p++; p < e; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '"')
            return p + 1;
        if (c < 0x20)
            return NULL;
        if (c == '\\' || c >= 0x80) {
            *plain = 0;
            if (c == '\\')
                p++;
        }
    }
    return NULL;
}

static const char *sc_digits(const char *p, const char *e)
{
    const char *q = p;
    while (q < e && *q >= '0' && *q <= '9')
        q++;
    return q > p ? q : NULL;
}

static const char *sc_number(const char *p, const char *e)
{
    if (AT(p, e) == '-')
        p++;
    if (AT(p, e) == '0')
        p++;
    else if (!(p = sc_digits(p, e)))
        return NULL;
    if (AT(p, e) == '.' && !(p = sc_digits(p + 1, e)))
        return NULL;
    if (AT(p, e) == 'e' || AT(p, e) == 'E') {
        p++;
        if (AT(p, e) == '+' || AT(p, e) == '-')
            p++;
        if (!(p = sc_digits(p, e)))
            return NULL;
    }
    return p;
}

static const char *sc_value(const char *p, const char *e, int depth)
{
    int plain;
    char c = AT(p, e);
    if (depth > 64)
        return NULL;
    if (c == '"')
        return sc_string(p, e, &plain);
    if (c == '-' || (c >= '0' && c <= '9'))
        return sc_number(p, e);
    if (c == 't')
        return e - p >= 4 && memcmp(p, "true", 4) == 0 ? p + 4 : NULL;
    if (c == 'f')
        return e - p >= 5 && memcmp(p, "false", 5) == 0 ? p + 5 : NULL;
    if (c == 'n')
        return e - p >= 4 && memcmp(p, "null", 4) == 0 ? p + 4 : NULL;
    if (c != '[' && c != '{')
        return NULL;
    char close = c == '[' ? ']' : '}';
    p = sc_ws(p + 1, e);
    if (AT(p, e) == close)
        return p + 1;
    for (;;) {
        if (close == '}') {
            if (AT(p, e) != '"' || !(p = sc_string(p, e, &plain)))
                return NULL;
            p = sc_ws(p, e);
            if (AT(p, e) != ':')
                return NULL;
            p = sc_ws(p + 1, e);
        }
        if (!(p = sc_value(p, e, depth + 1)))
            return NULL;
        p = sc_ws(p, e);
        if (AT(p, e) == ',') {
            p = sc_ws(p + 1, e);
            continue;
        }
        return AT(p, e) == close ? p + 1 : NULL;
    }
}

/* Copy a plain string value [s, q) (quotes included) into scratch; NULL when it has no room. */
static const char *sc_copy(char **scratch, const char *scratch_end, const char *s, const char *q)
{
    size_t n = (size_t)(q - s) - 2;
    char *d = *scratch;
    if ((size_t)(scratch_end - d) < n + 1)
        return NULL;
    memcpy(d, s + 1, n);
    d[n] = '\0';
    *scratch += n + 1;
    return d;
}

/* Iterate an object's members: calls fn(key, key_len, value, value_end). -1 on a syntax problem
 * or an escaped key. */
typedef int (*member_fn)(void *ctx, const char *k, size_t kl, const char *v, const char *ve);
static const char *sc_object(const char *p, const char *e, member_fn fn, void *ctx)
{
    int plain;
    if (AT(p, e) != '{')
        return NULL;
    p = sc_ws(p + 1, e);
    if (AT(p, e) == '}')
        return p + 1;
    for (;;) {
        const char *ks = p;
        if (AT(p, e) != '"' || !(p = sc_string(p, e, &plain)) || !plain)
            return NULL;
        const char *ke = p;
        p = sc_ws(p, e);
        if (AT(p, e) != ':')
            return NULL;
        p = sc_ws(p + 1, e);
        const char *vs = p;
        if (!(p = sc_value(p, e, 1)))
            return NULL;
        if (fn(ctx, ks + 1, (size_t)(ke - ks) - 2, vs, p) != 0)
            return NULL;
        p = sc_ws(p, e);
        if (AT(p, e) == ',') {
            p = sc_ws(p + 1, e);
            continue;
        }
        return AT(p, e) == '}' ? p + 1 : NULL;
    }
}

typedef struct fast_ctx {
    evf *f;
    char *scratch;
    const char *scratch_end;
} fast_ctx;

static int key_is(const char *k, size_t kl, const char *want)
{
    return strlen(want) == kl && memcmp(k, want, kl) == 0;
}

/* A JSON array [v, ve) compacted as json_dumps(JSON_COMPACT) writes it (no blanks outside
 * strings); only plain arrays come here (escapes send the event to jansson). */
static char *compact(const char *v, const char *ve)
{
    char *d = rt_xmalloc((size_t)(ve - v) + 1), *o = d;
    int in_str = 0;
    for (const char *p = v; p < ve; p++) {
        if (*p == '"')
            in_str = !in_str;
        if (in_str || !(*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
            *o++ = *p;
    }
    *o = '\0';
    return d;
}

/* No escapes and ASCII only inside [v, ve): -1 otherwise (jansson decodes those). */
static int plain_text(const char *v, const char *ve)
{
    for (const char *p = v; p < ve; p++)
        if (*p == '\\' || (unsigned char)*p >= 0x80)
            return -1;
    return 0;
}

/* A whole number >= 0 written plainly in [v, ve) (at most 18 digits); -1 when it is not one. */
static int64_t plain_count(const char *v, const char *ve)
{
    if (v >= ve || ve - v > 18)
        return -1;
    int64_t x = 0;
    for (const char *p = v; p < ve; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        x = 10 * x + (*p - '0');
    }
    return x;
}

/* The JSON number [v, ve) (sc_number checked it), read without looking past ve: the text may end
 * there with no NUL after it (rt_import_torch_text's buffer). 0 and *out; -1 when it is not one. */
static int number_at(const char *v, const char *ve, double *out)
{
    char buf[64];
    size_t n = (size_t)(ve - v);
    *out = 0;
    if (!(*v == '-' || (*v >= '0' && *v <= '9')))
        return -1;
    if (n >= sizeof buf) /* a number of 64 characters or more: jansson reads the event */
        return -2;
    memcpy(buf, v, n);
    buf[n] = '\0';
    *out = strtod(buf, NULL);
    return 0;
}

static int args_member(void *ctx_, const char *k, size_t kl, const char *v, const char *ve)
{
    fast_ctx *c = ctx_;
    if (key_is(k, kl, "correlation") || key_is(k, kl, "External id")) {
        int64_t x = plain_count(v, ve);
        if (k[0] == 'c') {
            c->f->corr_ok = x >= 0;
            c->f->corr = x;
        } else {
            c->f->ext_ok = x >= 0;
            c->f->ext = x;
        }
    } else if (key_is(k, kl, "Sequence number")) {
        c->f->seq = plain_count(v, ve);
        c->f->seq_ok = c->f->seq >= 0;
    } else if (key_is(k, kl, "bytes")) {
        int64_t x = plain_count(v, ve);
        c->f->bytes_ok = x >= 0;
        c->f->bytes = (double)x;
    } else if (key_is(k, kl, "Input Dims")) {
        free(c->f->dims);
        c->f->dims = NULL;
        if (*v == '[' && ve - v > 2) {
            if (plain_text(v, ve) != 0)
                return -1;
            c->f->dims = compact(v, ve);
        }
    } else if (key_is(k, kl, "Concrete Inputs")) {
        free(c->f->concrete);
        c->f->concrete = NULL;
        if (*v == '[') {
            if (plain_text(v, ve) != 0)
                return -1;
            c->f->concrete = compact(v, ve);
        }
    } else if (key_is(k, kl, "Call stack") || key_is(k, kl, "CallFrom")) {
        char **dst = kl == 10 ? &c->f->stack : &c->f->call_from;
        free(*dst);
        *dst = NULL;
        if (*v == '"') {
            if (plain_text(v, ve) != 0)
                return -1;
            *dst = rt_strndup(v + 1, (size_t)(ve - v) - 2);
        }
    } else if (key_is(k, kl, "flops")) {
        int rc = number_at(v, ve, &c->f->flops);
        if (rc == -2)
            return -1;
        c->f->flops_ok = rc == 0;
    } else if (key_is(k, kl, "steps")) {
        c->f->steps_ok = *v >= '0' && *v <= '9';
        if (c->f->steps_ok)
            c->f->steps = strtod(v, NULL);
    } else if (key_is(k, kl, "Input type") && *v == '[') {
        if (plain_text(v, ve) != 0)
            return -1;
        free(c->f->types);
        c->f->types = compact(v, ve);
        c->f->unit = NULL;
        for (const char *p = v + 1; p < ve && !c->f->unit; p++)
            if (*p == '"') {
                const char *q = memchr(p + 1, '"', (size_t)(ve - p - 1));
                if (!q)
                    break;
                c->f->unit = unit_of_type(p + 1, (size_t)(q - p - 1));
                p = q;
            }
    }
    return 0;
}

static int event_member(void *ctx_, const char *k, size_t kl, const char *v, const char *ve)
{
    fast_ctx *c = ctx_;
    evf *f = c->f;
    int plain = 1;
    if (kl == 2 && (key_is(k, kl, "ph") || key_is(k, kl, "ts"))) {
        if (k[0] == 'p') {
            if (*v != '"') {
                f->ph = NULL;
                return 0;
            }
            sc_string(v, ve, &plain);
            if (!plain || !(f->ph = sc_copy(&c->scratch, c->scratch_end, v, ve)))
                return -1;
        } else {
            int rc = number_at(v, ve, &f->ts);
            if (rc == -2)
                return -1;
            f->ts_ok = rc == 0;
        }
    } else if (key_is(k, kl, "dur")) {
        int rc = number_at(v, ve, &f->dur);
        if (rc == -2)
            return -1;
        f->dur_ok = rc == 0;
    } else if (key_is(k, kl, "cat") || key_is(k, kl, "name")) {
        const char **dst = k[0] == 'c' ? &f->cat : &f->name;
        if (*v != '"') {
            *dst = NULL;
            return 0;
        }
        sc_string(v, ve, &plain);
        /* escapes or UTF-8: jansson decodes and checks them */
        if (!plain || !(*dst = sc_copy(&c->scratch, c->scratch_end, v, ve)))
            return -1;
    } else if (key_is(k, kl, "pid") || key_is(k, kl, "tid")) {
        /* kept as written, "pid/tid", in the order pid then tid */
        size_t n = (size_t)(ve - v);
        if (n > 100)
            return -1;
        char *slot = k[0] == 'p' ? f->thread : f->thread + 128;
        memcpy(slot, v, n);
        slot[n] = '\0';
    } else if (key_is(k, kl, "args")) {
        if (*v == '{' && !sc_object(v, ve, args_member, c))
            return -1;
    }
    return 0;
}

/* Read one event at p without jansson. 0 and *used on success; -1: let jansson read it. */
int rt_torch_event_scan(const char *p, const char *e, evf *f, char *scratch, size_t *used)
{
    memset(f, 0, sizeof *f);
    f->is_object = 1;
    strcpy(f->thread, "null");
    strcpy(f->thread + 128, "null");
    fast_ctx c = {f, scratch, scratch + SCRATCH_SIZE};
    const char *q = sc_object(p, e, event_member, &c);
    if (!q) {
        rt_torch_evf_release(f);
        return -1;
    }
    char tid[128];
    snprintf(tid, sizeof tid, "%s", f->thread + 128);
    size_t pl = strlen(f->thread);
    snprintf(f->thread + pl, sizeof f->thread - pl, "/%s", tid);
    *used = (size_t)(q - p);
    return 0;
}
