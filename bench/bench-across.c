/* Benchmark: `analyze --across rank` over 100 and 1,000 synthetic rank profiles of 1,000 kernels.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "rooftime/core/across.h"
#include "rooftime/core/profile.h"
#include "rooftime/formats/profile-json.h"
#include "rooftime/util/clock.h"
#include "rooftime/util/error.h"
#include "rooftime/util/strings.h"

/*
 * Usage: bench-across [--kernels K] [--keep DIR] [RANKS...]   (default: 1000 kernels, 100 1000)
 *
 * For each rank count R, a child process writes R profiles (rank.<r>.json, each tagged with its
 * rank like `rooftime import -o 'rank.%r.json'` under a launcher) of K kernels in 10 configs; every
 * kernel's time varies by a few percent between ranks, and rank R/3 is 30% slower on kernel K/2.
 * Then another child folds them one at a time as `analyze --across rank` does (load, add, free)
 * and finishes; its wall time and its peak resident memory (getrusage ru_maxrss of that child
 * alone) are printed with the bytes the accumulator holds, and whether the slow rank and kernel
 * were named. The last line gives the ratios between the largest and smallest rank counts:
 * time grows with the ranks (each profile is read once), memory should not. Then, per rank count,
 * the profile loading alone (rt_profile_load, within the fold) in MB/s of wall and of CPU time,
 * against the peer: jansson's json_loadb of the same texts (parsing only, no profile built),
 * measured after the fold in the same child.
 */

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static unsigned long long rng = 88172645463325252ull;
static double jitter(void) /* uniform in [-1, 1) */
{
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) / 4503599627370496.0 - 1;
}

static int generate(const char *dir, long ranks, long kernels)
{
    for (long r = 0; r < ranks; r++) {
        rt_profile *p = rt_profile_new();
        p->tool = rt_strdup("bench-across");
        p->identity = rt_xmalloc(sizeof *p->identity);
        rt_rank_identity_init(p->identity);
        p->identity->launcher = rt_strdup("synthetic");
        p->identity->rank = r;
        p->identity->size = ranks;
        char name[64], cfg[16];
        for (long k = 0; k < kernels; k++) {
            snprintf(name, sizeof name, "kernel_%ld", k);
            rt_kernel *kn = rt_profile_add_kernel(p, name);
            snprintf(cfg, sizeof cfg, "%ld", k % 10);
            rt_tags_set(&kn->tags, "layer", cfg);
            double base = 1e-5 * (1 + (double)(k % 97));
            kn->time = base * (1 + 0.03 * jitter());
            if (r == ranks / 3 && k == kernels / 2)
                kn->time = base * 1.3;
            kn->invocations = 10;
            rt_values_set(&kn->flops, "fp32", 2e7 * (1 + (double)(k % 97)));
            rt_values_set(&kn->bytes, "DRAM", 4e6 * (1 + (double)(k % 13)));
        }
        char *path = rt_asprintf("%s/rank.%ld.json", dir, r);
        rt_error err;
        int rc = rt_profile_save(p, path, &err);
        free(path);
        rt_profile_free(p);
        if (rc != 0) {
            fprintf(stderr, "bench-across: %s\n", err.msg);
            return -1;
        }
    }
    return 0;
}

/* The fold, in the measured child: prints "seconds bytes named" on fd. */
static int fold(const char *dir, long ranks, long kernels, int fd)
{
    double t0 = rt_now(), load = 0, load_cpu = 0, bytes = 0;
    rt_across *a = rt_across_new(NULL);
    for (long r = 0; r < ranks; r++) {
        char *path = rt_asprintf("%s/rank.%ld.json", dir, r);
        rt_profile *p;
        rt_error err;
        struct stat st;
        if (stat(path, &st) == 0)
            bytes += (double)st.st_size;
        double l0 = rt_now(), c0 = cpu_now();
        int rc = rt_profile_load(path, &p, &err);
        load += rt_now() - l0;
        load_cpu += cpu_now() - c0;
        long rank;
        if (rc != 0 || rt_across_rank_of(p, path, &rank, &err) != 0 ||
            rt_across_add(a, p, rank, path, &err) != 0) {
            fprintf(stderr, "bench-across: %s\n", err.msg);
            return 1;
        }
        rt_profile_free(p);
        free(path);
    }
    rt_across_finish(a);
    double t = rt_now() - t0;
    char want[64];
    snprintf(want, sizeof want, "kernel_%ld", kernels / 2);
    int named = a->n_stragglers > 0 && a->stragglers[0].kind == 0 &&
                a->stragglers[0].rank == ranks / 3 &&
                strcmp(a->kernels[a->stragglers[0].entry].name, want) == 0;
    size_t held = rt_across_bytes(a);
    rt_across_free(a);
    /* The peer: jansson parsing the same texts. */
    double peer = 0, peer_cpu = 0;
    for (long r = 0; r < ranks; r++) {
        char *path = rt_asprintf("%s/rank.%ld.json", dir, r);
        FILE *fp = fopen(path, "rb");
        free(path);
        if (!fp)
            return 1;
        fseek(fp, 0, SEEK_END);
        size_t len = (size_t)ftell(fp);
        rewind(fp);
        char *text = rt_xmalloc(len + 1);
        size_t got = fread(text, 1, len, fp);
        fclose(fp);
        double l0 = rt_now(), c0 = cpu_now();
        json_t *j = json_loadb(text, got, JSON_REJECT_DUPLICATES, NULL);
        json_decref(j);
        peer += rt_now() - l0;
        peer_cpu += cpu_now() - c0;
        free(text);
        if (!j)
            return 1;
    }
    dprintf(fd, "%.6f %zu %d %.6f %.6f %.0f %.6f %.6f\n", t, held, named, load, load_cpu, bytes,
            peer, peer_cpu);
    return 0;
}

