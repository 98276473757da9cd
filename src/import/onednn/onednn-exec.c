/* oneDNN verbose execution records into kernels: a name, FLOPs and bytes per distinct primitive,
 * and the unit its FLOPs ran on (data/onednn/units.json). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onednn-internal.h"
#include "rooftime/import/onednn.h"
#include "rooftime/util/format.h"
#include "rooftime/util/strings.h"

/* A kernel name a reader can follow: kind, implementation, propagation, algorithm, data types and
 * the problem; reorders show their layouts since both directions share one problem. */
static char *make_name(const char *kind, const char *impl, const char *prop, const char *aux,
                       const mdlist *ml, const char *problem)
{
    char alg[64] = "";
    rt_onednn_aux_get(aux, "alg", alg, sizeof alg);
    if (strcmp(alg, "convolution_direct") == 0 || strcmp(alg, "deconvolution_direct") == 0)
        alg[0] = '\0';
    char types[256] = "";
    size_t tl = 0;
    const char *first = NULL;
    for (int i = 0; i < ml->n; i++) {
        const char *dt = ml->m[i].dt;
        if (strcmp(dt, "undef") == 0)
            continue;
        if (!first) {
            first = dt;
            tl += (size_t)snprintf(types + tl, sizeof types - tl, "%s", dt);
        } else if (strcmp(dt, first) != 0 && !strstr(types, dt) && tl < sizeof types - 20) {
            tl += (size_t)snprintf(types + tl, sizeof types - tl, "/%s", dt);
        }
    }
    char layouts[160] = "";
    if (strcmp(kind, "reorder") == 0 && ml->n >= 2)
        snprintf(layouts, sizeof layouts, "%s>%s", ml->m[0].layout, ml->m[ml->n - 1].layout);
    char buf[1024];
    snprintf(buf, sizeof buf, "%s %s%s%s%s%s%s%s %s %s", kind, impl,
             strcmp(prop, "undef") != 0 && prop[0] ? " " : "",
             strcmp(prop, "undef") != 0 ? prop : "", alg[0] ? " " : "", alg, layouts[0] ? " " : "",
             layouts, types[0] ? types : "-", problem);
    return rt_strdup(buf);
}

/* The cost of one primitive; what the model does not cover is said once per kind. */
static int compute_cost(rt_onednn_reader *r, const char *kind, const char *prop, const mdlist *ml,
                        const char *aux, const char *problem, cost *c, rt_error *err)
{
    rt_onednn_coverage cov;
    if (rt_onednn_cost(&r->model, kind, prop, ml, aux, problem, r->window, c, &cov, err) != 0)
        return -1;
    if (cov == RT_ONEDNN_UNREAD_KEY) {
        /* said once per kind and message, at its first line */
        char *key = rt_asprintf("unread:%s:%s", kind, err->msg);
        rt_onednn_note_once(r, key,
                            "line %zu: field 'problem_desc' '%s': %s: every kernel with that key "
                            "keeps its time, without FLOPs or bytes (a size would be misread)",
                            r->lineno, problem, err->msg);
        free(key);
        err->msg[0] = '\0';
    } else if (cov == RT_ONEDNN_NO_FLOPS)
        rt_onednn_note_once(r, kind,
                            "FLOPs of '%s' primitives are not modelled: their kernels have time "
                            "and bytes but no FLOPs",
                            kind);
    else if (cov == RT_ONEDNN_UNMODELLED)
        rt_onednn_note_once(r, kind,
                            "'%s' primitives are not modelled: their kernels have time but no "
                            "FLOPs or bytes",
                            kind);
    return 0;
}

/* The unit key of a new entry: kind, implementation, data type and fpmath mode, interned. */
static size_t unit_key(rt_onednn_reader *r, const char *kind, const char *impl, const mdlist *ml,
                       const char *attr)
{
    char mode[32];
    const char *dt = rt_onednn_source_dt(ml);
    const char *fp = rt_onednn_units_fpmath(r->units, attr, mode, sizeof mode);
    char *text = rt_asprintf("%s\t%s\t%s\t%s", kind, impl, dt ? dt : "", fp ? fp : "");
    size_t k = rt_name_index_get(&r->ukeys_ix, text, strlen(text));
    if (k == (size_t)-1) {
        if (r->n_ukeys == r->cap_ukeys) {
            r->cap_ukeys = r->cap_ukeys ? 2 * r->cap_ukeys : 8;
            r->ukeys = rt_xrealloc(r->ukeys, r->cap_ukeys * sizeof *r->ukeys);
        }
        k = r->n_ukeys++;
        r->ukeys[k] = (rt_onednn_unit_key){.kind = rt_strdup(kind),
                                           .impl = rt_strdup(impl),
                                           .dt = dt ? rt_strdup(dt) : NULL,
                                           .fpmath = fp ? rt_strdup(fp) : NULL};
        rt_name_index_put(&r->ukeys_ix, text, strlen(text), k);
    }
    free(text);
    return k;
}

