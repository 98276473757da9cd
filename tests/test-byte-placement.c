/* Bytes where they live: each level's capacity in the machine file (read back, the presets'
 * datasheet figures), estimated bytes placed at the level that holds a kernel's working set (hier
 * mode, estimates only: measured bytes and single mode as recorded), configs summing their
 * members' placed bytes, and work that no count measures given an unknown verdict. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study-consistency.h"
#include "rooftime/core/analysis.h"
#include "rooftime/core/byte-placement.h"
#include "rooftime/core/machine.h"
#include "rooftime/core/model.h"
#include "rooftime/core/profile.h"
#include "rooftime/core/findings.h"
#include "rooftime/formats/findings-text.h"
#include "rooftime/formats/machine-json.h"
#include "rooftime/formats/profile-json.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"
#include "testutil.h"

#define KiB 1024.0
#define MiB (1024.0 * 1024.0)

/* Two cores: L1 32 KiB and L2 1 MiB each, one L3 of 32 MiB for both, DRAM. fp32 1 TFLOP/s, tau
 * 1 ns. */
static rt_machine *two_cores(void)
{
    rt_machine *m = rt_machine_new("two cores");
    rt_machine_add_unit(m, "fp32", 1e12);
    const struct {
        const char *name;
        double bw, size;
        int shared_by, instances;
    } lv[] = {{"L1", 400e9, 32 * KiB, 1, 2},
              {"L2", 200e9, 1 * MiB, 1, 2},
              {"L3", 100e9, 32 * MiB, 2, 1},
              {"DRAM", 20e9, 0, 0, 0}};
    for (size_t i = 0; i < 4; i++) {
        rt_level *l = rt_machine_add_level(m, lv[i].name, lv[i].bw);
        l->size_bytes = lv[i].size;
        l->shared_by = lv[i].shared_by;
        l->instances = lv[i].instances;
    }
    m->tau = 1e-9; /* far below every bound here */
    m->ref_unit = rt_strdup("fp32");
    m->ref_level = rt_strdup("DRAM");
    return m;
}

static void test_capacity(void **state)
{
    (void)state;
    rt_machine *m = two_cores();
    assert_close(rt_level_capacity(&m->levels[0], 0), 64 * KiB, 1e-12); /* every instance */
    assert_close(rt_level_capacity(&m->levels[0], 1), 32 * KiB, 1e-12);
    assert_close(rt_level_capacity(&m->levels[0], 8), 64 * KiB, 1e-12); /* no more than 2 */
    assert_close(rt_level_capacity(&m->levels[2], 2), 32 * MiB, 1e-12); /* one, shared */
    assert_true(rt_level_capacity(&m->levels[3], 2) == 0);              /* unknown */
    assert_int_equal(rt_machine_main_level(m), 3);
    rt_machine_free(m);
}

/* A kernel of n calls moving `bytes` at DRAM (the estimate), fp32 FLOPs, time t. */
static rt_kernel kernel(const char *name, double n, double t, double flops, double bytes)
{
    rt_kernel k;
    rt_kernel_init(&k, name);
    k.invocations = n;
    k.time = t;
    rt_values_set(&k.flops, "fp32", flops);
    rt_values_set(&k.bytes, "DRAM", bytes);
    return k;
}

static void verdict(const rt_machine *m, rt_mode mode, bool estimated, int threads,
                    const rt_kernel *k, rt_verdict *v)
{
    rt_verdict_ctx ctx = {.mode = mode,
                          .time = RT_TIME_WALL,
                          .tau = m->tau,
                          .place_bytes = estimated,
                          .threads = threads};
    rt_verdict_compute_in(m, &ctx, k, "k", v, NULL);
}

