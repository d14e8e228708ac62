/* Inside vprof sequences (sequences.c reads, sequences_trace.c writes). */
#ifndef VPROF_SEQUENCES_INT_H
#define VPROF_SEQUENCES_INT_H

#include "vprof/sequences.h"

/* Sorts the rows most frequent first (then by pattern, as HTA); the marks
 * follow their rows and are put in file order. */
void vp_sequences_sort_rows(vp_sequences *q);

#endif