/* Run f in a child; its peak RSS in KiB through *maxrss. */
static int child(int (*f)(const char *, long, long, int), const char *dir, long ranks, long kernels,
                 int fd, long *maxrss)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0)
        _exit(f(dir, ranks, kernels, fd));
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1;
    *maxrss = ru.ru_maxrss;
    return 0;
}

static int gen_child(const char *dir, long ranks, long kernels, int fd)
{
    (void)fd;
    return generate(dir, ranks, kernels) != 0;
}

static void clear(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        if (e->d_name[0] != '.') {
            char *p = rt_asprintf("%s/%s", dir, e->d_name);
            unlink(p);
            free(p);
        }
    if (d)
        closedir(d);
}

int main(int argc, char **argv)
{
    long kernels = 1000, ranks[16];
    size_t n = 0;
    const char *keep = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--kernels") == 0 && i + 1 < argc)
            kernels = atol(argv[++i]);
        else if (strcmp(argv[i], "--keep") == 0 && i + 1 < argc)
            keep = argv[++i];
        else if (n < 16 && atol(argv[i]) > 0)
            ranks[n++] = atol(argv[i]);
        else {
            fprintf(stderr, "usage: bench-across [--kernels K] [--keep DIR] [RANKS...]\n");
            return 2;
        }
    }
    if (n == 0) {
        ranks[n++] = 100;
        ranks[n++] = 1000;
    }
    char tmpl[] = "/tmp/rooftime-bench-across.XXXXXX";
    const char *dir = keep ? keep : mkdtemp(tmpl);
    if (!dir || kernels < 2)
        return 1;
    double secs[16], mbs[16][4];
    long rss[16];
    printf("%8s %8s %12s %12s %14s %6s\n", "ranks", "kernels", "fold (s)", "peak RSS",
           "accumulator", "named");
    for (size_t i = 0; i < n; i++) {
        int pfd[2];
        long gen_rss;
        clear(dir);
        if (child(gen_child, dir, ranks[i], kernels, -1, &gen_rss) != 0 || pipe(pfd) != 0 ||
            child(fold, dir, ranks[i], kernels, pfd[1], &rss[i]) != 0) {
            fprintf(stderr, "bench-across: %ld ranks failed\n", ranks[i]);
            return 1;
        }
        close(pfd[1]);
        char line[256] = "";
        ssize_t got = read(pfd[0], line, sizeof line - 1);
        close(pfd[0]);
        line[got > 0 ? got : 0] = '\0';
        size_t bytes = 0;
        int named = 0;
        double load = 0, load_cpu = 0, in = 0, peer = 0, peer_cpu = 0;
        sscanf(line, "%lf %zu %d %lf %lf %lf %lf %lf", &secs[i], &bytes, &named, &load, &load_cpu,
               &in, &peer, &peer_cpu);
        mbs[i][0] = load > 0 ? in / 1e6 / load : 0;
        mbs[i][1] = load_cpu > 0 ? in / 1e6 / load_cpu : 0;
        mbs[i][2] = peer > 0 ? in / 1e6 / peer : 0;
        mbs[i][3] = peer_cpu > 0 ? in / 1e6 / peer_cpu : 0;
        printf("%8ld %8ld %12.3f %9.1f MiB %10.2f MiB %6s\n", ranks[i], kernels, secs[i],
               rss[i] / 1024.0, bytes / 1048576.0, named ? "yes" : "NO");
    }
    if (n > 1)
        printf("ratio %ld/%ld ranks: time %.2fx, peak memory %.2fx\n", ranks[n - 1], ranks[0],
               secs[n - 1] / secs[0], (double)rss[n - 1] / (double)rss[0]);
    double la[3] = {0};
    if (getloadavg(la, 3) == 3)
        printf("load average %.2f %.2f %.2f\n", la[0], la[1], la[2]);
    for (size_t i = 0; i < n; i++)
        printf("%ld ranks: profile loading %.0f MB/s wall, %.0f MB/s CPU; jansson parse alone "
               "%.0f MB/s wall, %.0f MB/s CPU (ratio loading/jansson %.2f CPU)\n",
               ranks[i], mbs[i][0], mbs[i][1], mbs[i][2], mbs[i][3],
               mbs[i][3] > 0 ? mbs[i][1] / mbs[i][3] : 0);
    if (!keep) {
        clear(dir);
        rmdir(dir);
    }
    return 0;
}