/* Working sets per call on two threads: L1 64 KiB, L1+L2 2.06 MiB, L1+L2+L3 34.06 MiB. */
static void test_placed_where_it_fits(void **state)
{
    (void)state;
    rt_machine *m = two_cores();
    const struct {
        double ws;
        int threads;
        const char *level, *label, *why;
    } rows[] = {
        {16 * KiB, 2, "L1", "bandwidth:L1", "16 KiB working set fits L1 (64 KiB, on 2 threads)"},
        {1.5 * MiB, 2, "L2", "bandwidth:L2", "fits L1+L2 (2.06 MiB, on 2 threads): bound at L2"},
        {1.5 * MiB, 1, "L3", "bandwidth:L3", "fits L1+L2+L3 (33 MiB, on 1 thread): bound at L3"},
        {3 * MiB, 0, "L3", "bandwidth:L3", "fits L1+L2+L3 (34.1 MiB, every instance)"},
        {100 * MiB, 2, "DRAM", "bandwidth:DRAM",
         "100 MiB working set is beyond L1+L2+L3 (34.1 MiB, on 2 threads): bound at DRAM"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        /* 10 calls, 1 FLOP per 100 bytes: bandwidth-bound wherever it lands */
        rt_kernel k = kernel("stream", 10, 1, 0.1 * rows[i].ws, 10 * rows[i].ws);
        rt_verdict v;
        verdict(m, RT_MODE_HIER, true, rows[i].threads, &k, &v);
        int at = rt_machine_level_index(m, rows[i].level);
        assert_true(v.placed);
        assert_int_equal(v.placed_level, at);
        assert_string_equal(v.bound_label, rows[i].label);
        assert_close(v.q[at], 10 * rows[i].ws, 1e-12);
        assert_close(v.q_ref, 10 * rows[i].ws, 1e-12); /* the placed bytes, where they are */
        assert_close(v.t_bw_max, 10 * rows[i].ws / m->levels[at].bytes_per_s, 1e-12);
        if (at != 3)
            assert_true(isnan(v.q[3])); /* nothing left at DRAM */
        char why[320];
        rt_placement_why(m, &v, why, sizeof why);
        if (!strstr(why, rows[i].why))
            fail_msg("row %zu: '%s' lacks '%s'", i, why, rows[i].why);
        rt_verdict_release(&v);
        rt_kernel_release(&k);
    }
    rt_machine_free(m);
}

/* An in-place update of 20 MiB: 40 MiB of traffic per call (read and written), 20 MiB of distinct
 * bytes: its working set fits L1+L2+L3 (34.1 MiB) where its traffic per call would not; the
 * bytes placed are all of its traffic. A working set above the traffic per call is not taken. The
 * field is written and read back. */
static void test_in_place_working_set(void **state)
{
    (void)state;
    rt_machine *m = two_cores();
    rt_kernel k = kernel("mask_add", 10, 1, 0, 10 * 40 * MiB);
    rt_verdict v;
    verdict(m, RT_MODE_HIER, true, 2, &k, &v);
    assert_int_equal(v.placed_level, 3); /* without it: DRAM */
    rt_verdict_release(&v);
    k.working_set = 20 * MiB;
    verdict(m, RT_MODE_HIER, true, 2, &k, &v);
    assert_int_equal(v.placed_level, 2);
    assert_close(v.q[2], 10 * 40 * MiB, 1e-12);
    assert_close(v.ws, 20 * MiB, 1e-12);
    rt_verdict_release(&v);
    k.working_set = 80 * MiB; /* more than it moves: its traffic per call stands */
    verdict(m, RT_MODE_HIER, true, 2, &k, &v);
    assert_int_equal(v.placed_level, 3);
    rt_verdict_release(&v);
    rt_kernel_release(&k);
    rt_machine_free(m);
    /* the profile file keeps it */
    char *dir = tu_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/p.json", dir);
    rt_profile *p = rt_profile_new();
    rt_kernel *pk = rt_profile_add_kernel(p, "mask_add");
    pk->invocations = 2;
    pk->time = 1e-3;
    rt_values_set(&pk->bytes, "DRAM", 80 * MiB);
    pk->working_set = 20 * MiB;
    rt_error err;
    assert_int_equal(rt_profile_save(p, path, &err), 0);
    rt_profile *back = NULL;
    if (rt_profile_load(path, &back, &err) != 0)
        fail_msg("%s", err.msg);
    assert_close(back->kernels[0].working_set, 20 * MiB, 1e-15);
    rt_profile_free(back);
    rt_profile_free(p);
    tu_rmtree(dir);
    free(dir);
}

/* Counters (measured bytes), single mode, a machine without capacities: bytes as recorded. */
static void test_as_recorded(void **state)
{
    (void)state;
    rt_machine *m = two_cores();
    rt_kernel k = kernel("stream", 10, 1, 1e3, 10 * 16 * KiB);
    rt_verdict v;
    verdict(m, RT_MODE_HIER, false, 2, &k, &v);
    assert_false(v.placed);
    assert_string_equal(v.bound_label, "bandwidth:DRAM");
    rt_verdict_release(&v);
    verdict(m, RT_MODE_SINGLE, true, 2, &k, &v);
    assert_false(v.placed);
    assert_close(v.q_ref, 10 * 16 * KiB, 1e-12);
    rt_verdict_release(&v);
    for (size_t l = 0; l < m->n_levels; l++)
        m->levels[l].size_bytes = 0;
    verdict(m, RT_MODE_HIER, true, 2, &k, &v);
    assert_false(v.placed);
    assert_string_equal(v.bound_label, "bandwidth:DRAM");
    rt_verdict_release(&v);
    rt_kernel_release(&k);
    rt_machine_free(m);
}

/* Bytes the source counted at the level that holds the set (the study's loads and stores at L1)
 * include the compulsory ones: the larger stays, DRAM gets none. */
static void test_counted_there_already(void **state)
{
    (void)state;
    rt_machine *m = two_cores();
    rt_kernel k = kernel("direct", 4, 1, 1e6, 4 * 20 * KiB);
    rt_values_set(&k.bytes, "L1", 4 * 200 * KiB);
    rt_verdict v;
    verdict(m, RT_MODE_HIER, true, 2, &k, &v);
    assert_true(v.placed);
    assert_int_equal(v.placed_level, 0);
    assert_close(v.q[0], 4 * 200 * KiB, 1e-12);
    assert_true(isnan(v.q[3]));
    assert_close(v.ws, 20 * KiB, 1e-12);
    rt_verdict_release(&v);
    rt_kernel_release(&k);
    rt_machine_free(m);
}

/* A config sums its members where their verdicts put them; work that is not counted has an
 * unknown verdict, whatever counts it carries, and none of its time is recoverable. */
static void test_configs_and_uncounted(void **state)
{
    (void)state;
    rt_machine *m = two_cores();
    rt_profile *p = rt_profile_new();
    p->bytes_kind = RT_BYTES_ESTIMATED;
    p->threads = 2;
    p->time_kind = RT_TIME_WALL;
    rt_tags_set(&p->tags, "step", "1");
    rt_kernel *a = rt_profile_add_kernel(p, "small");
    a->invocations = 10;
    a->time = 1e-3;
    rt_values_set(&a->bytes, "DRAM", 10 * 16 * KiB); /* fits L1 */
    rt_kernel *b = rt_profile_add_kernel(p, "large");
    b->invocations = 1;
    b->time = 1e-1;
    rt_values_set(&b->bytes, "DRAM", 100 * MiB); /* DRAM */
    rt_kernel *c = rt_profile_add_kernel(p, "aten::bernoulli_");
    c->invocations = 2;
    c->time = 5e-2;
    rt_values_set(&c->flops, "fp32", 1e6);
    rt_values_set(&c->bytes, "DRAM", 2 * MiB);
    rt_tags_set(&c->tags, RT_TAG_UNCOUNTED, "rng");
    rt_error err;
    rt_analysis *an = rt_analysis_new(m, RT_MODE_HIER, &p, 1, NULL, &err);
    assert_non_null(an);
    assert_int_equal(an->n_items, 3);
    assert_string_equal(an->items[0].v.bound_label, "bandwidth:L1");
    assert_string_equal(an->items[1].v.bound_label, "bandwidth:DRAM");
    const rt_verdict *u = &an->items[2].v;
    assert_string_equal(u->bound_label, "unknown (work not counted)");
    assert_int_equal(u->bound, RT_BOUND_UNKNOWN);
    assert_true(isnan(u->efficiency) && isnan(u->recoverable));
    assert_false(u->placed);
    assert_close(an->time_unknown, 5e-2, 1e-12);
    /* the configs: "small" and "large" together (the uncounted one has a tag of its own) */
    const rt_config *cf = NULL;
    for (size_t i = 0; i < an->n_configs; i++)
        if (an->configs[i].n_items == 2)
            cf = &an->configs[i];
    assert_non_null(cf);
    assert_close(cf->v.q[0], 10 * 16 * KiB, 1e-12);
    assert_close(cf->v.q[3], 100 * MiB, 1e-12);
    assert_close(cf->v.t_bw_max, 100 * MiB / 20e9, 1e-12);
    assert_false(cf->v.placed);
    rt_analysis_free(an);
    rt_profile_free(p);
    rt_machine_free(m);
}

/* The study's "kernels faster than their bound": a kernel whose estimated bytes fit L1 and that
 * beats L1 anyway is a real anomaly, named with the level; charged to DRAM (bytes as recorded,
 * here on a machine without capacities) it is the old finding, "bytes that stay in cache". */
static void test_study_consistency(void **state)
{
    (void)state;
    const char *want[] = {"1 kernels beat their bandwidth bound at the level that holds their "
                          "working set (cell_update; bound at L1)",
                          "1 kernels beat their DRAM bound (cell_update): their tensors likely "
                          "stay in cache"};
    for (int caps = 1; caps >= 0; caps--) {
        rt_machine *m = two_cores();
        if (!caps)
            for (size_t l = 0; l < m->n_levels; l++)
                m->levels[l].size_bytes = 0;
        rt_profile *p = rt_profile_new();
        p->bytes_kind = RT_BYTES_ESTIMATED;
        p->threads = 2;
        p->time_kind = RT_TIME_WALL;
        rt_kernel *k = rt_profile_add_kernel(p, "cell_update");
        k->invocations = 10;
        /* 10 x 16 KiB at L1 (400 GB/s) take 0.41 us: run in 0.2 us */
        k->time = 0.2e-6;
        rt_values_set(&k->bytes, "DRAM", 10 * 16 * KiB);
        rt_error err;
        rt_analysis *an = rt_analysis_new(m, RT_MODE_HIER, &p, 1, NULL, &err);
        assert_non_null(an);
        rt_findings *f = rt_findings_new("study");
        rt_study_findings_consistency(f, an);
        char *text = rt_findings_text(f);
        if (!strstr(text, want[caps == 1 ? 0 : 1]))
            fail_msg("'%s' lacks '%s'", text, want[caps == 1 ? 0 : 1]);
        free(text);
        rt_findings_free(f);
        rt_analysis_free(an);
        rt_profile_free(p);
        rt_machine_free(m);
    }
}

/* A kernel above its bound by less than the bound's measured spread is noise: not listed as an
 * anomaly, counted on its own line; beyond the spread it is listed. */
static void test_study_consistency_noise(void **state)
{
    (void)state;
    for (int beyond = 0; beyond <= 1; beyond++) {
        rt_machine *m = two_cores();
        int l1 = rt_machine_level_index(m, "L1");
        assert_true(l1 >= 0);
        double bw = m->levels[l1].bytes_per_s;
        m->levels[l1].min = 0.95 * bw; /* a spread of 10% */
        m->levels[l1].max = 1.05 * bw;
        rt_profile *p = rt_profile_new();
        p->bytes_kind = RT_BYTES_ESTIMATED;
        p->threads = 2;
        p->time_kind = RT_TIME_WALL;
        rt_kernel *k = rt_profile_add_kernel(p, "cell_update");
        k->invocations = 10;
        rt_values_set(&k->bytes, "DRAM", 10 * 16 * KiB);
        k->time = 10 * 16 * KiB / bw / (beyond ? 1.2 : 1.05); /* efficiency 1.2 or 1.05 */
        rt_error err;
        rt_analysis *an = rt_analysis_new(m, RT_MODE_HIER, &p, 1, NULL, &err);
        assert_non_null(an);
        rt_findings *f = rt_findings_new("study");
        rt_study_findings_consistency(f, an);
        char *text = rt_findings_text(f);
        const char *noise = "within noise: 1 kernels above their bound by less than its measured "
                            "spread (up to ±10%";
        const char *listed = "1 kernels beat their bandwidth bound at the level";
        if (!strstr(text, beyond ? listed : noise) || strstr(text, beyond ? noise : listed))
            fail_msg("efficiency %s: '%s'", beyond ? "1.2" : "1.05", text);
        free(text);
        rt_findings_free(f);
        rt_analysis_free(an);
        rt_profile_free(p);
        rt_machine_free(m);
    }
}

/* The machine file: each level's capacity written and read back; bad figures named. */
static void test_machine_file(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/m.json", dir);
    rt_machine *m = two_cores();
    m->levels[0].swept_bytes = 60 * KiB;
    m->levels[0].swept_threads = 2;
    rt_machine_set_str(&m->levels[0].size_source, "hwloc");
    rt_error err;
    assert_int_equal(rt_machine_save(m, path, &err), 0);
    rt_machine *back = NULL;
    if (rt_machine_load(path, &back, &err) != 0)
        fail_msg("%s", err.msg);
    for (size_t l = 0; l < m->n_levels; l++) {
        assert_true(back->levels[l].size_bytes == m->levels[l].size_bytes);
        assert_int_equal(back->levels[l].shared_by, m->levels[l].shared_by);
        assert_int_equal(back->levels[l].instances, m->levels[l].instances);
    }
    assert_true(back->levels[0].swept_bytes == 60 * KiB);
    assert_int_equal(back->levels[0].swept_threads, 2);
    assert_string_equal(back->levels[0].size_source, "hwloc");
    rt_machine_free(back);
    rt_machine_free(m);
    const char *bad[][2] = {
        {"\"shared_by\": 0", "levels[0].shared_by"},
        {"\"instances\": 1.5", "levels[0].instances"},
        {"\"size_bytes\": 1e30", "levels[0].size_bytes"},
        {"\"swept_threads\": -2", "levels[0].swept_threads"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[800];
        snprintf(text, sizeof text,
                 "{\"schema\": \"rooftime.machine/1\", \"name\": \"x\",\n"
                 " \"units\": [{\"name\": \"fp32\", \"flops\": 1e12}],\n"
                 " \"levels\": [{\"name\": \"L1\", \"bytes_per_s\": 1e11, %s},\n"
                 "            {\"name\": \"DRAM\", \"bytes_per_s\": 1e10}],\n"
                 " \"launch_overhead\": {\"seconds\": 1e-6},\n"
                 " \"reference\": {\"unit\": \"fp32\", \"level\": \"DRAM\"}}\n",
                 bad[i][0]);
        tu_write_file(path, text);
        back = NULL;
        assert_int_equal(rt_machine_load(path, &back, &err), -1);
        if (!strstr(err.msg, bad[i][1]) || !strstr(err.msg, "line 3"))
            fail_msg("%s: '%s'", bad[i][0], err.msg);
    }
    tu_rmtree(dir);
    free(dir);
}

/* The GPU presets' capacities, from the datasheets and whitepapers their notes cite. */
static void test_presets(void **state)
{
    (void)state;
    const struct {
        const char *preset, *level;
        double size;
        int instances;
    } rows[] = {{"v100", "L1", 128 * KiB, 80},           {"v100", "L2", 6 * MiB, 1},
                {"v100", "HBM", 16 * 1024 * MiB, 1},     {"a100", "HBM", 40 * 1024 * MiB, 1},
                {"h100-sxm", "HBM", 80 * 1024 * MiB, 1}, {"h200", "HBM", 141e9, 1}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        rt_machine *m;
        rt_error err;
        if (rt_machine_resolve(rows[i].preset, &m, &err) != 0)
            fail_msg("%s", err.msg);
        const rt_level *l = rt_machine_level(m, rows[i].level);
        assert_non_null(l);
        assert_true(l->size_bytes == rows[i].size);
        assert_int_equal(l->instances, rows[i].instances);
        assert_non_null(l->size_source);
        rt_machine_free(m);
    }
}

/* A profile says which bytes are estimates and on how many threads its kernels ran; both readers
 * (the fast one and jansson's) read them back; a bad value is named. */
static void test_profile_marks(void **state)
{
    (void)state;
    char *dir = tu_tmpdir();
    char path[512];
    snprintf(path, sizeof path, "%s/p.json", dir);
    rt_profile *p = rt_profile_new();
    p->tool = rt_strdup("t");
    p->bytes_kind = RT_BYTES_ESTIMATED;
    p->threads = 6;
    rt_kernel *k = rt_profile_add_kernel(p, "k");
    k->invocations = 1;
    rt_values_set(&k->bytes, "DRAM", 8);
    rt_error err;
    assert_int_equal(rt_profile_save(p, path, &err), 0);
    char *text = tu_read_file(path, NULL);
    assert_non_null(strstr(text, "\"bytes\": \"estimated\""));
    assert_non_null(strstr(text, "\"threads\": 6"));
    free(text);
    rt_profile *back = NULL;
    assert_int_equal(rt_profile_load(path, &back, &err), 0);
    assert_true(rt_profile_equal(p, back, &err));
    rt_profile_free(back);
    /* a file with an unknown member in source goes through jansson's reader */
    tu_write_file(path, "{\"schema\": \"rooftime.profile/1\",\n \"source\": {\"bytes\": "
                        "\"estimated\", \"threads\": 6, \"tool\": \"t\", \"x\": 1},\n"
                        " \"kernels\": [{\"name\": \"k\", \"invocations\": 1, \"time\": 0, "
                        "\"bytes\": {\"DRAM\": 8}}]}\n");
    assert_int_equal(rt_profile_load(path, &back, &err), 0);
    assert_int_equal(back->bytes_kind, RT_BYTES_ESTIMATED);
    assert_int_equal(back->threads, 6);
    rt_profile_free(back);
    const char *bad[][2] = {{"\"threads\": 0", "source.threads"},
                            {"\"threads\": 2.5", "source.threads"},
                            {"\"bytes\": \"guessed\"", "source.bytes"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char t[400];
        snprintf(t, sizeof t,
                 "{\"schema\": \"rooftime.profile/1\",\n \"source\": {%s},\n"
                 " \"kernels\": []}\n",
                 bad[i][0]);
        tu_write_file(path, t);
        back = NULL;
        assert_int_equal(rt_profile_load(path, &back, &err), -1);
        if (!strstr(err.msg, bad[i][1]) || !strstr(err.msg, "line 2"))
            fail_msg("%s: '%s'", bad[i][0], err.msg);
    }
    rt_profile_free(p);
    tu_rmtree(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_capacity),
        cmocka_unit_test(test_placed_where_it_fits),
        cmocka_unit_test(test_as_recorded),
        cmocka_unit_test(test_counted_there_already),
        cmocka_unit_test(test_configs_and_uncounted),
        cmocka_unit_test(test_study_consistency),
        cmocka_unit_test(test_study_consistency_noise),
        cmocka_unit_test(test_in_place_working_set),
        cmocka_unit_test(test_machine_file),
        cmocka_unit_test(test_presets),
        cmocka_unit_test(test_profile_marks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
