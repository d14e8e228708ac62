/* The sections of vprof report's page (vprof/report_page.h). */
#include <string.h>

#include "vprof/html.h"
#include "vprof/report_page.h"

typedef struct page {
    FILE *out;
    vp_table *const *tables;
    size_t n;
    const char *memory_svg;
} page;

static const vp_table *find(const page *p, const char *name)
{
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(vp_table_name(p->tables[i]), name) == 0)
            return p->tables[i];
    return NULL;
}

static const char *const STEP_LABEL[] = {"Rank", "Step"};

/* An Ascend profile's step_trace_time (vprof steps DIR): each rank's and
 * stage's step as MindStudio Insight's Summary page stacks it. */
static void step_trace_time(const page *p)
{
    const vp_table *t = find(p, "step_trace_time");
    if (!t)
        return;
    static const char *const label[] = {"Step", "Type", "Index"};
    static const char *const parts[] = {"Computing", "Communication(Not Overlapped)", "Free"};
    vp_html_heading(p->out, "Step trace time (vprof steps, step_trace_time)");
    vp_html_chart(p->out, t, "Each step of each rank and stage: computing, communication not "
                             "overlapped, free",
                  label, 3, parts, 3, VP_REPORT_MAX_BARS, 0);
    vp_html_table(p->out, t, VP_REPORT_MAX_ROWS, "vprof steps --table step_trace_time");
}

static void overview(const page *p)
{
    FILE *out = p->out;
    const vp_table *t;
    vp_html_section(out, "overview", "Overview");
    if ((t = find(p, "findings"))) {
        vp_html_heading(out, "Findings");
        vp_html_findings(out, t);
    }
    if ((t = find(p, "run"))) {
        vp_html_heading(out, "Run");
        vp_html_table(out, t, 0, NULL);
    }
    if ((t = find(p, "gpu_time"))) {
        static const char *const busy[] = {"Busy", "Idle"}, *const label[] = {"GPU Span"};
        vp_html_heading(out, "GPU time");
        vp_html_chart(out, t, "GPU busy and idle, shares of the GPU span", label, 1, busy, 2, 0, 0);
        vp_html_table(out, t, 0, NULL);
    }
    if ((t = find(p, "mfu"))) {
        vp_html_heading(out, "Model FLOPs utilization");
        vp_html_table(out, t, 0, NULL);
    }
    if ((t = find(p, "steps"))) {
        static const char *const gpu[] = {"Compute", "Comm Exposed", "Memory", "GPU Idle"};
        static const char *const cpu[] = {"Data Loading", "Forward", "Backward", "Optimizer"};
        vp_html_heading(out, "Step time breakdown (vprof steps)");
        vp_html_chart(out, t, "GPU time of each step: compute, exposed communication, memory, idle",
                      STEP_LABEL, 2, gpu, 4, VP_REPORT_MAX_BARS, 0);
        vp_html_chart(out, t, "CPU time of each step: data loading, forward, backward, optimizer",
                      STEP_LABEL, 2, cpu, 4, VP_REPORT_MAX_BARS, 0);
        vp_html_table(out, t, VP_REPORT_MAX_ROWS, "vprof steps --per-rank");
    }
    step_trace_time(p);
    vp_html_section_end(out);
}

static void kernels(const page *p)
{
    const vp_table *t = find(p, "top_kernels");
    if (!t)
        return;
    static const char *const label[] = {"Name"}, *const total[] = {"Total Time"};
    vp_html_section(p->out, "kernels", "Kernels");
    vp_html_chart(p->out, t, "Top kernels by GPU time, all ranks", label, 1, total, 1,
                  VP_REPORT_MAX_BARS, 0);
    vp_html_table(p->out, t, VP_REPORT_MAX_ROWS, "vprof kernels");
    if ((t = find(p, "kernel_classes"))) {
        static const char *const rank[] = {"Rank"};
        static const char *const cls[] = {"Compute", "Communication", "Memory", "Sync"};
        vp_html_heading(p->out, "Time by class per rank");
        vp_html_chart(p->out, t, "Each rank's kernel time by class: compute, communication, "
                                 "memory copies and sets, sync",
                      rank, 1, cls, 4, VP_REPORT_MAX_BARS, 0);
        vp_html_table(p->out, t, VP_REPORT_MAX_ROWS,
                      "vprof kernels --by rank,class --include memcpy,memset,sync");
    }
    vp_html_section_end(p->out);
}

