/* Helpers the commands share: comma lists, profiles, tags, warnings. */
#ifndef ROOFTIME_CLI_UTIL_H
#define ROOFTIME_CLI_UTIL_H

#include "rooftime/rooftime.h"

/* "a,b,c" into heap strings; free with cli_free_list. */
char **cli_split_list(const char *s, size_t *n);
void cli_free_list(char **list, size_t n);
/* Load every profile or print the first error and return -1. */
int cli_load_profiles(char **paths, size_t n, rt_profile ***out);
void cli_free_profiles(rt_profile **ps, size_t n);
/* Resolve the machine (preset or file) and load the profiles, or print the error and return -1. */
int cli_load_inputs(const char *machine, char **paths, size_t n, rt_machine **m, rt_profile ***ps);
/* "key=value" into tags; -1 when malformed. */
int cli_parse_tag(const char *arg, rt_tags *tags);
/* Print at most max warnings to stderr, then a count of the rest. */
void cli_print_warnings(const rt_warnings *w, size_t max);

#endif
