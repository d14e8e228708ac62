/* The sections of vprof report's page (vprof/report_page.h). */
#include <string.h>

#include "vprof/html.h"
#include "vprof/report_page.h"

typedef struct page {
    FILE *out;
    vp_table *const *tables;
    size_t n;
    const char *memory_svg;
    const char *roofline_svg;
} page;

static const vp_table *find(const page *p, const char *name)
{
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(vp_table_name(p->tables[i]), name) == 0)
            return p->tables[i];
    return NULL;
}

/* A bar chart of a block's table (vp_html_chart): its title, the label
 * and value columns by title (NULL-terminated), at most max_bars bars
 * (0: all), sign_colors for one signed column. */
typedef struct chart {
    const char *title;
    const char *const *labels, *const *values;
    size_t max_bars;
    int sign_colors;
} chart;

#define COLS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* One table of a section, when the tables hold it: its heading (NULL:
 * none), its charts (title NULL: none), then the table, at most max_rows
 * rows (0: all) with a line naming more, the command that prints them
 * all; the findings as a list. */
typedef struct block {
    const char *table, *heading;
    chart charts[2];
    size_t max_rows;
    const char *more;
} block;

static size_t count(const char *const *names)
{
    size_t n = 0;
    while (names[n])
        n++;
    return n;
}

/* The blocks whose tables are there, in order; how many were. */
static size_t blocks(const page *p, const block *b, size_t n)
{
    size_t shown = 0;
    for (; n--; b++) {
        const vp_table *t = find(p, b->table);
        if (!t)
            continue;
        if (b->heading)
            vp_html_heading(p->out, b->heading);
        for (const chart *c = b->charts; c < b->charts + 2 && c->title; c++)
            vp_html_chart(p->out, t, c->title, c->labels, count(c->labels), c->values,
                          count(c->values), c->max_bars, c->sign_colors);
        if (strcmp(b->table, "findings") == 0)
            vp_html_findings(p->out, t);
        else
            vp_html_table(p->out, t, b->max_rows, b->more);
        shown++;
    }
    return shown;
}

#define BARS VP_REPORT_MAX_BARS
#define ROWS VP_REPORT_MAX_ROWS

static const block OVERVIEW[] = {
    {.table = "findings", .heading = "Findings"},
    {.table = "run", .heading = "Run"},
    {.table = "gpu_time",
     .heading = "GPU time",
     .charts = {{"GPU busy and idle, shares of the GPU span", COLS("GPU Span"),
                 COLS("Busy", "Idle"), 0, 0}}},
    {.table = "mfu", .heading = "Model FLOPs utilization"},
    {.table = "steps",
     .heading = "Step time breakdown (vprof steps)",
     .charts = {{"GPU time of each step: compute, exposed communication, memory, idle",
                 COLS("Rank", "Step"), COLS("Compute", "Comm Exposed", "Memory", "GPU Idle"),
                 BARS, 0},
                {"CPU time of each step: data loading, forward, backward, optimizer",
                 COLS("Rank", "Step"), COLS("Data Loading", "Forward", "Backward", "Optimizer"),
                 BARS, 0}},
     .max_rows = ROWS,
     .more = "vprof steps --per-rank"},
    /* An Ascend profile's step_trace_time (vprof steps DIR): each rank's
     * and stage's step as MindStudio Insight's Summary page stacks it. */
    {.table = "step_trace_time",
     .heading = "Step trace time (vprof steps, step_trace_time)",
     .charts = {{"Each step of each rank and stage: computing, communication not overlapped, free",
                 COLS("Step", "Type", "Index"),
                 COLS("Computing", "Communication(Not Overlapped)", "Free"), BARS, 0}},
     .max_rows = ROWS,
     .more = "vprof steps --table step_trace_time"},
};

static const block KERNELS[] = {
    {.table = "top_kernels",
     .charts = {{"Top kernels by GPU time, all ranks", COLS("Name"), COLS("Total Time"), BARS, 0}},
     .max_rows = ROWS,
     .more = "vprof kernels"},
    {.table = "kernel_classes",
     .heading = "Time by class per rank",
     .charts = {{"Each rank's kernel time by class: compute, communication, memory copies "
                 "and sets, sync",
                 COLS("Rank"), COLS("Compute", "Communication", "Memory", "Sync"), BARS, 0}},
     .max_rows = ROWS,
     .more = "vprof kernels --by rank,class --include memcpy,memset,sync"},
};