/* An Ascend profile's operators as MindStudio Insight's Operator page
 * shows them: time per op type and per core type, and the statistics. */
static void operators(const page *p)
{
    const vp_table *t = find(p, "op_types");
    if (!t)
        return;
    FILE *out = p->out;
    static const char *const total[] = {"Total Time"};
    static const char *const type[] = {"Type"}, *const core[] = {"Accelerator Core"};
    vp_html_section(out, "operators", "Operators");
    vp_html_heading(out, "Time per op type");
    vp_html_chart(out, t, "Operator time per op type, all ranks", type, 1, total, 1,
                  VP_REPORT_MAX_BARS, 0);
    vp_html_table(out, t, VP_REPORT_MAX_ROWS, "vprof kernels --by type");
    if ((t = find(p, "op_cores"))) {
        vp_html_heading(out, "Time per core type");
        vp_html_chart(out, t, "Operator time per accelerator core type, all ranks", core, 1,
                      total, 1, VP_REPORT_MAX_BARS, 0);
        vp_html_table(out, t, VP_REPORT_MAX_ROWS, "vprof kernels --by core");
    }
    if ((t = find(p, "op_statistics"))) {
        vp_html_heading(out, "Statistics per op type and core type");
        vp_html_table(out, t, VP_REPORT_MAX_ROWS, "vprof kernels --by type,core");
    }
    vp_html_section_end(out);
}

/* Two ranks or more of vprof comm, or an Ascend profile's HCCL files
 * (communication.json, communication_matrix.json: vprof comm DIR's
 * tables, with one rank too). */
static int has_distributed(const page *p)
{
    const vp_table *t = find(p, "comm");
    return (t && vp_table_rows(t) > 1) || find(p, "hccl_ops") || find(p, "hccl_links");
}

static void distributed(const page *p)
{
    if (!has_distributed(p))
        return;
    const vp_table *t = find(p, "comm");
    FILE *out = p->out;
    static const char *const rank[] = {"Rank"}, *const parts[] = {"Computing", "Comm Exposed", "Free"};
    vp_html_section(out, "distributed", "Distributed");
    if (t) {
        vp_html_heading(out, "Per rank (vprof comm)");
        vp_html_chart(out, t, "Each rank's GPU span: computing, exposed communication, free", rank,
                      1, parts, 3, VP_REPORT_MAX_BARS, 0);
        vp_html_table(out, t, VP_REPORT_MAX_ROWS, "vprof comm");
    }
    if ((t = find(p, "collectives"))) {
        static const char *const label[] = {"Collective", "Group", "Size"};
        static const char *const time[] = {"Total Time"};
        vp_html_heading(out, "Collectives");
        vp_html_chart(out, t, "Time of each collective, all ranks", label, 3, time, 1,
                      VP_REPORT_MAX_BARS, 0);
        vp_html_table(out, t, VP_REPORT_MAX_ROWS, "vprof comm --table collectives");
    }
    if ((t = find(p, "spread"))) {
        vp_html_heading(out, "Spread over ranks");
        vp_html_table(out, t, 0, NULL);
    }
    if ((t = find(p, "stragglers"))) {
        vp_html_heading(out, "Straggler of each step");
        vp_html_table(out, t, VP_REPORT_MAX_ROWS, "vprof comm --table stragglers");
    }
    static const char *const hccl[][3] = {
        {"hccl_ops", "HCCL operations (communication.json)", "vprof comm --table hccl_ops"},
        {"hccl_bandwidth", "Bandwidth per transport (communication.json)",
         "vprof comm --table hccl_bandwidth"},
        {"hccl_links", "Links (communication_matrix.json)", "vprof comm --table hccl_links"}};
    for (size_t i = 0; i < sizeof hccl / sizeof *hccl; i++)
        if ((t = find(p, hccl[i][0]))) {
            vp_html_heading(out, hccl[i][1]);
            vp_html_table(out, t, VP_REPORT_MAX_ROWS, hccl[i][2]);
        }
    vp_html_section_end(out);
}

