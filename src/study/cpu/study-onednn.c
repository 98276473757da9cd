/* Helpers shared by the oneDNN implementations of the study: the engine, memories, reorders, timed
 * execution, the end of a case's constructor. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study-onednn-internal.h"
#include "rooftime/import/onednn-units.h"
#include "rooftime/study/study-onednn.h"
#include "rooftime/study/study-shapes.h"
#include "rooftime/study/study-timer.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

#ifdef RT_HAVE_DNNL
#include <oneapi/dnnl/dnnl_debug.h>

const char *rt_dnnl_status(dnnl_status_t s)
{
    return dnnl_status2str(s);
}

dnnl_data_type_t rt_dnnl_type(rt_precision p)
{
    return p == RT_PREC_BF16 ? dnnl_bf16 : p == RT_PREC_FP16 ? dnnl_f16 : dnnl_f32;
}

const char *rt_dnnl_impl(const_dnnl_primitive_desc_t pd)
{
    const char *s = NULL;
    if (dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &s) != dnnl_success || !s)
        return "unknown";
    return s;
}

static int run_reorder_once(dnnl_engine_t eng, dnnl_stream_t strm, dnnl_memory_t from,
                            dnnl_memory_t to, rt_error *err)
{
    const dnnl_memory_desc_t *fmd, *tmd;
    dnnl_memory_get_memory_desc(from, &fmd);
    dnnl_memory_get_memory_desc(to, &tmd);
    dnnl_primitive_desc_t pd = NULL;
    dnnl_primitive_t prim = NULL;
    dnnl_status_t st = dnnl_reorder_primitive_desc_create(&pd, fmd, eng, tmd, eng, NULL);
    if (st == dnnl_success)
        st = dnnl_primitive_create(&prim, pd);
    if (st == dnnl_success) {
        dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}};
        st = dnnl_primitive_execute(prim, strm, 2, args);
        if (st == dnnl_success)
            st = dnnl_stream_wait(strm);
    }
    dnnl_primitive_destroy(prim);
    dnnl_primitive_desc_destroy(pd);
    if (st != dnnl_success) {
        rt_error_set(err, "onednn: reorder failed: %s", rt_dnnl_status(st));
        return -1;
    }
    return 0;
}

int rt_dnnl_mem_from_f32(dnnl_engine_t eng, dnnl_stream_t strm, const dnnl_memory_desc_t *md,
                         dnnl_format_tag_t tag, const float *values, dnnl_memory_t *out,
                         rt_error *err)
{
    *out = NULL;
    dnnl_memory_desc_t fmd;
    dnnl_memory_t f32 = NULL;
    dnnl_status_t st = dnnl_memory_desc_init_by_tag(&fmd, md->ndims, md->dims, dnnl_f32, tag);
    if (st == dnnl_success)
        st = dnnl_memory_create(&f32, &fmd, eng, DNNL_MEMORY_ALLOCATE);
    if (st == dnnl_success)
        st = dnnl_memory_create(out, md, eng, DNNL_MEMORY_ALLOCATE);
    if (st != dnnl_success) {
        rt_error_set(err, "onednn: cannot create a memory: %s", rt_dnnl_status(st));
        dnnl_memory_destroy(f32);
        return -1;
    }
    void *h = NULL;
    dnnl_memory_get_data_handle(f32, &h);
    memcpy(h, values, dnnl_memory_desc_get_size(&fmd));
    int rc = run_reorder_once(eng, strm, f32, *out, err);
    dnnl_memory_destroy(f32);
    if (rc < 0) {
        dnnl_memory_destroy(*out);
        *out = NULL;
    }
    return rc;
}

float *rt_dnnl_read_f32(dnnl_engine_t eng, dnnl_stream_t strm, dnnl_memory_t mem,
                        dnnl_format_tag_t tag, size_t *n, rt_error *err)
{
    const dnnl_memory_desc_t *md;
    dnnl_memory_get_memory_desc(mem, &md);
    dnnl_memory_desc_t fmd;
    dnnl_memory_t f32 = NULL;
    if (dnnl_memory_desc_init_by_tag(&fmd, md->ndims, md->dims, dnnl_f32, tag) != dnnl_success ||
        dnnl_memory_create(&f32, &fmd, eng, DNNL_MEMORY_ALLOCATE) != dnnl_success) {
        rt_error_set(err, "onednn: cannot create a memory to read a result");
        return NULL;
    }
    if (run_reorder_once(eng, strm, mem, f32, err) < 0) {
        dnnl_memory_destroy(f32);
        return NULL;
    }
    size_t bytes = dnnl_memory_desc_get_size(&fmd);
    *n = bytes / sizeof(float);
    float *out = rt_xmalloc(bytes ? bytes : 1);
    void *h = NULL;
    dnnl_memory_get_data_handle(f32, &h);
    memcpy(out, h, bytes);
    dnnl_memory_destroy(f32);
    return out;
}

int rt_dnnl_reorder_init(rt_dnnl_reorder *r, dnnl_engine_t eng, dnnl_memory_t user,
                         const dnnl_memory_desc_t *prim_md, bool to_prim, dnnl_memory_t *prim_mem,
                         rt_error *err)
{
    memset(r, 0, sizeof *r);
    const dnnl_memory_desc_t *umd;
    dnnl_memory_get_memory_desc(user, &umd);
    if (dnnl_memory_desc_equal(umd, prim_md)) {
        *prim_mem = user;
        return 0;
    }
    dnnl_memory_t pm = NULL;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = dnnl_memory_create(&pm, prim_md, eng, DNNL_MEMORY_ALLOCATE);
    if (st == dnnl_success)
        st = to_prim ? dnnl_reorder_primitive_desc_create(&pd, umd, eng, prim_md, eng, NULL)
                     : dnnl_reorder_primitive_desc_create(&pd, prim_md, eng, umd, eng, NULL);
    if (st == dnnl_success)
        st = dnnl_primitive_create(&r->prim, pd);
    if (st != dnnl_success) {
        rt_error_set(err, "onednn: cannot create a reorder: %s", rt_dnnl_status(st));
        dnnl_primitive_desc_destroy(pd);
        dnnl_memory_destroy(pm);
        return -1;
    }
    snprintf(r->impl, sizeof r->impl, "%s", rt_dnnl_impl(pd));
    dnnl_primitive_desc_destroy(pd);
    r->from = to_prim ? user : pm;
    r->to = to_prim ? pm : user;
    r->own = pm;
    r->bytes = (double)dnnl_memory_desc_get_size(umd) + (double)dnnl_memory_desc_get_size(prim_md);
    *prim_mem = pm;
    return 0;
}

void rt_dnnl_reorder_release(rt_dnnl_reorder *r)
{
    dnnl_primitive_destroy(r->prim);
    dnnl_memory_destroy(r->own);
    r->prim = NULL;
    r->own = NULL;
}

int rt_dnnl_reorder_run(rt_dnnl_reorder *r, dnnl_stream_t strm, rt_study_timer *t, const char *name,
                        rt_error *err)
{
    if (!r->prim)
        return 0;
    dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, r->from}, {DNNL_ARG_TO, r->to}};
    rt_kernel_cost cost = {.name = name,
                           .unit = "fp32",
                           .flops = 0,
                           .dram_bytes = r->bytes,
                           .l1_bytes = -1,
                           .impl = r->impl};
    return rt_dnnl_exec(r->prim, strm, 2, args, t, &cost, err);
}

int rt_dnnl_exec(dnnl_primitive_t p, dnnl_stream_t strm, int nargs, const dnnl_exec_arg_t *args,
                 rt_study_timer *t, const rt_kernel_cost *cost, rt_error *err)
{
    rt_kernel_cost c = *cost; /* each call one execute and wait: what onednn_primitive times */
    if (!c.overhead)
        c.overhead = RT_OVERHEAD_ONEDNN;
    rt_timer_start(t);
    dnnl_status_t st = dnnl_primitive_execute(p, strm, nargs, args);
    if (st == dnnl_success)
        st = dnnl_stream_wait(strm);
    rt_timer_stop(t, &c);
    if (st != dnnl_success) {
        rt_error_set(err, "onednn: %s failed: %s", cost->name, rt_dnnl_status(st));
        return -1;
    }
    return 0;
}

