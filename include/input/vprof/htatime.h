/* Times as HTA reads them.  HTA loads a trace with Python's json module, so
 * a time in microseconds with a fraction ("1712345678901.234") becomes the
 * double nearest that decimal text; its round_down_time_stamps then rounds
 * each start up and each end (start + dur, added in doubles) down to the
 * microsecond.  A ts near 1.7e15 us is a double to 1/4 us, so it is the
 * double, not the exact time, that is rounded.  counters and critical-path
 * both match HTA through these.
 *
 * With VPROF_HTA_TIMES=1 in the environment, the trace reader rounds every
 * event so (vp_hta_round) before any analysis sees it: every command then
 * computes on HTA's times, as vprof.hta (python/) asks it to on traces with
 * fractional microseconds (docs/trace-input.md). */
#ifndef VPROF_HTATIME_H
#define VPROF_HTATIME_H

#include <stdint.h>

/* The double Python's json reads for ns / 1000 written in decimal:
 * correctly rounded from the exact quotient, whatever precision long
 * double has (valgrind's has a double's). */
double vp_hta_us(int64_t ns);

/* The start rounded up and the end rounded down, in us, as HTA rounds an
 * event of start ts and duration dur (ns). */
void vp_hta_round(int64_t ts, int64_t dur, int64_t *start_us, int64_t *end_us);

/* 1 when VPROF_HTA_TIMES is 1 in the environment: trace readers opened
 * from now on give HTA's rounded times. */
int vp_hta_times_asked(void);

#endif