/* A name not yet in use: two keys differing only in layouts would share one, so the later ones
 * are numbered; the next number to try is remembered per name (20,000 keys sharing a name cost
 * linear time, not quadratic). */
static char *unique_name(rt_onednn_reader *r, char *name)
{
    if (rt_name_index_get(&r->names, name, strlen(name)) == (size_t)-1)
        return name;
    size_t k = rt_name_index_get(&r->next_number, name, strlen(name));
    if (k == (size_t)-1)
        k = 2;
    for (;; k++) {
        char *alt = rt_asprintf("%s #%zu", name, k);
        if (rt_name_index_get(&r->names, alt, strlen(alt)) == (size_t)-1) {
            rt_name_index_put(&r->next_number, name, strlen(name), k + 1);
            free(name);
            return alt;
        }
        free(alt);
    }
}

/* The first time a key is seen: its cost, name and unit key; -1 when its descriptors cannot be
 * read (said as a bad line). */
static int new_entry(rt_onednn_reader *r, char **f, const int *at, const char *attr, size_t *idx)
{
    const char *kind = f[at[RT_DN_KIND]], *impl = f[at[RT_DN_IMPL]], *prop = f[at[RT_DN_PROP]],
               *aux = f[at[RT_DN_AUX]], *problem = f[at[RT_DN_PROBLEM]];
    mdlist ml;
    rt_error e = {{0}};
    cost c;
    if (rt_onednn_mds_parse(f[at[RT_DN_MDS]], &ml, &e) != 0 ||
        compute_cost(r, kind, prop, &ml, aux, problem, &c, &e) != 0 ||
        (c.flops_known && !(isfinite(c.flops) && c.flops >= 0) &&
         (rt_error_set(&e, "FLOPs per call %g: a size is out of range", c.flops), 1)) ||
        (c.bytes_known && !(isfinite(c.bytes) && c.bytes >= 0) &&
         (rt_error_set(&e, "bytes per call %g: a size is out of range", c.bytes), 1))) {
        rt_onednn_bad_line(r, "%s %s: field 'problem_desc' or 'memory_descriptors': %s", kind,
                           problem, e.msg);
        return -1;
    }
    if (r->n_e == r->cap_e) {
        r->cap_e = r->cap_e ? 2 * r->cap_e : 16;
        r->e = rt_xrealloc(r->e, r->cap_e * sizeof *r->e);
    }
    rt_onednn_entry *en = &r->e[r->n_e];
    memset(en, 0, sizeof *en);
    en->name = unique_name(r, make_name(kind, impl, prop, aux, &ml, problem));
    rt_name_index_put(&r->names, en->name, strlen(en->name), r->n_e);
    en->flops = c.flops_known ? c.flops : -1;
    en->bytes = c.bytes_known ? c.bytes : -1;
    en->unit_key = unit_key(r, kind, impl, &ml, attr);
    *idx = r->n_e++;
    if (!r->engine)
        r->engine = rt_strdup(f[at[RT_DN_ENGINE]]);
    return 0;
}

void rt_onednn_read_exec(rt_onednn_reader *r, const rt_onednn_columns *c, char **f, int nf, int op)
{
    if (nf - op - 1 < c->n || (!c->attr && nf - op - 1 != c->n)) {
        rt_onednn_bad_line(r, "exec record has %d fields, expected %s%d (%s)", nf - op - 1,
                           c->attr ? "at least " : "", c->n + 1, c->list);
        return;
    }
    int at[RT_DN_NCOL];
    for (int k = 0; k < RT_DN_NCOL; k++)
        at[k] = rt_onednn_field_at(c, k, op, nf);
    const char *time_s = f[at[RT_DN_TIME]];
    double ms;
    if (!rt_parse_double(time_s, &ms) || ms < 0) {
        rt_onednn_bad_line(r, "field 'exec_time': '%s' is not a time in milliseconds", time_s);
        return;
    }
    if (!f[at[RT_DN_KIND]][0] || !f[at[RT_DN_PROBLEM]][0]) {
        rt_onednn_bad_line(r, "exec record has an empty primitive kind or problem descriptor");
        return;
    }
    /* The key is the record's columns but the time, in the header's order (2.x and 3.x: every
     * field but the last); the attributes are the fields from their column's to the next one's
     * (they may hold commas). */
    int attr_end = c->attr ? nf + c->attr - c->n : at[RT_DN_ATTR] + 1;
    char key[4096], attr[1024] = "";
    size_t kl = 0, al = 0;
    for (int j = at[RT_DN_ATTR]; j < attr_end && al < sizeof attr - 1; j++)
        al += (size_t)snprintf(attr + al, sizeof attr - al, "%s%s", al ? "," : "", f[j]);
    static const int order[] = {RT_DN_ENGINE, RT_DN_KIND, RT_DN_IMPL, RT_DN_PROP,
                                RT_DN_MDS,    RT_DN_ATTR, RT_DN_AUX,  RT_DN_PROBLEM};
    for (size_t o = 0; o < sizeof order / sizeof order[0]; o++) {
        int w = snprintf(key + kl, sizeof key - kl, "%s%s", o ? "," : "",
                         order[o] == RT_DN_ATTR ? attr : f[at[order[o]]]);
        if (w < 0 || (size_t)w >= sizeof key - kl || al >= sizeof attr - 1) {
            rt_onednn_bad_line(r, "exec record too long");
            return;
        }
        kl += (size_t)w;
    }
    size_t idx = rt_name_index_get(&r->ix, key, kl);
    if (idx == (size_t)-1) {
        if (new_entry(r, f, at, attr, &idx) != 0)
            return;
        rt_name_index_put(&r->ix, key, kl, idx);
    }
    r->e[idx].calls += 1;
    r->e[idx].ms += ms;
    rt_time_samples_add(&r->e[idx].samples, ms * 1e-3);
    r->n_exec++;
}

