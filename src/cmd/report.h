/* vprof report's inputs and tables: what cmd/report.c parses, and the
 * calls to the analyses of summary, steps, comm, diff and memory that
 * cmd/report_read.c makes. */
#ifndef VPROF_CMD_REPORT_H
#define VPROF_CMD_REPORT_H

#include <stdio.h>

#include "cli/cli.h"
#include "cli/runopts.h"
#include "vprof/exec.h"

#define VP_REPORT_TABLES 40

typedef struct vp_report_input {
    vp_common_opts common;
    vp_run_cli ro;
    const char *baseline;     /* --baseline BASE, or NULL */
    vp_inputs inputs;         /* the operands, resolved */
    vp_table *tables[VP_REPORT_TABLES];
    size_t ntables;
    char *memory_svg;         /* the chart of vprof memory --plot, NULL: none */
    char *roofline_svg;       /* the roofline chart (vp_roofline_svg), NULL: none */
    int done;                 /* nothing to print here (vprof/parts.h's VP_PARTS_DONE) */
    char title[512];
} vp_report_input;

void vp_report_input_init(vp_report_input *in);
void vp_report_input_free(vp_report_input *in);

/* Reads the inputs and fills the tables (and the chart of a snapshot);
 * an exit status, after printing what failed. */
int vp_report_read(vp_report_input *in);

/* The HTML page of what vp_report_read made: 0, or -1 on a write error. */
int vp_report_write(FILE *out, const vp_report_input *in);

#endif