/* vprof roofline's table, under its chart (section()). */
static const block ROOFLINE[] = {
    {.table = "roofline", .max_rows = ROWS, .more = "vprof roofline"},
};

/* An Ascend profile's operators as MindStudio Insight's Operator page
 * shows them: time per op type and per core type, and the statistics. */
static const block OPERATORS[] = {
    {.table = "op_types",
     .heading = "Time per op type",
     .charts = {{"Operator time per op type, all ranks", COLS("Type"), COLS("Total Time"),
                 BARS, 0}},
     .max_rows = ROWS,
     .more = "vprof kernels --by type"},
    {.table = "op_cores",
     .heading = "Time per core type",
     .charts = {{"Operator time per accelerator core type, all ranks", COLS("Accelerator Core"),
                 COLS("Total Time"), BARS, 0}},
     .max_rows = ROWS,
     .more = "vprof kernels --by core"},
    {.table = "op_statistics",
     .heading = "Statistics per op type and core type",
     .max_rows = ROWS,
     .more = "vprof kernels --by type,core"},
};

static const block DISTRIBUTED[] = {
    {.table = "comm",
     .heading = "Per rank (vprof comm)",
     .charts = {{"Each rank's GPU span: computing, exposed communication, free", COLS("Rank"),
                 COLS("Computing", "Comm Exposed", "Free"), BARS, 0}},
     .max_rows = ROWS,
     .more = "vprof comm"},
    {.table = "collectives",
     .heading = "Collectives",
     .charts = {{"Time of each collective, all ranks", COLS("Collective", "Group", "Size"),
                 COLS("Total Time"), BARS, 0}},
     .max_rows = ROWS,
     .more = "vprof comm --table collectives"},
    {.table = "spread", .heading = "Spread over ranks"},
    {.table = "stragglers",
     .heading = "Straggler of each step",
     .max_rows = ROWS,
     .more = "vprof comm --table stragglers"},
    {.table = "hccl_ops",
     .heading = "HCCL operations (communication.json)",
     .max_rows = ROWS,
     .more = "vprof comm --table hccl_ops"},
    {.table = "hccl_bandwidth",
     .heading = "Bandwidth per transport (communication.json)",
     .max_rows = ROWS,
     .more = "vprof comm --table hccl_bandwidth"},
    {.table = "hccl_links",
     .heading = "Links (communication_matrix.json)",
     .max_rows = ROWS,
     .more = "vprof comm --table hccl_links"},
};

#define MEMORY_TABLE(name, title) \
    {.table = name, .heading = title, .max_rows = ROWS, .more = "vprof memory"}

static const block MEMORY[] = {
    MEMORY_TABLE("memory_events", "The first trace's [memory] events (vprof memory)"),
    MEMORY_TABLE("out_of_memory", "Out of memory ([OutOfMemory] events)"),
    MEMORY_TABLE("npu_memory", "NPU memory per component (memory_record.csv)"),
    MEMORY_TABLE("operators_at_peak", "Operators at each allocator's peak (operator_memory.csv)"),
    MEMORY_TABLE("npu_module_mem", "Memory per module (npu_module_mem.csv)"),
    MEMORY_TABLE("peak", "The peak"),
    MEMORY_TABLE("top_at_peak", "The largest live allocations at the peak"),
    MEMORY_TABLE("state", "State at the end"),
    MEMORY_TABLE("oom", "Out of memory"),
    {.table = "memory", .heading = "Peak memory from [memory] events"},
};

static const block BASELINE[] = {
    {.table = "baseline_runs", .heading = "The runs"},
    {.table = "baseline_metrics", .heading = "Metrics (vprof diff)", .max_rows = ROWS,
     .more = "vprof diff"},
    {.table = "baseline_kernels",
     .heading = "Kernels that changed most",
     .charts = {{"Change of each kernel's total time, new minus base (red: slower)", COLS("Name"),
                 COLS("Delta"), BARS, 1}},
     .max_rows = ROWS,
     .more = "vprof diff"},
};

