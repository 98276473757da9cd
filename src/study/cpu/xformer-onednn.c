/* What the transformer study's oneDNN implementations share: an engine and stream, memories
 * filled from fp32 (16-bit and blocked layouts through an untimed reorder) and views of them,
 * matmul and softmax primitives with their implementation names and units, run as timed kernels. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xformer-internal.h"
#include "xformer-onednn.h"
#include "rooftime/study/study-onednn.h"
#include "rooftime/util/strings.h"

#ifdef RT_HAVE_DNNL
void rt_xf_md(dnnl_memory_desc_t *md, int nd, const dnnl_dim_t *dims, dnnl_data_type_t dt,
              const dnnl_dim_t *strides)
{
    dnnl_dims_t d, s;
    dnnl_dim_t stride = 1;
    for (int i = nd - 1; i >= 0; i--) {
        d[i] = dims[i];
        s[i] = strides ? strides[i] : stride;
        stride *= dims[i];
    }
    dnnl_memory_desc_init_by_strides(md, nd, d, dt, s);
}

void rt_xf_md_any(dnnl_memory_desc_t *md, int nd, const dnnl_dim_t *dims, dnnl_data_type_t dt)
{
    dnnl_dims_t d;
    for (int i = 0; i < nd; i++)
        d[i] = dims[i];
    dnnl_memory_desc_init_by_tag(md, nd, d, dt, dnnl_format_tag_any);
}

static dnnl_format_tag_t plain_tag(int nd)
{
    return nd == 1 ? dnnl_a : nd == 2 ? dnnl_ab : nd == 3 ? dnnl_abc : dnnl_abcd;
}

int rt_xf_mem(rt_dnnl_engine *e, const dnnl_memory_desc_t *md, const float *values,
              dnnl_memory_t *out, rt_error *err)
{
    *out = NULL;
    if (values)
        return rt_dnnl_mem_from_f32(e->eng, e->strm, md, plain_tag(md->ndims), values, out, err);
    dnnl_status_t st = dnnl_memory_create(out, md, e->eng, DNNL_MEMORY_ALLOCATE);
    if (st != dnnl_success) {
        rt_error_set(err, "onednn: cannot create a memory: %s", rt_dnnl_status(st));
        return -1;
    }
    void *h = NULL;
    dnnl_memory_get_data_handle(*out, &h);
    memset(h, 0, dnnl_memory_desc_get_size(md));
    return 0;
}

int rt_xf_view(rt_dnnl_engine *e, const dnnl_memory_desc_t *md, dnnl_memory_t of,
               dnnl_memory_t *out, rt_error *err)
{
    void *h = NULL;
    dnnl_memory_get_data_handle(of, &h);
    dnnl_status_t st = dnnl_memory_create(out, md, e->eng, h);
    if (st != dnnl_success) {
        rt_error_set(err, "onednn: cannot create a view of a memory: %s", rt_dnnl_status(st));
        *out = NULL;
        return -1;
    }
    return 0;
}

float *rt_xf_read(rt_dnnl_engine *e, dnnl_memory_t mem, size_t *n)
{
    const dnnl_memory_desc_t *md;
    dnnl_memory_get_memory_desc(mem, &md);
    rt_error err;
    float *f = rt_dnnl_read_f32(e->eng, e->strm, mem, plain_tag(md->ndims), n, &err);
    return f ? f : rt_xf_copy_out(NULL, 0, n);
}

/* Name, unit and cost of k, a primitive of `kind` (data/onednn/units.json's), from its primitive
 * descriptor. */
static void describe(rt_xf_prim *k, const_dnnl_primitive_desc_t pd, const char *kind,
                     const char *name, rt_precision prec, rt_xf_count c)
{
    snprintf(k->impl, sizeof k->impl, "%s", rt_dnnl_impl(pd));
    k->unit_note = rt_dnnl_unit(kind, k->impl, prec, k->unit, sizeof k->unit);
    k->cost = (rt_kernel_cost){.name = name,
                               .unit = k->unit,
                               .flops = c.flops,
                               .dram_bytes = c.bytes,
                               .l1_bytes = -1,
                               .impl = k->impl,
                               .working_set = c.ws};
}

static int create(rt_xf_prim *k, dnnl_primitive_desc_t pd, const char *kind, const char *name,
                  rt_precision prec, rt_xf_count c, rt_error *err)
{
    describe(k, pd, kind, name, prec, c);
    dnnl_status_t st = dnnl_primitive_create(&k->p, pd);
    if (st != dnnl_success) {
        rt_error_set(err, "onednn: cannot create %s: %s", name, rt_dnnl_status(st));
        return -1;
    }
    return 0;
}

