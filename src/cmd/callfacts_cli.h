/* summary's call findings: the launches and api analyses over the same
 * inputs (vprof/callfind.h), carried inside summary's partial result
 * beside the run's (cmd/runopts.c), so that -j, --save-part/reduce and
 * --mpi give what one process gives. */
#ifndef VPROF_CMD_CALLFACTS_CLI_H
#define VPROF_CMD_CALLFACTS_CLI_H

#include "cmd/cli.h"
#include "vprof/callfind.h"

typedef struct vp_calls_part vp_calls_part;

/* With common's --steps and --partial. */
vp_calls_part *vp_calls_part_new(const vp_common_opts *common);
void vp_calls_part_free(vp_calls_part *c);

/* Appends input i's partial (quietly: the run's pass has warned); an
 * input that neither reads (an Ascend directory) is marked, not an
 * error. */
void vp_calls_part_analyse(const vp_calls_part *c, const char *input, size_t i, vp_buf *out);
/* Reads one partial from r into c (r->bad when damaged). */
struct vp_rd;
void vp_calls_part_merge(vp_calls_part *c, struct vp_rd *r, vp_error *err);
void vp_calls_part_save(const vp_calls_part *c, vp_buf *out);

/* 0 with *out, or -1 when some input could not be read by both. */
int vp_calls_part_facts(vp_calls_part *c, vp_call_facts *out);

#endif