/* The page's sections, in order: each is there when the table it needs
 * is (with at least min_rows rows: Distributed needs two ranks), or any
 * table of or_any is (an Ascend profile's HCCL files, vprof comm DIR's
 * tables, make Distributed with one rank too), but Memory (needs NULL),
 * always there, which says why it is empty. */
static const struct section {
    const char *id, *title, *needs;
    size_t min_rows;
    const char *const *or_any;
    const block *blocks;
    size_t n;
} SECTIONS[] = {
#define SECTION(id, title, needs, min_rows, or_any, b) \
    {id, title, needs, min_rows, or_any, b, sizeof b / sizeof *b}
    SECTION("overview", "Overview", "run", 0, NULL, OVERVIEW),
    SECTION("kernels", "Kernels", "top_kernels", 0, NULL, KERNELS),
    SECTION("roofline", "Roofline", "roofline", 0, NULL, ROOFLINE),
    SECTION("operators", "Operators", "op_types", 0, NULL, OPERATORS),
    SECTION("distributed", "Distributed", "comm", 2, COLS("hccl_ops", "hccl_links"), DISTRIBUTED),
    SECTION("memory", "Memory", NULL, 0, NULL, MEMORY),
    SECTION("baseline", "Baseline", "baseline_metrics", 0, NULL, BASELINE),
#undef SECTION
};

#define NSECTIONS (sizeof SECTIONS / sizeof *SECTIONS)

static int shown(const page *p, const struct section *s)
{
    const vp_table *t = s->needs ? find(p, s->needs) : NULL;
    if (!s->needs || (t && vp_table_rows(t) >= s->min_rows))
        return 1;
    for (const char *const *o = s->or_any; o && *o; o++)
        if (find(p, *o))
            return 1;
    return 0;
}

/* A section: its blocks; Memory's with the chart on top (memory_svg),
 * or a line saying why it is empty; Roofline's with its chart on top. */
static void section(const page *p, const struct section *s)
{
    int memory = s->blocks == MEMORY;
    vp_html_section(p->out, s->id, s->title);
    if (memory && p->memory_svg) {
        vp_html_figure_begin(p->out,
                             find(p, "memory_events")
                                 ? "Memory over time, the first trace's [memory] events: "
                                   "allocated (solid) and reserved (dashed)"
                                 : "Memory over time: active (solid) and reserved (dashed)");
        fputs(p->memory_svg, p->out);
        vp_html_figure_end(p->out);
    }
    if (s->blocks == ROOFLINE && p->roofline_svg) {
        vp_html_figure_begin(p->out, "Each operator and shape: achieved TFLOP/s against its "
                                     "FLOP/Byte (log-log), the area by kernel time; the roofs: "
                                     "the device's bandwidth up to the ridge point, then its "
                                     "peak");
        fputs(p->roofline_svg, p->out);
        vp_html_figure_end(p->out);
    }
    if (blocks(p, s->blocks, s->n) == 0 && memory && !p->memory_svg)
        vp_html_para(p->out, "The traces hold no [memory] events (profile_memory=True records "
                             "them); vprof report SNAPSHOT.pickle draws a memory snapshot.");
    vp_html_section_end(p->out);
}

int vp_report_page(FILE *out, const char *title, const char *subtitle, vp_table *const *tables,
                   size_t n, const char *memory_svg, const char *roofline_svg)
{
    page p = {out, tables, n, memory_svg, roofline_svg};
    const char *ids[NSECTIONS], *titles[NSECTIONS];
    size_t nav = 0;
    for (size_t i = 0; i < NSECTIONS; i++)
        if (shown(&p, &SECTIONS[i])) {
            ids[nav] = SECTIONS[i].id;
            titles[nav++] = SECTIONS[i].title;
        }
    vp_html_begin(out, title, subtitle, ids, titles, nav);
    for (size_t i = 0; i < NSECTIONS; i++)
        if (shown(&p, &SECTIONS[i]))
            section(&p, &SECTIONS[i]);
    return vp_html_end(out);
}