int rt_xf_matmul(rt_xf_prim *k, rt_dnnl_engine *e, const char *name, const dnnl_memory_desc_t *src,
                 const dnnl_memory_desc_t *wei, const dnnl_memory_desc_t *dst,
                 dnnl_primitive_attr_t attr, rt_precision prec, rt_xf_count c,
                 dnnl_memory_desc_t *chosen, rt_error *err)
{
    memset(k, 0, sizeof *k);
    dnnl_matmul_desc_t md;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = dnnl_matmul_desc_init(&md, src, wei, NULL, dst);
    if (st == dnnl_success)
        st = dnnl_primitive_desc_create(&pd, &md, attr, e->eng, NULL);
    if (st != dnnl_success) {
        rt_error_set(err, "onednn: no %s matmul for %s on this CPU (oneDNN %d.%d, ISA %s): %s",
                     rt_precision_name(prec), name, DNNL_VERSION_MAJOR, DNNL_VERSION_MINOR,
                     rt_onednn_isa(), rt_dnnl_status(st));
        return -1;
    }
    if (chosen)
        *chosen = *dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0);
    int rc = create(k, pd, "matmul", name, prec, c, err);
    dnnl_primitive_desc_destroy(pd);
    return rc;
}

int rt_xf_softmax(rt_xf_prim *k, rt_dnnl_engine *e, const char *name, const dnnl_memory_desc_t *md,
                  int axis, rt_precision prec, rt_xf_count c, rt_error *err)
{
    memset(k, 0, sizeof *k);
    dnnl_softmax_desc_t sd;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = dnnl_softmax_forward_desc_init(&sd, dnnl_forward_inference, md, axis);
    if (st == dnnl_success)
        st = dnnl_primitive_desc_create(&pd, &sd, NULL, e->eng, NULL);
    if (st != dnnl_success) {
        rt_error_set(err, "onednn: no %s softmax on this CPU (oneDNN %d.%d, ISA %s): %s",
                     rt_precision_name(prec), DNNL_VERSION_MAJOR, DNNL_VERSION_MINOR,
                     rt_onednn_isa(), rt_dnnl_status(st));
        return -1;
    }
    int rc = create(k, pd, "softmax", name, prec, c, err);
    dnnl_primitive_desc_destroy(pd);
    return rc;
}

int rt_xf_binary(rt_xf_prim *k, rt_dnnl_engine *e, const char *name, dnnl_alg_kind_t alg,
                 const dnnl_memory_desc_t *src0, const dnnl_memory_desc_t *src1, rt_precision prec,
                 rt_xf_count c, rt_error *err)
{
    memset(k, 0, sizeof *k);
    dnnl_binary_desc_t bd;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_status_t st = dnnl_binary_desc_init(&bd, alg, src0, src1, src0);
    if (st == dnnl_success)
        st = dnnl_primitive_desc_create(&pd, &bd, NULL, e->eng, NULL);
    if (st != dnnl_success) {
        rt_error_set(err, "onednn: no %s binary %s on this CPU (oneDNN %d.%d, ISA %s): %s",
                     rt_precision_name(prec), name, DNNL_VERSION_MAJOR, DNNL_VERSION_MINOR,
                     rt_onednn_isa(), rt_dnnl_status(st));
        return -1;
    }
    int rc = create(k, pd, "binary", name, prec, c, err);
    dnnl_primitive_desc_destroy(pd);
    return rc;
}

dnnl_primitive_attr_t rt_xf_attr(float scale, dnnl_alg_kind_t alg, float alpha,
                                 dnnl_alg_kind_t balg, const dnnl_memory_desc_t *bmd)
{
    dnnl_primitive_attr_t attr = NULL;
    dnnl_primitive_attr_create(&attr);
    if (scale != 1.0f)
        dnnl_primitive_attr_set_output_scales(attr, 1, 0, &scale);
    if (alg || bmd) {
        dnnl_post_ops_t po = NULL;
        dnnl_post_ops_create(&po);
        if (alg)
            dnnl_post_ops_append_eltwise(po, 1.0f, alg, alpha, 0.0f);
        if (bmd)
            dnnl_post_ops_append_binary(po, balg, bmd);
        dnnl_primitive_attr_set_post_ops(attr, po);
        dnnl_post_ops_destroy(po);
    }
    return attr;
}

void rt_xf_arg(rt_xf_prim *k, int id, dnnl_memory_t m)
{
    if (k->nargs < (int)(sizeof k->args / sizeof k->args[0]))
        k->args[k->nargs++] = (dnnl_exec_arg_t){id, m};
}

int rt_xf_run(rt_xf_prim *k, rt_dnnl_engine *e, rt_study_timer *t, rt_error *err)
{
    return rt_dnnl_exec(k->p, e->strm, k->nargs, k->args, t, &k->cost, err);
}

void rt_xf_prim_release(rt_xf_prim *k)
{
    dnnl_primitive_destroy(k->p);
    k->p = NULL;
    free(k->unit_note);
    k->unit_note = NULL;
}

char *rt_xf_impls(const rt_xf_prim *k, int n)
{
    char *out = rt_strdup("");
    for (int i = 0; i < n; i++) {
        if (!k[i].p)
            continue;
        const char *note = k[i].unit_note;
        char *next = rt_asprintf("%s%s%s %s%s%s%s", out, *out ? "; " : "", k[i].cost.name,
                                 k[i].impl, note ? " (" : "", note ? note : "", note ? ")" : "");
        free(out);
        out = next;
    }
    return out;
}

int rt_xf_case_done(rt_study_case *c, const rt_xf_prim *k, int n, int rc, rt_study_case **out)
{
    if (rc == 0) {
        c->impl = rt_strdup(k[0].impl);
        c->note = rt_xf_impls(k, n);
    }
    return rt_dnnl_case_done(c, rc, out);
}
#endif
