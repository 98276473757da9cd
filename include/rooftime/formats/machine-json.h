/* Machine files (rooftime.machine/1): JSON in and out, presets (machine-json.c). */
#ifndef ROOFTIME_FORMATS_MACHINE_JS_H
#define ROOFTIME_FORMATS_MACHINE_JS_H

#include <jansson.h>
#include <stddef.h>
#include "rooftime/core/machine.h"
#include "rooftime/util/error.h"
#include "rooftime/util/json-read.h"

/* JSON conversion; origin names the file in error messages. */
int rt_machine_from_json(const json_t *j, const rt_json_src *src, rt_machine **out, rt_error *err);
json_t *rt_machine_to_json(const rt_machine *m);
int rt_machine_load(const char *path, rt_machine **out, rt_error *err);
int rt_machine_save(const rt_machine *m, const char *path, rt_error *err);

/* Load a preset by name (datadir/machines/<name>.json) or a file by path. */
int rt_machine_resolve(const char *name_or_path, rt_machine **out, rt_error *err);
/* Names of the shipped presets, sorted; caller frees each and the array. */
char **rt_machine_presets(size_t *n);

#endif
