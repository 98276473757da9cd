/* The one loader of rooftime's data files: bounded, checked, errors naming file, path and field. */
#include <stdlib.h>
#include <string.h>

#include "rooftime/util/data-file.h"
#include "rooftime/util/datadir.h"
#include "rooftime/util/json-read.h"
#include "rooftime/util/read-file.h"
#include "rooftime/util/strings.h"

int rt_data_file_load(rt_data_file *f, const char *path, const char *shipped, const char *schema,
                      rt_error *err)
{
    memset(f, 0, sizeof *f);
    f->path = path ? rt_strdup(path) : rt_asprintf("%s/%s", rt_datadir(), shipped);
    if (rt_read_text_file(f->path, RT_MAX_DATA_FILE, &f->text, &f->len, err) != 0)
        goto fail;
    f->label = rt_data_file_label(f->path, f->text, f->len);
    if (rt_json_load_text(f->text, f->len, f->path, &f->root, err) != 0)
        goto fail;
    rt_jr r = {rt_data_file_src(f), err};
    if (rt_jr_object(&r, f->root, "") != 0 || (schema && rt_jr_schema(&r, f->root, schema) != 0))
        goto fail;
    return 0;
fail:
    rt_data_file_release(f);
    return -1;
}

rt_json_src rt_data_file_src(const rt_data_file *f)
{
    return (rt_json_src){.name = f->path, .text = f->text, .len = f->len};
}

void rt_data_file_release(rt_data_file *f)
{
    free(f->path);
    free(f->text);
    free(f->label);
    json_decref(f->root);
    memset(f, 0, sizeof *f);
}
