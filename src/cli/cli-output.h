/* Where a command writes: -o files opened atomically before the work, never over an input. */
#ifndef ROOFTIME_CLI_OUTPUT_H
#define ROOFTIME_CLI_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

#include "rooftime/core/profile.h"
#include "rooftime/util/atomic-file.h"
#include "rooftime/util/rank-identity.h"

/* True when path names the same file as one of inputs (same device and inode, or the same
 * name when it does not exist yet). */
int cli_output_is_input(const char *path, char *const *inputs, size_t n_inputs);

/*
 * Check an output path before any work: a usage error (returns 2) when it names one of the inputs,
 * an error (returns 1) when it is a directory or cannot be created; 0 when it is fine. Creates
 * nothing.
 */
int cli_output_check(const char *cmd, const char *path, char *const *inputs, size_t n_inputs);

/* A text output: an atomic file when path is set, else standard output. */
typedef struct cli_output {
    const char *path;
    rt_atomic_file af;
    FILE *fp;
    char *buf; /* the file's stdio buffer (256 KiB), freed once it is closed */
} cli_output;

/* Check the path (as cli_output_check) and open it; returns 0 or the exit code to return. */
int cli_output_open(cli_output *o, const char *cmd, const char *path, char *const *inputs,
                    size_t n_inputs);
/* Finish: commit the file when write_failed is 0, else remove it. Returns the exit code. */
int cli_output_close(cli_output *o, int write_failed);
/* Nothing written: remove the -o file, quietly (standard output has nothing to undo). */
void cli_output_abort(cli_output *o);

/* This process's rank identity (rooftime/util/rank-identity.h), read from the environment once; 0
 * or the exit code to return (a launcher variable that is not a number: 1, with the message). */
int cli_identity(const rt_rank_identity **out);

/*
 * The -o path with its placeholders replaced: %r the rank, %l the local rank, %s the job size,
 * %h the host name, %% a '%'. *out is a heap string (the pattern itself when it has no '%').
 * Returns 0, 2 (usage: an unknown placeholder, or %r/%l/%s when no launcher set them) or 1.
 */
int cli_output_expand(const char *cmd, const char *pattern, char **out);

/* The first step of every command that writes a profile (import's shared path, profile): -o is
 * required (a usage error naming cmd without it) and its placeholders are expanded into
 * *out_path (caller frees); 0 or the exit code. */
int cli_output_required(const char *cmd, const char *output, char **out_path);

/* Tag p with tags and this process's identity and save it to output (atomically); prints the error
 * and returns -1. */
int cli_save_profile(rt_profile *p, const rt_tags *tags, const char *output);

#endif
