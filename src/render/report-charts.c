/* The report's charts of one section: every view (and the hier chart beside a view drawn in hier
 * mode), each written into its own file, drawn side by side on the machine's cores, then placed
 * into the page in their order. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report-internal.h"
#include "rooftime/render/chart.h"
#include "rooftime/util/read-file.h"
#include "rooftime/util/strings.h"

/* A chart larger than this is linked from the page instead of inlined: the page stays a few
 * megabytes at any number of kernels (tests/cli-report-size.sh holds it to its budget). */
#define MAX_INLINE_SVG ((size_t)1500000)
/* Charts drawn at once: a million-point chart holds some hundred megabytes while it is drawn. */
#define MAX_THREADS 4

typedef struct chart_job {
    rt_chart_spec spec;
    const rt_analysis *a;
    bool hier; /* the hier chart beside a view's */
    char name[64];
    char *path;
    /* what drawing it gave */
    int rc;
    rt_error err;
    char *svg;   /* the file's text when it is inlined, else NULL */
    size_t size; /* the file's bytes */
} chart_job;

typedef struct chart_queue {
    chart_job *jobs;
    size_t n, next;
    int hier; /* the jobs drawn: the hier charts (1), the others (0), all (-1) */
    pthread_mutex_t lock;
} chart_queue;

/* Draw one chart straight into its file (a chart of a million points is hundreds of megabytes,
 * never held in memory); one small enough to inline is read back. */
static void draw_one(chart_job *j)
{
    if (rt_chart_render(&j->spec, j->a, j->path, &j->err) != 0) {
        j->rc = -1;
        return;
    }
    struct stat st;
    if (stat(j->path, &st) != 0) {
        rt_error_set(&j->err, "cannot read '%s' back: %s", j->path, strerror(errno));
        j->rc = -1;
        return;
    }
    j->size = (size_t)st.st_size;
    size_t len;
    if (j->size <= MAX_INLINE_SVG &&
        rt_read_text_file(j->path, MAX_INLINE_SVG + 1, &j->svg, &len, &j->err) != 0)
        j->rc = -1;
}

static void *worker(void *arg)
{
    chart_queue *q = arg;
    for (;;) {
        pthread_mutex_lock(&q->lock);
        size_t i = q->next < q->n ? q->next++ : q->n;
        pthread_mutex_unlock(&q->lock);
        if (i == q->n)
            return NULL;
        if (q->hier < 0 || q->jobs[i].hier == (q->hier == 1))
            draw_one(&q->jobs[i]);
    }
}

/* The chart's place in the page: inline, or past the page's budget the file beside it, shown as
 * an image. */
static void place(FILE *html, const rt_report_split *sp, const chart_job *j)
{
    if (!j->svg) {
        fprintf(html,
                "<div class=\"chart\" id=\"%s-%s\"><a href=\"%s-%s.svg\"><img src=\"%s-%s.svg\" "
                "alt=\"%s\" style=\"width:100%%\"></a>\n<p class=\"note\">%.1f MB of SVG: "
                "linked, not inlined; hover texts in the file</p></div>\n",
                sp->slug, j->name, sp->slug, j->name, sp->slug, j->name, j->name,
                (double)j->size / 1e6);
        return;
    }
    /* Inline SVG must not carry the XML declaration. */
    const char *body = strstr(j->svg, "<svg");
    fprintf(html, "<div class=\"chart\" id=\"%s-%s\">\n%s</div>\n", sp->slug, j->name,
            body ? body : j->svg);
}

/* The jobs whose hier is `hier` (-1: all) drawn on up to nt threads, this one among them. */
static void draw_jobs(chart_job *jobs, size_t n, int hier, size_t nt)
{
    chart_queue q = {.jobs = jobs, .n = n, .next = 0, .hier = hier};
    pthread_mutex_init(&q.lock, NULL);
    pthread_t th[MAX_THREADS];
    size_t started = 0;
    for (size_t t = 1; t < nt; t++)
        if (pthread_create(&th[started], NULL, worker, &q) == 0)
            started++;
    worker(&q); /* this thread draws too (all of them when no thread could start) */
    for (size_t t = 0; t < started; t++)
        pthread_join(th[t], NULL);
    pthread_mutex_destroy(&q.lock);
}

/* The charts, with the hier ones drawn from hier, or from a in hier mode for a while when hier is
 * NULL and hs names the profiles (rt_analysis_set_mode): the others first, then a's mode changed,
 * the hier ones, and a's mode back. */
static int draw_charts(chart_job *jobs, size_t n, const rt_analysis *hier, const rt_report_hier *hs,
                       rt_error *err)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t nt = cpus > 1 ? (size_t)cpus : 1, n_hier = 0;
    nt = nt > MAX_THREADS ? MAX_THREADS : nt;
    for (size_t i = 0; i < n; i++)
        n_hier += jobs[i].hier;
    if (hier || !n_hier) {
        draw_jobs(jobs, n, -1, nt > n ? n : nt);
        return 0;
    }
    draw_jobs(jobs, n, 0, nt > n - n_hier ? n - n_hier : nt);
    rt_mode mode = hs->a->mode;
    if (rt_analysis_set_mode(hs->a, RT_MODE_HIER, hs->profiles, hs->n_profiles, err) != 0)
        return -1;
    draw_jobs(jobs, n, 1, nt > n_hier ? n_hier : nt);
    return rt_analysis_set_mode(hs->a, mode, hs->profiles, hs->n_profiles, err);
}

int rt_report_charts(FILE *html, const char *dir, const rt_report_split *sp,
                     const rt_chart_spec *spec, const rt_analysis *a, const rt_analysis *hier,
                     const rt_report_hier *hs, rt_error *err)
{
    chart_job jobs[2 * RT_VIEW_N];
    size_t n = 0;
    for (int v = 0; v < RT_VIEW_N; v++) {
        for (int h = 0; h < 2; h++) {
            /* a view drawn in hier mode by default also gets its hier chart */
            if (h && !(rt_view_default_mode((rt_view)v) == RT_MODE_HIER && (hier || hs)))
                continue;
            chart_job *j = &jobs[n++];
            memset(j, 0, sizeof *j);
            j->spec = *spec;
            j->spec.view = (rt_view)v;
            j->hier = h;
            j->a = h && hier ? hier : a;
            snprintf(j->name, sizeof j->name, "%s%s", rt_view_name(j->spec.view), h ? "-hier" : "");
            j->path = rt_asprintf("%s/%s-%s.svg", dir, sp->slug, j->name);
        }
    }
    int rc = draw_charts(jobs, n, hier, hs, err);

    /* In the views' order; the first chart that failed stops the page, as drawn one by one. */
    for (size_t i = 0; i < n; i++) {
        if (rc == 0 && jobs[i].rc != 0) {
            *err = jobs[i].err;
            if (strncmp(err->msg, "cannot write", 12) != 0) /* a write error names its file */
                rt_error_prefix(err, "chart %s of '%s'", jobs[i].name,
                                sp->title[0] ? sp->title : "all");
            rc = -1;
        } else if (rc == 0) {
            place(html, sp, &jobs[i]);
        }
        free(jobs[i].svg);
        free(jobs[i].path);
    }
    return rc;
}
