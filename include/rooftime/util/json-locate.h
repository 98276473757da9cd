/* Where a field lies in a JSON document's text (json-locate.c): the line and column of the value
 * a JSON path names, so that an error about a field that parsed but is wrong for rooftime names
 * its line like a syntax error does. jansson's values carry no source positions; the field is
 * found again in the text, only when an error is reported. */
#ifndef ROOFTIME_UTIL_JSON_LOCATE_H
#define ROOFTIME_UTIL_JSON_LOCATE_H

#include <stddef.h>

/*
 * The line and column (from 1; the column counts characters, as jansson's do) of the value that
 * path names in text's len bytes. path is rt_jr's form: members joined by '.', array elements
 * as "[N]" ("kernels[3].flops.fp32"); a member whose key holds '.' or '[' is matched whole, the
 * longest key first. Where the path leads through members or elements that are not there (a
 * missing field), the place is that of the deepest value that is: the object the field is
 * missing from. Returns 0, or -1 when not even the document's first value is found (text
 * empty, or not JSON where the walk goes). Linear in len for a path of a few members (each
 * member steps over its parent's text once), no allocation, no recursion.
 */
int rt_json_locate(const char *text, size_t len, const char *path, size_t *line, size_t *col);

#endif