/* What the profile says of the units found one way (the widest of the CPU, or unknown). */
static void say_units(rt_onednn_reader *r, rt_warnings *w, rt_onednn_unit_basis basis,
                      const char *cpu_isa, double total)
{
    size_t kernels = 0;
    double seconds = 0;
    char list[512] = "";
    size_t l = 0;
    const char *why = NULL;
    for (size_t i = 0; i < r->n_ukeys; i++) {
        const rt_onednn_unit_key *u = &r->ukeys[i];
        if (u->basis != basis || u->kernels == 0)
            continue;
        kernels += u->kernels;
        seconds += u->seconds;
        why = u->why;
        if (l < sizeof list - 64)
            l += (size_t)snprintf(list + l, sizeof list - l, "%s%s %s %s -> %s", l ? "; " : "",
                                  u->kind, u->impl, u->dt ? u->dt : "f32", u->unit);
    }
    if (kernels == 0)
        return;
    char share[32];
    snprintf(share, sizeof share, "%.1f%%", total > 0 ? 100 * seconds / total : 0);
    if (basis == RT_ONEDNN_UNIT_WIDEST)
        rt_warnings_add(w,
                        "'%s': %zu kernel%s (%s of the time) ran implementations that name no "
                        "instruction set (%s): their FLOPs are credited to the widest unit the "
                        "CPU has for their data type (its line 'isa:%s' names %s), so that their "
                        "bound holds; a narrower unit may be what ran (%s: %s)",
                        r->origin, kernels, kernels == 1 ? "" : "s", share, list, r->isa, cpu_isa,
                        rt_onednn_units_name(r->units), why ? why : "");
    else
        rt_warnings_add(w,
                        "'%s': %zu kernel%s (%s of the time) %s their FLOPs on the unit "
                        "'unknown' (%s): %s%s%s, so the unit they ran on cannot be told (%s)",
                        r->origin, kernels, kernels == 1 ? "" : "s", share,
                        kernels == 1 ? "has" : "have", list,
                        why ? "their implementation names no instruction set and " : "",
                        !why ? "the data type is not in the table" : "the log has no CPU line ",
                        !why     ? ""
                        : r->isa ? "the table knows"
                                 : "('info,cpu,isa:')",
                        rt_onednn_units_name(r->units));
}

void rt_onednn_resolve_units(rt_onednn_reader *r, rt_profile *p, rt_warnings *w)
{
    const char *cpu_isa = rt_onednn_units_cpu_isa(r->units, r->isa);
    for (size_t i = 0; i < r->n_ukeys; i++) {
        rt_onednn_unit_key *u = &r->ukeys[i];
        u->unit = rt_onednn_units_unit(r->units, u->kind, u->impl, u->dt, u->fpmath, cpu_isa,
                                       &u->basis, &u->why);
    }
    double total = 0;
    size_t n[3] = {0, 0, 0};
    for (size_t i = 0; i < r->n_e; i++) {
        rt_onednn_entry *en = &r->e[i];
        total += en->ms * 1e-3;
        if (!(en->flops > 0)) /* a reorder's 0 FLOPs are on no unit that matters */
            continue;
        rt_onednn_unit_key *u = &r->ukeys[en->unit_key];
        u->kernels++;
        u->seconds += en->ms * 1e-3;
        n[u->basis]++;
    }
    say_units(r, w, RT_ONEDNN_UNIT_WIDEST, cpu_isa, total);
    say_units(r, w, RT_ONEDNN_UNIT_UNKNOWN, cpu_isa, total);
    char note[512];
    snprintf(note, sizeof note,
             "%s: %zu kernel%s with FLOPs on the unit their implementation's instruction set "
             "gives, %zu on the widest unit of the CPU (%s), %zu on 'unknown'",
             rt_onednn_units_label(r->units), n[0], n[0] == 1 ? "" : "s", n[1],
             cpu_isa ? cpu_isa : "not named", n[2]);
    rt_tags_set(&p->provenance.notes, "onednn_units", note);
    if (cpu_isa)
        rt_tags_set(&p->provenance.notes, "onednn_cpu_isa", cpu_isa);
}