int rt_dnnl_engine_open(rt_dnnl_engine *e, rt_error *err)
{
    e->eng = NULL;
    e->strm = NULL;
    dnnl_status_t st = dnnl_engine_create(&e->eng, dnnl_cpu, 0);
    if (st == dnnl_success)
        st = dnnl_stream_create(&e->strm, e->eng, dnnl_stream_default_flags);
    if (st != dnnl_success) {
        rt_error_set(err, "onednn: cannot create a CPU engine: %s", rt_dnnl_status(st));
        rt_dnnl_engine_close(e);
        return -1;
    }
    return 0;
}

void rt_dnnl_engine_close(rt_dnnl_engine *e)
{
    dnnl_stream_destroy(e->strm);
    dnnl_engine_destroy(e->eng);
    e->strm = NULL;
    e->eng = NULL;
}

void rt_dnnl_no_primitive(rt_error *err, const char *what, rt_precision prec, rt_pass pass,
                          dnnl_status_t st)
{
    rt_error_set(err, "onednn: no %s %s %s on this CPU (oneDNN %d.%d, ISA %s): %s",
                 rt_precision_name(prec), what, rt_pass_name(pass), DNNL_VERSION_MAJOR,
                 DNNL_VERSION_MINOR, rt_onednn_isa(), rt_dnnl_status(st));
}

