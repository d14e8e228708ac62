/* `vprof summary`'s findings: rules over a run's metrics, each with the
 * evidence measured and a suggestion.  The thresholds are named so that
 * `--threshold NAME=VALUE` can change them; docs/summary.md lists them. */
#ifndef VPROF_FINDINGS_H
#define VPROF_FINDINGS_H

#include <stddef.h>

#include "vprof/runstats.h"

typedef struct vp_threshold {
    const char *name;     /* "exposed_comm" */
    double value;
    const char *meaning;  /* "comm.exposed_pct above this (%)" */
} vp_threshold;

/* The thresholds with their defaults, ended by a NULL name; a copy the
 * caller owns and may change. */
vp_threshold *vp_thresholds_new(void);
/* Parses NAME=VALUE into th. -1 when NAME is unknown or VALUE not a number. */
int vp_thresholds_set(vp_threshold *th, const char *spec);
double vp_threshold_get(const vp_threshold *th, const char *name);

typedef struct vp_finding {
    const char *rule;     /* "exposed_comm" */
    char what[160];
    char evidence[512];
    const char *suggestion;
} vp_finding;

/* Fills out (up to max) with the findings that hold, in the order of the
 * rules; returns how many. */
size_t vp_findings(const vp_run *r, const vp_threshold *th, vp_finding *out, size_t max);

/* The next of out's max entries (*n so far), cleared, with its rule and
 * suggestion; NULL when out is full.  Every rule's file adds through it. */
vp_finding *vp_finding_add(vp_finding *out, size_t *n, size_t max, const char *rule,
                           const char *suggestion);

#endif
