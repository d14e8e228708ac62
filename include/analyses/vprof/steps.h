/* Training steps (ProfilerStep#N annotations) and which step launched each
 * piece of GPU work.
 *
 * GPU work belongs to the step of the CPU call that launched it (joined on
 * the CUDA correlation id), not to the time window it happens to run in:
 * a kernel queued at the end of step 5 that runs during step 6 is step 5's.
 * Feed every event to vp_steps_observe, then select a range. */
#ifndef VPROF_STEPS_H
#define VPROF_STEPS_H

#include <stddef.h>
#include <stdint.h>

#include "vprof/trace.h"

typedef struct vp_steps vp_steps;

/* A --steps A:B range: Python slice over the steps present, sorted by step
 * number.  A bound >= 0 names a step number (ProfilerStep#A); a bound < 0
 * counts from the end (-1 = the last step present).  The end is exclusive
 * as in Python: "5:7" is steps 5 and 6, ":-1" all but the last.  A single
 * number "5" is that step alone. */
typedef struct vp_step_range {
    long start, stop;
    int has_start, has_stop;
    int single;
} vp_step_range;

/* Parses A:B, A:, :B, :, or N. Returns 0, or -1 on a syntax error. */
int vp_step_range_parse(const char *spec, vp_step_range *out);

vp_steps *vp_steps_new(void);
void vp_steps_free(vp_steps *s);

/* Records ProfilerStep#N slices (any category but gpu_user_annotation,
 * whose slices only mirror the CPU ones on the GPU timeline) and launches
 * (vp_is_launch_category events with args.correlation). */
void vp_steps_observe(vp_steps *s, const vp_event *ev);

/* Whether name is a step annotation's, "ProfilerStep#N" with N a decimal
 * number >= 0 that fits a long (and nothing after it): 1 with *number. */
int vp_step_number(vp_span name, long *number);

/* Number of distinct steps seen, and the number of the i-th (ascending). */
size_t vp_steps_count(vp_steps *s);
long vp_steps_number(vp_steps *s, size_t i);

/* Selects the steps of range r; returns how many were selected. */
size_t vp_steps_select(vp_steps *s, const vp_step_range *r);

/* The same rule over step numbers without windows (a CSV's Step Id
 * column): the slice [*from, *to) of the ascending distinct numbers
 * v[0..n) that r selects (from == to: none). */
void vp_step_range_slice(const vp_step_range *r, const long *v, size_t n, size_t *from,
                         size_t *to);
/* Sorts v[0..n) and drops repeats; returns how many are left. */
size_t vp_step_ids_distinct(long *v, size_t n);

/* The one warning of every command that selects steps, when a range kept
 * none of trace `name` (after vp_steps_select returned chosen): the trace
 * has no ProfilerStep#N, or none of them is in the range.  What is kept
 * instead ends each message (", so no kernel is kept"; "" for nothing).
 * Through vp_warn; the range's option is VP_HINT_STEPS. */
void vp_steps_warn_none(vp_steps *s, size_t chosen, const char *name, const char *no_steps_kept,
                        const char *none_selected_kept);

/* 1 when the GPU work with this correlation id was launched by a CPU call
 * that started inside a selected step, 0 when not (outside, or no launch
 * recorded for it). */
int vp_steps_selected(const vp_steps *s, int64_t correlation);

/* The launching CPU call of a correlation id: its start and duration (ns).
 * Returns 0 when no launch was recorded for it. */
int vp_steps_launch(const vp_steps *s, int64_t correlation, int64_t *ts, int64_t *dur);

/* The launching call's start and thread (vp_steps_thread_key of its tid);
 * 0 when no launch was recorded for the id. */
int vp_steps_launch_thread(const vp_steps *s, int64_t correlation, int64_t *ts, uint32_t *tid);
/* A thread id (an integer, or a name) as 32 bits: the integer's low bits,
 * a name's hash. */
uint32_t vp_steps_thread_key(vp_span tid);

/* Index (as for vp_steps_number) of the step whose window [start, end)
 * holds CPU time ts, or -1.  Valid after vp_steps_count or vp_steps_select. */
long vp_steps_at(const vp_steps *s, int64_t ts);

/* The window of the i-th step; returns 1 when it is selected, 0 when not,
 * -1 when there is no i-th step. */
int vp_steps_window(vp_steps *s, size_t i, int64_t *start, int64_t *end);

#endif