int rt_dnnl_case_done(rt_study_case *c, int rc, rt_study_case **out)
{
    if (rc < 0) {
        c->free(c);
        return -1;
    }
    *out = c;
    return 0;
}

char *rt_dnnl_unit(const char *kind, const char *impl, rt_precision prec, char *unit, size_t n)
{
    rt_error err = {{0}};
    rt_onednn_units *u = rt_onednn_units_load(NULL, &err);
    if (!u) {
        snprintf(unit, n, "unknown");
        return rt_asprintf("unit unknown: %s", err.msg);
    }
    static const char *const dts[RT_PREC_COUNT] = {"f32", "bf16", "f16"};
    const char *isa = rt_onednn_isa();
    rt_onednn_unit_basis basis;
    const char *why = NULL;
    snprintf(unit, n, "%s",
             rt_onednn_units_unit(u, kind, impl, dts[prec], NULL,
                                  rt_onednn_units_has_isa(u, isa) ? isa : NULL, &basis, &why));
    char *note = NULL;
    if (basis == RT_ONEDNN_UNIT_WIDEST)
        note = rt_asprintf("FLOPs on %s, the widest unit for %s of this CPU's instruction set "
                           "(%s): the implementation '%s' names none (%s: %s)",
                           unit, rt_precision_name(prec), isa, impl, rt_onednn_units_name(u), why);
    else if (basis == RT_ONEDNN_UNIT_UNKNOWN)
        note = rt_asprintf("FLOPs on the unit 'unknown': neither the implementation '%s' nor "
                           "this CPU's instruction set (%s) tells the unit of %s (%s)",
                           impl, isa, rt_precision_name(prec), rt_onednn_units_name(u));
    rt_onednn_units_free(u);
    return note;
}
#endif

int rt_dnnl_missing(rt_error *err)
{
    rt_error_set(err, "onednn: needs oneDNN (Debian libdnnl-dev), not found at configure time");
    return -1;
}

const char *rt_onednn_isa(void)
{
#ifdef RT_HAVE_DNNL
    switch (dnnl_get_effective_cpu_isa()) {
    case dnnl_cpu_isa_sse41:
        return "sse41";
    case dnnl_cpu_isa_avx:
        return "avx";
    case dnnl_cpu_isa_avx2:
        return "avx2";
    case dnnl_cpu_isa_avx2_vnni:
        return "avx2_vnni";
    case dnnl_cpu_isa_avx512_core:
        return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni:
        return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16:
        return "avx512_core_bf16";
    case dnnl_cpu_isa_avx512_core_amx:
        return "avx512_core_amx";
#if DNNL_VERSION_MAJOR >= 3 /* the ISAs 3.0 added (in 3.x, avx10_1_512* are their aliases) */
    case dnnl_cpu_isa_avx2_vnni_2:
        return "avx2_vnni_2";
    case dnnl_cpu_isa_avx512_core_fp16:
        return "avx512_core_fp16";
    case dnnl_cpu_isa_avx512_core_amx_fp16:
        return "avx512_core_amx_fp16";
#endif
    default: /* not a row of data/onednn/units.json: units that depend on it are 'unknown' */
        return "other";
    }
#else
    return "none (oneDNN not found at configure time)";
#endif
}