static void memory(const page *p)
{
    const vp_table *t = find(p, "memory");
    vp_html_section(p->out, "memory", "Memory");
    if (p->memory_svg) {
        vp_html_figure_begin(p->out, find(p, "memory_events")
                                         ? "Memory over time, the first trace's [memory] events: "
                                           "allocated (solid) and reserved (dashed)"
                                         : "Memory over time: active (solid) and reserved (dashed)");
        fputs(p->memory_svg, p->out);
        vp_html_figure_end(p->out);
    }
    static const char *const snap[][2] = {{"memory_events", "The first trace's [memory] events "
                                                            "(vprof memory)"},
                                          {"out_of_memory", "Out of memory ([OutOfMemory] events)"},
                                          {"npu_memory", "NPU memory per component "
                                                         "(memory_record.csv)"},
                                          {"operators_at_peak", "Operators at each allocator's "
                                                                "peak (operator_memory.csv)"},
                                          {"npu_module_mem", "Memory per module "
                                                             "(npu_module_mem.csv)"},
                                          {"peak", "The peak"},
                                          {"top_at_peak", "The largest live allocations at the peak"},
                                          {"state", "State at the end"},
                                          {"oom", "Out of memory"}};
    int any = p->memory_svg != NULL;
    for (size_t i = 0; i < sizeof snap / sizeof *snap; i++)
        if ((t = find(p, snap[i][0]))) {
            vp_html_heading(p->out, snap[i][1]);
            vp_html_table(p->out, t, VP_REPORT_MAX_ROWS, "vprof memory");
            any = 1;
        }
    if ((t = find(p, "memory"))) {
        vp_html_heading(p->out, "Peak memory from [memory] events");
        vp_html_table(p->out, t, 0, NULL);
    } else if (!any) {
        vp_html_para(p->out, "The traces hold no [memory] events (profile_memory=True records "
                             "them); vprof report SNAPSHOT.pickle draws a memory snapshot.");
    }
    vp_html_section_end(p->out);
}

static void baseline(const page *p)
{
    const vp_table *t = find(p, "baseline_metrics");
    if (!t)
        return;
    FILE *out = p->out;
    vp_html_section(out, "baseline", "Baseline");
    const vp_table *runs = find(p, "baseline_runs");
    if (runs) {
        vp_html_heading(out, "The runs");
        vp_html_table(out, runs, 0, NULL);
    }
    vp_html_heading(out, "Metrics (vprof diff)");
    vp_html_table(out, t, VP_REPORT_MAX_ROWS, "vprof diff");
    if ((t = find(p, "baseline_kernels"))) {
        static const char *const label[] = {"Name"}, *const delta[] = {"Delta"};
        vp_html_heading(out, "Kernels that changed most");
        vp_html_chart(out, t, "Change of each kernel's total time, new minus base (red: slower)",
                      label, 1, delta, 1, VP_REPORT_MAX_BARS, 1);
        vp_html_table(out, t, VP_REPORT_MAX_ROWS, "vprof diff");
    }
    vp_html_section_end(out);
}

int vp_report_page(FILE *out, const char *title, const char *subtitle, vp_table *const *tables,
                   size_t n, const char *memory_svg)
{
    page p = {out, tables, n, memory_svg};
    const char *ids[6], *titles[6];
    size_t nav = 0;
#define NAV(cond, id, ti) \
    if (cond) {           \
        ids[nav] = id;    \
        titles[nav++] = ti; \
    }
    NAV(find(&p, "run"), "overview", "Overview")
    NAV(find(&p, "top_kernels"), "kernels", "Kernels")
    NAV(find(&p, "op_types"), "operators", "Operators")
    NAV(has_distributed(&p), "distributed", "Distributed")
    NAV(1, "memory", "Memory")
    NAV(find(&p, "baseline_metrics"), "baseline", "Baseline")
#undef NAV
    vp_html_begin(out, title, subtitle, ids, titles, nav);
    if (find(&p, "run"))
        overview(&p);
    kernels(&p);
    operators(&p);
    distributed(&p);
    memory(&p);
    baseline(&p);
    return vp_html_end(out);
}
