/* The monotonic clock (clock.c). */
#ifndef ROOFTIME_UTIL_CLO_H
#define ROOFTIME_UTIL_CLO_H

/* Monotonic clock in seconds. */
double rt_now(void);

#endif
