/* The modes of `rooftime profile` beside oneDNN verbose (profile/), and what they share: the
 * command's output routed to the oneDNN reader. At the root of src/cli because the machine's
 * self-check (machine/cmd-machine-selfcheck.c) runs `profile --gpu` too. */
#ifndef ROOFTIME_CLI_PROFILE_H
#define ROOFTIME_CLI_PROFILE_H

#include <stdio.h>

#include "rooftime/core/profile.h"
#include "rooftime/import/onednn.h"

/* profile/profile-route.c: the command's standard output (fd), line by line: verbose records to the
 * reader (and the kept log, when not NULL), everything else through to our standard output. */
void cli_profile_route(int fd, rt_onednn_reader *r, FILE *log);

/* `profile --gpu` (profile/cmd-profile-gpu.c): run the command under the CUPTI collector and
 * import. */
typedef struct cli_gpu_opts {
    int on, counters, per_launch;
    int no_keep_images; /* with --counters: no raw images (default: run.cupti/ for run.json) */
    const char *keep_dir;
} cli_gpu_opts;
int cli_profile_gpu(const cli_gpu_opts *o, char **cmd, int n_cmd, const char *output,
                    const rt_tags *tags);

/* `profile --torch` (profile/cmd-profile-torch.c). */
int cli_profile_torch(const char *output, const rt_tags *tags, const char *steps,
                      const char *conv_name, const char *keep_trace, const char *onednn_out,
                      int argc, char **argv);

#endif
