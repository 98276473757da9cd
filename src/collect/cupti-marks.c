/* rooftime_cupti_mark (include/rooftime/import/cupti.h): one row of marks.PID.csv that tags the
 * kernels launched after it, placed by the highest launch correlation ID (trace) and the number of
 * counter ranges named (counters) at the time of the call. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cupti-collector.h"
#include "cupti-records.h"
#include "rooftime/import/cupti.h"

#define RTC_EXPORT __attribute__((visibility("default")))

/* "key=value;key=value" within the header's rules (empty pairs skipped); "" is valid. */
static int tags_valid(const char *tags)
{
    size_t len = strlen(tags), pairs = 0;
    if (len > RT_CUPTI_MAX_MARK_TAGS)
        return 0;
    for (const char *s = tags; *s;) {
        const char *end = strchr(s, ';');
        size_t n = end ? (size_t)(end - s) : strlen(s);
        if (n > 0) {
            const char *eq = memchr(s, '=', n);
            if (!eq || eq == s || ++pairs > RT_CUPTI_MAX_MARK_PAIRS)
                return 0;
            for (const char *k = s; k < eq; k++)
                if (!((*k >= 'A' && *k <= 'Z') || (*k >= 'a' && *k <= 'z') ||
                      (*k >= '0' && *k <= '9') || *k == '_' || *k == '.' || *k == '-'))
                    return 0;
            for (const char *v = eq + 1; v < s + n; v++)
                if (*v == '\n' || *v == '\r')
                    return 0;
        }
        s += n;
        if (*s == ';')
            s++;
    }
    return 1;
}

RTC_EXPORT int rooftime_cupti_mark(const char *tags)
{
    if (!tags)
        tags = "";
    if (!tags_valid(tags))
        return -1;
    pthread_mutex_lock(&rtc_g.lock);
    int rc = -1;
    if (!rtc_g.active)
        goto out;
    if (!rtc_g.marks && !(rtc_g.marks = rtc_open_out("marks", RT_CUPTI_MARK_HEADER)))
        goto out;
    uint64_t t = 0;
    cuptiGetTimestamp(&t);
    fprintf(rtc_g.marks, "%lu,%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",", rtc_g.marks_written++,
            rtc_g.last_correlation, rtc_g.counters ? rtc_g.ranges_named : 0, t);
    rtc_csv_field(rtc_g.marks, tags);
    fputc('\n', rtc_g.marks);
    fflush(rtc_g.marks);
    rc = 0;
out:
    pthread_mutex_unlock(&rtc_g.lock);
    return rc;
}
