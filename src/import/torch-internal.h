/* Private to the PyTorch trace importer: one trace event's fields, read by a fast strict scanner
 * or through jansson (torch-event.c), for torch.c to aggregate. */
#ifndef ROOFTIME_IMPORT_TORCH_INTERNAL_H
#define ROOFTIME_IMPORT_TORCH_INTERNAL_H

#include <stddef.h>

#include <jansson.h>

/* The fields of one event that matter, whichever parser read it. Strings are NUL-terminated
 * copies in `scratch` (fast path) or point into the json_t (jansson path). */
typedef struct evf {
    int is_object;
    const char *ph, *cat, *name;
    int ts_ok, dur_ok, flops_ok;
    double ts, dur, flops;
    char thread[256]; /* pid and tid as written ("1/1", "\"CPU functions\"/1") */
    char *dims;       /* compact "Input Dims", heap, or NULL */
    const char *unit;
} evf;

/* Scratch space torch_event_scan copies strings into. */
#define SCRATCH_SIZE 65536

/* Read one event at p (up to e) without jansson: 0 and *used on success; -1 when it is not a
 * plain event (let jansson read it). */
int torch_event_scan(const char *p, const char *e, evf *f, char *scratch, size_t *used);
/* The fields of an event jansson parsed (strings point into j). */
void torch_event_from_json(const json_t *j, evf *f);

#endif
