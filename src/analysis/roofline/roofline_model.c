/* The cost models of vprof roofline (vprof/roofline.h): one call's FLOPs
 * and bytes from its Kineto "Input Dims", "Input type" and "Concrete
 * Inputs".  Each formula, and where it differs from TraceLens's perf
 * model, is in docs/roofline.md; argument positions are those of the
 * aten schemas (native_functions.yaml) and of flash-attn's ops. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "vprof/roofline.h"

enum { MAXARGS = 32, MAXRANK = 8, MAXTEXT = 48 };

/* One call's arguments: per input its dims (rank -1: not a plain list of
 * ints, e.g. a list of tensors or null), its type and concrete value. */
typedef struct args {
    int n;
    int rank[MAXARGS];
    int64_t dim[MAXARGS][MAXRANK];
    char type[MAXARGS][MAXTEXT];
    char conc[MAXARGS][MAXTEXT];
} args;

static const char *ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

/* Past the value at p: a number, literal, string or (nested) list. */
static const char *skip_value(const char *p)
{
    int depth = 0;
    for (; *p; p++) {
        if (*p == '"') {
            for (p++; *p && *p != '"'; p++)
                if (*p == '\\' && p[1])
                    p++;
            if (!*p)
                return p;
            if (depth == 0)
                return p + 1;
        } else if (*p == '[' || *p == '{') {
            depth++;
        } else if (*p == ']' || *p == '}') {
            if (depth == 0)
                return p;
            if (--depth == 0)
                return p + 1;
        } else if (*p == ',' && depth == 0) {
            return p;
        }
    }
    return p;
}

/* "[[4, 197, 768], [], ...]" into a->rank/dim; -1 when not a list. */
static int parse_dims(const char *p, args *a)
{
    p = ws(p);
    if (*p != '[')
        return -1;
    p = ws(p + 1);
    a->n = 0;
    while (*p && *p != ']') {
        if (a->n == MAXARGS)
            return 0;   /* the models read only the first inputs */
        int i = a->n++;
        a->rank[i] = -1;
        if (*p == '[') {
            const char *q = ws(p + 1);
            int r = 0, ok = 1;
            while (*q && *q != ']') {
                char *end;
                long long v = strtoll(q, &end, 10);
                if (end == q || r == MAXRANK) {
                    ok = 0;
                    break;
                }
                a->dim[i][r++] = v;
                q = ws(end);
                if (*q == ',')
                    q = ws(q + 1);
            }
            if (ok && *q == ']') {
                a->rank[i] = r;
                p = q + 1;
            } else {
                p = skip_value(p);
            }
        } else {
            p = skip_value(p);
        }
        p = ws(p);
        if (*p == ',')
            p = ws(p + 1);
    }
    return 0;
}

/* ["float", "c10::BFloat16", ...] into out[i] (truncated, unescaped
 * simply); missing entries stay "". */
static void parse_strings(const char *p, char (*out)[MAXTEXT])
{
    for (int i = 0; i < MAXARGS; i++)
        out[i][0] = 0;
    if (!p)
        return;
    p = ws(p);
    if (*p != '[')
        return;
    p = ws(p + 1);
    for (int i = 0; i < MAXARGS && *p && *p != ']'; i++) {
        if (*p == '"') {
            size_t k = 0;
            for (p++; *p && *p != '"'; p++) {
                if (*p == '\\' && p[1])
                    p++;
                if (k + 1 < MAXTEXT)
                    out[i][k++] = *p;
            }
            out[i][k] = 0;
            if (*p)
                p++;
        } else {
            p = skip_value(p);
        }
        p = ws(p);
        if (*p == ',')
            p = ws(p + 1);
    }
}

static int64_t numel(const args *a, int i)
{
    if (i >= a->n || a->rank[i] < 0)
        return 0;
    int64_t n = 1;
    for (int k = 0; k < a->rank[i]; k++)
        n *= a->dim[i][k];
    return n;
}

static int is_tensor(const args *a, int i)
{
    return i < a->n && a->rank[i] > 0;
}

/* Bytes per element of a type name as Kineto writes it; 0 unknown. */
static double type_size(const char *t)
{
    static const struct {
        const char *name;
        double size;
    } sizes[] = {
        {"double", 8}, {"long int", 8}, {"long", 8}, {"c10::complex<float>", 8},
        {"c10::complex<double>", 16}, {"float", 4}, {"int", 4}, {"unsigned int", 4},
        {"scalar", 4}, {"c10::half", 2}, {"c10::bfloat16", 2}, {"short int", 2}, {"short", 2},
        {"c10::complex<c10::half>", 4}, {"unsigned char", 1}, {"signed char", 1}, {"bool", 1},
        {"c10::float8_e4m3fn", 1}, {"c10::float8_e4m3fnuz", 1}, {"c10::float8_e5m2", 1},
        {"c10::float8_e5m2fnuz", 1}, {"c10::float8_e8m0fnu", 1},
        {"c10::float4_e2m1fn_x2", 1},
    };
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        if (strcasecmp(t, sizes[i].name) == 0)
            return sizes[i].size;
    return 0;
}

static vp_rl_prec type_prec(const char *t, int matrix)
{
    if (strcasecmp(t, "float") == 0)
        return VP_RL_FP32;
    if (strcasecmp(t, "double") == 0)
        return VP_RL_FP64;
    if (strcasecmp(t, "c10::half") == 0)
        return VP_RL_FP16;
    if (strcasecmp(t, "c10::bfloat16") == 0)
        return VP_RL_BF16;
    if (strncasecmp(t, "c10::float8_", 12) == 0)
        return VP_RL_FP8;
    if (matrix && strcasecmp(t, "signed char") == 0)
        return VP_RL_INT8;
    return VP_RL_PREC_NONE;
}

static double bpe(const args *a, int i)
{
    return i < MAXARGS ? type_size(a->type[i]) : 0;
}

/* A concrete boolean: "True", "true", "1". */
static int conc_true(const args *a, int i)
{
    const char *s = i < MAXARGS ? a->conc[i] : "";
    return strcasecmp(s, "true") == 0 || strcmp(s, "1") == 0;
}

/* A concrete int or list of ints ("[1, 1]", "2", "[]"): how many, into v. */
static int conc_ints(const args *a, int i, int64_t *v, int max)
{
    const char *p = i < MAXARGS ? a->conc[i] : "";
    int n = 0;
    while (*p && n < max) {
        if (*p == '-' || isdigit((unsigned char)*p)) {
            char *end;
            v[n++] = strtoll(p, &end, 10);
            p = end;
        } else {
            p++;
        }
    }
    return n;
}

/* ---- GEMM ---- */

typedef int (*model_fn)(const args *a, int arg, vp_rl_cost *c, const char **why);

static int mat2(const args *a, int i, int j, const char **why)
{
    if (a->n <= j || a->rank[i] != 2 || a->rank[j] != 2) {
        *why = "not two 2-D matrices";
        return -1;
    }
    return 0;
}


/* a @ b (+ bias at index bias, -1 none); out: bytes per output element. */
static int gemm(const args *a, int ia, int ib, int bias, double out, double batch, vp_rl_cost *c)
{
    const int64_t *A = a->dim[ia], *B = a->dim[ib];
    int r = a->rank[ia];
    double M = (double)A[r - 2], K = (double)A[r - 1], N = (double)B[a->rank[ib] - 1];
    double bA = bpe(a, ia), bB = bpe(a, ib);
    c->flops = batch * 2 * M * N * K;
    c->bytes = bA && bB && out ? batch * (M * K * bA + K * N * bB + M * N * out) : -1;
    if (bias >= 0 && is_tensor(a, bias)) {
        c->flops += batch * M * N;
        c->bytes = c->bytes >= 0 && bpe(a, bias) ? c->bytes + (double)numel(a, bias) * bpe(a, bias)
                                                 : -1;
    }
    c->prec = type_prec(a->type[ia], 1);
    c->matrix = 1;
    return 0;
}

static int m_mm(const args *a, int arg, vp_rl_cost *c, const char **why)
{
    (void)arg;
    if (mat2(a, 0, 1, why))
        return -1;
    return gemm(a, 0, 1, -1, bpe(a, 0), 1, c);
}

/* aten::_int_mm: int8 in, int32 out */
static int m_int_mm(const args *a, int arg, vp_rl_cost *c, const char **why)
{
    (void)arg;
    if (mat2(a, 0, 1, why))
        return -1;
    return gemm(a, 0, 1, -1, 4, 1, c);
}

static int m_addmm(const args *a, int arg, vp_rl_cost *c, const char **why)
{
    (void)arg;
    if (mat2(a, 1, 2, why))
        return -1;
    return gemm(a, 1, 2, 0, bpe(a, 1), 1, c);
}

static int bmm3(const args *a, int i, int j, const char **why)
{
    if (a->n <= j || a->rank[i] != 3 || a->rank[j] != 3) {
        *why = "not two 3-D batches of matrices";
        return -1;
    }
    return 0;
}

static int m_bmm(const args *a, int arg, vp_rl_cost *c, const char **why)
{
    (void)arg;
    if (bmm3(a, 0, 1, why))
        return -1;
    return gemm(a, 0, 1, -1, bpe(a, 0), (double)a->dim[0][0], c);
}

/* baddbmm: the bias is added to every batch's product; its bytes are
 * those of the bias tensor, once. */
static int m_baddbmm(const args *a, int arg, vp_rl_cost *c, const char **why)
{
    (void)arg;
    if (bmm3(a, 1, 2, why))
        return -1;
    gemm(a, 1, 2, -1, bpe(a, 1), (double)a->dim[1][0], c);
    if (is_tensor(a, 0)) {
        double Bt = (double)a->dim[1][0], M = (double)a->dim[1][1], N = (double)a->dim[2][2];
        c->flops += Bt * M * N;
        c->bytes = c->bytes >= 0 && bpe(a, 0) ? c->bytes + (double)numel(a, 0) * bpe(a, 0) : -1;
    }
    return 0;
}

/* _scaled_mm(self, mat2, scale_a, scale_b, bias, scale_result, out_dtype,
 * use_fast_accum): FP8 in, BF16/FP16 out (as TraceLens assumes: the out
 * dtype is an enum number in the trace); the scales are not counted. */
static int m_scaled_mm(const args *a, int arg, vp_rl_cost *c, const char **why)
{
    (void)arg;
    if (mat2(a, 0, 1, why))
        return -1;
    double b = bpe(a, 0);
    return gemm(a, 0, 1, 4, b == 1 ? 2 : b, 1, c);
}

/* addmv(self, mat, vec): y = beta self + alpha mat @ vec */
static int m_addmv(const args *a, int arg, vp_rl_cost *c, const char **why)
{
    (void)arg;
    if (a->n < 3 || a->rank[1] != 2 || a->rank[2] != 1) {
        *why = "not a matrix and a vector";
        return -1;
    }
    double M = (double)a->dim[1][0], N = (double)a->dim[1][1], b = bpe(a, 1);
    c->flops = 2 * M * N + (is_tensor(a, 0) ? M : 0);
    c->bytes = b && bpe(a, 2) ? M * N * b + N * bpe(a, 2) + M * b : -1;
    if (is_tensor(a, 0))
        c->bytes = c->bytes >= 0 && bpe(a, 0) ? c->bytes + (double)numel(a, 0) * bpe(a, 0) : -1;
    c->prec = type_prec(a->type[1], 1);
    c->matrix = 1;
    return 0;
}

/* ---- attention ---- */

/* How an attention op lays out its arguments. */
typedef struct attn_spec {
    int q;              /* index of Q (K and V follow) */
    int bnhd;           /* 1: (B, N, H, d) (flash-attn, aten::_flash_attention_*); 0: (B, H, N, d) */
    int causal;         /* Concrete Inputs index of is_causal / custom_mask_type; -1: none */
    int mask_type;      /* causal is an int mask type (xformers: > 0 causal) */
    int flash;          /* the backward recomputes QK^T (flash's algorithm) */
    int bwd;
} attn_spec;

static const attn_spec attn_specs[] = {
    /* 0 */ {0, 0, 4, 0, 1, 0},   /* aten::_scaled_dot_product_flash_attention */
    /* 1 */ {0, 0, 6, 0, 0, 0},   /* aten::_scaled_dot_product_efficient_attention */
    /* 2 */ {0, 0, 6, 0, 0, 0},   /* aten::_scaled_dot_product_cudnn_attention */
    /* 3 */ {0, 1, 8, 0, 1, 0},   /* aten::_flash_attention_forward */
    /* 4 */ {0, 1, 9, 1, 0, 0},   /* aten::_efficient_attention_forward */
    /* 5 */ {0, 1, 5, 0, 1, 0},   /* flash_attn::_flash_attn_forward, FlashAttnFunc */
    /* 6 */ {1, 0, 11, 0, 1, 1},  /* aten::_scaled_dot_product_flash_attention_backward */
    /* 7 */ {1, 0, 11, 0, 0, 1},  /* aten::_scaled_dot_product_efficient_attention_backward */
    /* 8 */ {1, 0, 14, 0, 0, 1},  /* aten::_scaled_dot_product_cudnn_attention_backward */
    /* 9 */ {1, 1, 11, 0, 1, 1},  /* aten::_flash_attention_backward */
    /* 10 */ {1, 1, 14, 1, 0, 1}, /* aten::_efficient_attention_backward */
    /* 11 */ {1, 1, 11, 0, 1, 1}, /* flash_attn::_flash_attn_backward */
};

static int m_attention(const args *a, int arg, vp_rl_cost *c, const char **why)
{
    const attn_spec *s = &attn_specs[arg];
    int q = s->q, k = q + 1, v = q + 2;
    if (a->n <= v || a->rank[q] != 4 || a->rank[k] != 4 || a->rank[v] != 4) {
        *why = "Q, K, V are not 4-D";
        return -1;
    }
    int n = s->bnhd ? 1 : 2, h = s->bnhd ? 2 : 1;
    double B = (double)a->dim[q][0], Nq = (double)a->dim[q][n], Hq = (double)a->dim[q][h];
    double Nkv = (double)a->dim[k][n], Hkv = (double)a->dim[k][h];
    double dqk = (double)a->dim[q][3], dv = (double)a->dim[v][3];
    int causal = 0;
    if (s->causal >= 0) {
        int64_t t = 0;
        causal = s->mask_type ? conc_ints(a, s->causal, &t, 1) == 1 && t > 0
                              : conc_true(a, s->causal);
    }
    double qs = B * Nq * Hq * dqk, ks = B * Nkv * Hkv * dqk, vs = B * Nkv * Hkv * dv,
           os = B * Nq * Hq * dv, b = bpe(a, q);
    double mm = 2 * B * Hq * Nq * Nkv;      /* one N_Q x N_KV product per unit of head dim */
    if (!s->bwd) {
        c->flops = mm * (dqk + dv);
        c->bytes = b ? (qs + ks + vs + os) * b : -1;
    } else {
        /* dV = P^T dO, dP = dO V^T, dQ = dS K, dK = dS^T Q (and P = QK^T
         * again for flash); with grouped K/V heads the dK, dV of the
         * query heads that share one are summed. */
        double group = Hkv > 0 ? (double)((int64_t)(Hq / Hkv)) - 1 : 0;
        c->flops = (s->flash ? mm * dqk : 0) + mm * dv + B * Nkv * dv * group + mm * dv +
                   mm * dqk + mm * dqk + B * Nkv * dqk * group;
        c->bytes = b ? (qs + ks + vs + os + qs + ks + vs) * b : -1;
    }
    if (causal)
        c->flops /= 2;
    c->prec = type_prec(a->type[q], 1);
    c->matrix = 1;
    return 0;
}

/* ---- convolution ---- */

/* x: input, w: weight; the conv parameters at concrete index p0
 * (stride, padding, dilation, transposed, output_padding, groups).  The
 * output into out[], its rank in *ro.  -1 when the shapes do not fit. */
static int conv_out(const args *a, int x, int w, int p0, int64_t *out, int *ro, const char **why)
{
    int r = x < a->n ? a->rank[x] : -1;
    if (r < 3 || w >= a->n || a->rank[w] != r) {
        *why = "input and weight are not N-D tensors of one rank";
        return -1;
    }
    int sp = r - 2;
    int64_t st[MAXRANK], pd[MAXRANK], dl[MAXRANK], op[MAXRANK], g = 1;
    int nst = conc_ints(a, p0, st, MAXRANK), npd = conc_ints(a, p0 + 1, pd, MAXRANK),
        ndl = conc_ints(a, p0 + 2, dl, MAXRANK), nop = conc_ints(a, p0 + 4, op, MAXRANK);
    int transposed = conc_true(a, p0 + 3);
    conc_ints(a, p0 + 5, &g, 1);
    if (g < 1)
        g = 1;
    out[0] = a->dim[x][0];
    out[1] = transposed ? a->dim[w][1] * g : a->dim[w][0];
    for (int i = 0; i < sp; i++) {
        int64_t s = nst ? st[nst == 1 ? 0 : i] : 1, p = npd ? pd[npd == 1 ? 0 : i] : 0,
                d = ndl ? dl[ndl == 1 ? 0 : i] : 1, o = nop ? op[nop == 1 ? 0 : i] : 0;
        int64_t in = a->dim[x][i + 2], k = a->dim[w][i + 2];
        if (s < 1)
            s = 1;
        out[i + 2] = transposed ? (in - 1) * s - 2 * p + d * (k - 1) + o + 1
                                : (in + 2 * p - d * (k - 1) - 1) / s + 1;
        if (out[i + 2] < 1) {
            *why = "the output would be empty";
            return -1;
        }
    }
    *ro = r;
    return transposed;
}

static double prod(const int64_t *v, int n)
{
    double p = 1;
    for (int i = 0; i < n; i++)
        p *= (double)v[i];
    return p;
}

/* The forward FLOPs without bias: every output (input, transposed) element
 * is a dot product over one group's channels and the kernel window. */
static double conv_flops(const args *a, int x, int w, const int64_t *out, int ro, int transposed)
{
    double wk = prod(a->dim[w] + 1, a->rank[w] - 1);
    return 2 * wk * (transposed ? prod(a->dim[x], a->rank[x]) : prod(out, ro));
}

/* convolution(input, weight, bias, stride, padding, dilation, transposed,
 * output_padding, groups) */
static int m_conv(const args *a, int arg, vp_rl_cost *c, const char **why)
{
    (void)arg;
    int64_t out[MAXRANK];
    int ro, tr = conv_out(a, 0, 1, 3, out, &ro, why);
    if (tr < 0)
        return -1;
    double b = bpe(a, 0), no = prod(out, ro);
    c->flops = conv_flops(a, 0, 1, out, ro, tr);
    c->bytes = b && bpe(a, 1) ? (double)numel(a, 0) * b + (double)numel(a, 1) * bpe(a, 1) + no * b : -1;
    if (is_tensor(a, 2)) {
        c->flops += no;
        c->bytes = c->bytes >= 0 && bpe(a, 2) ? c->bytes + (double)numel(a, 2) * bpe(a, 2) : -1;
    }
    c->prec = type_prec(a->type[0], 1);
    c->matrix = 1;
    return 0;
}

/* convolution_backward(grad_output, input, weight, bias_sizes, stride,
 * padding, dilation, transposed, output_padding, groups, output_mask):
 * the input gradient (a transposed convolution of dO with W), the weight
 * gradient (dO with X), the bias gradient (a sum of dO), each as
 * output_mask asks (all three when it is not recorded). */
static int m_conv_bwd(const args *a, int arg, vp_rl_cost *c, const char **why)
{
    (void)arg;
    int64_t out[MAXRANK], mask[3] = {1, 1, 0};
    int ro, tr = conv_out(a, 1, 2, 4, out, &ro, why);
    if (tr < 0)
        return -1;
    if (a->conc[10][0]) {
        const char *p = a->conc[10];
        int k = 0;
        while (*p && k < 3) {
            if (strncasecmp(p, "true", 4) == 0)
                mask[k++] = 1, p += 4;
            else if (strncasecmp(p, "false", 5) == 0)
                mask[k++] = 0, p += 5;
            else
                p++;
        }
    }
    double b = bpe(a, 0), f = conv_flops(a, 1, 2, out, ro, tr), no = (double)numel(a, 0);
    double nx = (double)numel(a, 1), nw = (double)numel(a, 2);
    c->flops = (mask[0] ? f : 0) + (mask[1] ? f : 0) + (mask[2] ? no : 0);
    c->bytes = (mask[0] ? no + nw + nx : 0) + (mask[1] ? no + nx + nw : 0) +
               (mask[2] ? no + (double)out[1] : 0);
    c->bytes = b ? c->bytes * b : -1;
    c->prec = type_prec(a->type[0], 1);
    c->matrix = 1;
    return 0;
}

/* ---- elementwise ---- */

/* One input (arg 0) to one output: copy_(dst, src) reads src (at its
 * size and dtype) and writes dst; the rest read and write input 0, the
 * output at input 1's dtype when input 1 is a tensor (as TraceLens). */
static int m_unary(const args *a, int arg, vp_rl_cost *c, const char **why)
{
    if (a->n < 1 || a->rank[0] < 0) {
        *why = "no input tensor";
        return -1;
    }
    double n = (double)numel(a, 0), b0 = bpe(a, 0);
    if (arg == 1) {     /* copy_ */
        double b1 = bpe(a, 1), n1 = is_tensor(a, 1) ? (double)numel(a, 1) : n;
        c->flops = n;
        c->bytes = b0 && b1 ? n1 * b1 + n * b0 : -1;
    } else if (arg == 2) {  /* fill_, zero_: written only */
        c->flops = n;
        c->bytes = b0 ? n * b0 : -1;
    } else {
        double bo = is_tensor(a, 1) ? bpe(a, 1) : b0;
        c->flops = n;
        c->bytes = b0 && bo ? n * b0 + n * bo : -1;
    }
    c->prec = type_prec(a->type[0], 0);
    return 0;
}

/* Two inputs broadcast to one output: FLOPs one per output element;
 * bytes each input at its own size and dtype, the output at the
 * broadcast size (at out='s dtype, else the wider input's). */
static int m_binary(const args *a, int arg, vp_rl_cost *c, const char **why)
{
    (void)arg;
    if (a->n < 2 || a->rank[0] < 0 || a->rank[1] < 0) {
        *why = "not two operands";
        return -1;
    }
    int r0 = a->rank[0], r1 = a->rank[1], r = r0 > r1 ? r0 : r1;
    double nout = 1;
    for (int i = 0; i < r; i++) {
        int64_t x = i < r0 ? a->dim[0][r0 - 1 - i] : 1, y = i < r1 ? a->dim[1][r1 - 1 - i] : 1;
        if (x != y && x != 1 && y != 1) {
            *why = "the shapes do not broadcast";
            return -1;
        }
        nout *= (double)(x == 1 ? y : x);
    }
    double b0 = bpe(a, 0), b1 = bpe(a, 1), bo;
    if (is_tensor(a, 2))
        bo = bpe(a, 2);
    else if (r0 > 0 && r1 > 0)
        bo = b0 > b1 ? b0 : b1;
    else
        bo = b0;
    c->flops = nout;
    c->bytes = b0 && b1 && bo ? (double)numel(a, 0) * b0 + (double)numel(a, 1) * b1 + nout * bo : -1;
    c->prec = type_prec(a->type[0], 0);
    return 0;
}

/* ---- reductions ---- */

/* sum(self, dim, keepdim, ...): FLOPs one per input element; bytes the
 * input and the output, whose size follows from dim (concrete input 1,
 * all dims when absent); cumulative ops (arg 1) write as many as they
 * read.  max/min of two tensors are binary elementwise. */
static int m_reduce(const args *a, int arg, vp_rl_cost *c, const char **why)
{
    if (a->n < 1 || a->rank[0] < 0) {
        *why = "no input tensor";
        return -1;
    }
    if (arg == 2 && is_tensor(a, 1))
        return m_binary(a, 0, c, why);
    double n = (double)numel(a, 0), b = bpe(a, 0), nout = 1;
    if (arg == 1) {
        nout = n;
    } else {
        int64_t d[MAXRANK];
        int nd = conc_ints(a, 1, d, MAXRANK), r = a->rank[0];
        if (nd > 0 && r > 0) {
            nout = n;
            for (int i = 0; i < nd; i++) {
                int64_t k = d[i] < 0 ? d[i] + r : d[i];
                if (k >= 0 && k < r && a->dim[0][k] > 0)
                    nout /= (double)a->dim[0][k];
            }
        }
    }
    c->flops = n;
    c->bytes = b ? (n + nout) * b : -1;
    c->prec = type_prec(a->type[0], 0);
    return 0;
}

/* ---- normalisation (TraceLens's formulas, docs/roofline.md) ---- */

typedef struct norm_spec {
    int x;              /* the normalised input */
    int cn_conc;        /* Cn = prod(concrete list at this index); -1: Cn = x's dim 1 */
    int group_conc;     /* Cn /= int(concrete at this index); -1: no */
    int affine;         /* index of the weight; -1: none */
    int bias;           /* index of the bias; -1: none */
    int training;       /* concrete index of training; -1: always; -2: never */
    int mask;           /* concrete index of output_mask (backward); -1: none */
    int bwd;
    int rms;
} norm_spec;

static const norm_spec norm_specs[] = {
    /* 0 */ {0, 1, -1, 2, 3, -1, -1, 0, 0},    /* native_layer_norm, layer_norm */
    /* 1 */ {0, -1, -1, 1, 2, 5, -1, 0, 0},    /* native_batch_norm, batch_norm, cudnn_batch_norm */
    /* 2 */ {0, -1, -1, 1, 2, -1, -1, 0, 0},   /* native_group_norm */
    /* 3 */ {0, -1, -1, 2, 3, -1, -1, 0, 0},   /* group_norm */
    /* 4 */ {0, 1, -1, 2, -1, -1, -1, 0, 1},   /* _fused_rms_norm, rms_norm */
    /* 5 */ {1, 2, -1, 5, 6, -1, 7, 1, 0},     /* native_layer_norm_backward */
    /* 6 */ {1, -1, -1, 2, 2, 7, 9, 1, 0},     /* native_batch_norm_backward */
    /* 7 */ {1, -1, 8, 4, 4, -1, 9, 1, 0},     /* native_group_norm_backward */
    /* 8 */ {0, -1, -1, 2, 2, -2, -1, 1, 0},   /* cudnn_batch_norm_backward */
};

static int m_norm(const args *a, int arg, vp_rl_cost *c, const char **why)
{
    const norm_spec *s = &norm_specs[arg];
    if (s->x >= a->n || a->rank[s->x] < 2) {
        *why = "the input is not at least 2-D";
        return -1;
    }
    double N = (double)numel(a, s->x), Cn;
    if (s->cn_conc >= 0) {
        int64_t v[MAXRANK];
        int k = conc_ints(a, s->cn_conc, v, MAXRANK);
        if (k == 0) {
            *why = "no normalized_shape in Concrete Inputs";
            return -1;
        }
        Cn = prod(v, k);
    } else {
        Cn = (double)a->dim[s->x][1];
        if (s->group_conc >= 0) {
            int64_t g = 0;
            if (conc_ints(a, s->group_conc, &g, 1) != 1 || g < 1) {
                *why = "no group count in Concrete Inputs";
                return -1;
            }
            Cn = (double)(int64_t)(Cn / (double)g);
        }
    }
    if (Cn <= 0) {
        *why = "no channels";
        return -1;
    }
    int affine = s->affine >= 0 && is_tensor(a, s->affine);
    int bias = s->bias >= 0 && is_tensor(a, s->bias);
    int tr = s->training == -1 ? 1 : s->training == -2 ? 0 : conc_true(a, s->training);
    double b = bpe(a, s->x);
    if (s->rms) {
        c->flops = N / Cn * (2 * Cn + 2) + N * (affine ? 2 : 1);
        c->bytes = b ? 2 * N * b + (affine ? Cn * b : 0) : -1;
    } else if (!s->bwd) {
        c->flops = 3 * Cn + (tr ? 3 * N : 0) + 3 * Cn + 2 * N;
        double k = 2 + affine + (affine && bias) + (tr ? 2 : 0);
        c->bytes = b ? 2 * N * b + k * Cn * b : -1;
    } else {
        int mask0 = 1;
        if (s->mask >= 0 && a->conc[s->mask][0])
            mask0 = strncasecmp(a->conc[s->mask] + (a->conc[s->mask][0] == '[' ? 1 : 0), "true",
                                4) == 0;
        double e = N / Cn;
        c->flops = Cn * ((tr ? 0 : 3) + 4 * e + (mask0 ? (tr ? 5 * e : 0) : 2 * e));
        c->bytes = b ? N * b + N * b * (mask0 && tr ? 2 : 1) + (tr ? Cn * b : 0) +
                           (affine ? Cn * b + (tr ? Cn * b * (bias ? 2 : 1) : 0) : 0)
                     : -1;
    }
    c->prec = type_prec(a->type[s->x], 0);
    return 0;
}

/* ---- softmax, embedding ---- */

/* _softmax(self, dim, half_to_float): max, exp(x - max), sum, divide: 5
 * FLOPs an element; reads the input, writes the output (FP32 when
 * half_to_float).  arg 1: the backward (grad_output, output, ...): 4
 * FLOPs an element, reads two, writes one. */
static int m_softmax(const args *a, int arg, vp_rl_cost *c, const char **why)
{
    if (a->n < 1 || a->rank[0] < 1) {
        *why = "no input tensor";
        return -1;
    }
    double n = (double)numel(a, 0), b = bpe(a, 0);
    if (arg == 0) {
        double bo = conc_true(a, 2) ? 4 : b;
        c->flops = 5 * n;
        c->bytes = b ? n * b + n * bo : -1;
    } else {
        c->flops = 4 * n;
        c->bytes = b ? 3 * n * b : -1;
    }
    c->prec = type_prec(a->type[0], 0);
    return 0;
}

/* embedding(weight, indices, ...): reads the indices and one row per
 * index, writes them: no FLOPs.  arg 1: embedding_dense_backward(
 * grad_output, indices, num_weights, ...): one add per gradient element
 * into a num_weights x D table it writes. */
static int m_embedding(const args *a, int arg, vp_rl_cost *c, const char **why)
{
    if (a->n < 2 || a->rank[0] < 1 || a->rank[1] < 0) {
        *why = "no weight and indices";
        return -1;
    }
    double bi = bpe(a, 1), b = bpe(a, 0), idx = (double)numel(a, 1);
    if (arg == 0) {
        if (a->rank[0] != 2) {
            *why = "the weight is not 2-D";
            return -1;
        }
        double D = (double)a->dim[0][1];
        c->flops = 0;
        c->bytes = b && bi ? idx * bi + 2 * idx * D * b : -1;
    } else {
        int64_t nw = 0;
        double D = (double)a->dim[0][a->rank[0] - 1];
        conc_ints(a, 2, &nw, 1);
        c->flops = idx * D;
        c->bytes = b && bi ? idx * D * b + idx * bi + (double)nw * D * b : -1;
    }
    c->prec = type_prec(a->type[0], 0);
    return 0;
}

/* ---- the name table ---- */

typedef struct model {
    const char *name;
    vp_rl_family family;
    model_fn fn;
    int arg;
} model;

static const model models[] = {
    {"aten::mm", VP_RL_GEMM, m_mm, 0},
    {"aten::addmm", VP_RL_GEMM, m_addmm, 0},
    {"aten::bmm", VP_RL_GEMM, m_bmm, 0},
    {"aten::baddbmm", VP_RL_GEMM, m_baddbmm, 0},
    {"aten::_scaled_mm", VP_RL_GEMM, m_scaled_mm, 0},
    {"aten::_int_mm", VP_RL_GEMM, m_int_mm, 0},
    {"aten::addmv", VP_RL_GEMM, m_addmv, 0},
    {"aten::_scaled_dot_product_flash_attention", VP_RL_ATTN_FWD, m_attention, 0},
    {"aten::_scaled_dot_product_efficient_attention", VP_RL_ATTN_FWD, m_attention, 1},
    {"aten::_scaled_dot_product_cudnn_attention", VP_RL_ATTN_FWD, m_attention, 2},
    {"aten::_flash_attention_forward", VP_RL_ATTN_FWD, m_attention, 3},
    {"aten::_efficient_attention_forward", VP_RL_ATTN_FWD, m_attention, 4},
    {"flash_attn::_flash_attn_forward", VP_RL_ATTN_FWD, m_attention, 5},
    {"FlashAttnFunc", VP_RL_ATTN_FWD, m_attention, 5},
    {"aten::_scaled_dot_product_flash_attention_backward", VP_RL_ATTN_BWD, m_attention, 6},
    {"aten::_scaled_dot_product_efficient_attention_backward", VP_RL_ATTN_BWD, m_attention, 7},
    {"aten::_scaled_dot_product_cudnn_attention_backward", VP_RL_ATTN_BWD, m_attention, 8},
    {"aten::_flash_attention_backward", VP_RL_ATTN_BWD, m_attention, 9},
    {"aten::_efficient_attention_backward", VP_RL_ATTN_BWD, m_attention, 10},
    {"flash_attn::_flash_attn_backward", VP_RL_ATTN_BWD, m_attention, 11},
    {"aten::convolution", VP_RL_CONV_FWD, m_conv, 0},
    {"aten::convolution_backward", VP_RL_CONV_BWD, m_conv_bwd, 0},
    {"aten::copy_", VP_RL_ELEMENTWISE, m_unary, 1},
    {"aten::copy", VP_RL_ELEMENTWISE, m_unary, 1},
    {"aten::fill_", VP_RL_ELEMENTWISE, m_unary, 2},
    {"aten::zero_", VP_RL_ELEMENTWISE, m_unary, 2},
    {"aten::clamp_min", VP_RL_ELEMENTWISE, m_unary, 0},
    {"aten::clamp_min_", VP_RL_ELEMENTWISE, m_unary, 0},
    {"aten::clamp_max", VP_RL_ELEMENTWISE, m_unary, 0},
    {"aten::clamp_max_", VP_RL_ELEMENTWISE, m_unary, 0},
    {"aten::clamp", VP_RL_ELEMENTWISE, m_unary, 0},
    {"aten::clamp_", VP_RL_ELEMENTWISE, m_unary, 0},
    {"aten::sigmoid", VP_RL_ELEMENTWISE, m_unary, 0},
    {"aten::sigmoid_", VP_RL_ELEMENTWISE, m_unary, 0},
    {"aten::rsqrt", VP_RL_ELEMENTWISE, m_unary, 0},
    {"aten::sqrt", VP_RL_ELEMENTWISE, m_unary, 0},
    {"aten::silu", VP_RL_ELEMENTWISE, m_unary, 0},
    {"aten::silu_", VP_RL_ELEMENTWISE, m_unary, 0},
    {"aten::neg", VP_RL_ELEMENTWISE, m_unary, 0},
    {"aten::pow", VP_RL_ELEMENTWISE, m_unary, 0},
    {"aten::relu", VP_RL_ELEMENTWISE, m_unary, 0},
    {"aten::relu_", VP_RL_ELEMENTWISE, m_unary, 0},
    {"aten::gelu", VP_RL_ELEMENTWISE, m_unary, 0},
    {"aten::tanh", VP_RL_ELEMENTWISE, m_unary, 0},
    {"aten::exp", VP_RL_ELEMENTWISE, m_unary, 0},
    {"aten::log", VP_RL_ELEMENTWISE, m_unary, 0},
    {"aten::abs", VP_RL_ELEMENTWISE, m_unary, 0},
    {"aten::reciprocal", VP_RL_ELEMENTWISE, m_unary, 0},
    {"aten::add", VP_RL_ELEMENTWISE, m_binary, 0},
    {"aten::add_", VP_RL_ELEMENTWISE, m_binary, 0},
    {"aten::sub", VP_RL_ELEMENTWISE, m_binary, 0},
    {"aten::sub_", VP_RL_ELEMENTWISE, m_binary, 0},
    {"aten::mul", VP_RL_ELEMENTWISE, m_binary, 0},
    {"aten::mul_", VP_RL_ELEMENTWISE, m_binary, 0},
    {"aten::div", VP_RL_ELEMENTWISE, m_binary, 0},
    {"aten::div_", VP_RL_ELEMENTWISE, m_binary, 0},
    {"aten::sigmoid_backward", VP_RL_ELEMENTWISE, m_binary, 0},
    {"aten::threshold_backward", VP_RL_ELEMENTWISE, m_binary, 0},
    {"aten::silu_backward", VP_RL_ELEMENTWISE, m_binary, 0},
    {"aten::gelu_backward", VP_RL_ELEMENTWISE, m_binary, 0},
    {"aten::tanh_backward", VP_RL_ELEMENTWISE, m_binary, 0},
    {"aten::maximum", VP_RL_ELEMENTWISE, m_binary, 0},
    {"aten::minimum", VP_RL_ELEMENTWISE, m_binary, 0},
    {"aten::sum", VP_RL_REDUCE, m_reduce, 0},
    {"aten::mean", VP_RL_REDUCE, m_reduce, 0},
    {"aten::max", VP_RL_REDUCE, m_reduce, 2},
    {"aten::min", VP_RL_REDUCE, m_reduce, 2},
    {"aten::amax", VP_RL_REDUCE, m_reduce, 0},
    {"aten::amin", VP_RL_REDUCE, m_reduce, 0},
    {"aten::norm", VP_RL_REDUCE, m_reduce, 0},
    {"aten::linalg_vector_norm", VP_RL_REDUCE, m_reduce, 0},
    {"aten::std", VP_RL_REDUCE, m_reduce, 0},
    {"aten::var", VP_RL_REDUCE, m_reduce, 0},
    {"aten::logsumexp", VP_RL_REDUCE, m_reduce, 0},
    {"aten::prod", VP_RL_REDUCE, m_reduce, 0},
    {"aten::argmax", VP_RL_REDUCE, m_reduce, 0},
    {"aten::argmin", VP_RL_REDUCE, m_reduce, 0},
    {"aten::cumsum", VP_RL_REDUCE, m_reduce, 1},
    {"aten::cumprod", VP_RL_REDUCE, m_reduce, 1},
    {"aten::layer_norm", VP_RL_NORM_FWD, m_norm, 0},
    {"aten::native_layer_norm", VP_RL_NORM_FWD, m_norm, 0},
    {"aten::batch_norm", VP_RL_NORM_FWD, m_norm, 1},
    {"aten::_batch_norm_impl_index", VP_RL_NORM_FWD, m_norm, 1},
    {"aten::native_batch_norm", VP_RL_NORM_FWD, m_norm, 1},
    {"aten::cudnn_batch_norm", VP_RL_NORM_FWD, m_norm, 1},
    {"aten::native_group_norm", VP_RL_NORM_FWD, m_norm, 2},
    {"aten::group_norm", VP_RL_NORM_FWD, m_norm, 3},
    {"aten::_fused_rms_norm", VP_RL_NORM_FWD, m_norm, 4},
    {"aten::rms_norm", VP_RL_NORM_FWD, m_norm, 4},
    {"aten::native_layer_norm_backward", VP_RL_NORM_BWD, m_norm, 5},
    {"aten::native_batch_norm_backward", VP_RL_NORM_BWD, m_norm, 6},
    {"aten::native_group_norm_backward", VP_RL_NORM_BWD, m_norm, 7},
    {"aten::cudnn_batch_norm_backward", VP_RL_NORM_BWD, m_norm, 8},
    {"aten::_softmax", VP_RL_SOFTMAX, m_softmax, 0},
    {"aten::_log_softmax", VP_RL_SOFTMAX, m_softmax, 0},
    {"aten::_softmax_backward_data", VP_RL_SOFTMAX, m_softmax, 1},
    {"aten::_log_softmax_backward_data", VP_RL_SOFTMAX, m_softmax, 1},
    {"aten::embedding", VP_RL_EMBEDDING, m_embedding, 0},
    {"aten::embedding_dense_backward", VP_RL_EMBEDDING, m_embedding, 1},
};

static const model *model_of(const char *name)
{
    for (size_t i = 0; i < sizeof models / sizeof *models; i++)
        if (strcmp(name, models[i].name) == 0)
            return &models[i];
    return NULL;
}

vp_rl_family vp_rl_family_of(const char *name)
{
    const model *m = model_of(name);
    return m ? m->family : VP_RL_NONE;
}

const char *vp_rl_family_name(vp_rl_family f)
{
    static const char *const names[VP_RL_NFAMILIES] = {
        "no model", "GEMM", "attention fwd", "attention bwd", "conv fwd", "conv bwd",
        "elementwise", "reduce", "norm fwd", "norm bwd", "softmax", "embedding",
    };
    return (unsigned)f < VP_RL_NFAMILIES ? names[f] : "?";
}

int vp_rl_cost_of(const char *name, const char *dims, const char *types, const char *concrete,
                  vp_rl_cost *c, const char **why)
{
    static const char *unused;
    if (!why)
        why = &unused;
    memset(c, 0, sizeof *c);
    const model *m = model_of(name);
    if (!m) {
        *why = "no model";
        return -1;
    }
    args *a = calloc(1, sizeof *a);
    if (!a) {
        *why = "out of memory";
        return -1;
    }
    int rc = -1;
    if (!dims || parse_dims(dims, a) != 0 || a->n == 0) {
        *why = "no Input Dims";
    } else {
        parse_strings(types, a->type);
        parse_strings(concrete, a->conc);
        rc = m->fn(a, m->arg, c, why);
    }
    free(a);
    if (rc != 0) {
        memset(c, 0, sizeof *c);
        return -1;
    }
    c->family = m->family;
    return 0;
}

double vp_rl_peak_tflops(const vp_peak *row, const vp_rl_cost *c, int tf32)
{
    if (!row)
        return 0;
    const double *t = row->tflops;
    switch (c->prec) {
    case VP_RL_FP64:
        return c->matrix && t[VP_DTYPE_FP64_MX] > 0 ? t[VP_DTYPE_FP64_MX] : t[VP_DTYPE_FP64];
    case VP_RL_FP32:
        if (!c->matrix)
            return t[VP_DTYPE_FP32];
        if (tf32 && t[VP_DTYPE_TF32] > 0)
            return t[VP_DTYPE_TF32];
        return t[VP_DTYPE_FP32_MX] > t[VP_DTYPE_FP32] ? t[VP_DTYPE_FP32_MX] : t[VP_DTYPE_FP32];
    case VP_RL_FP16: return c->matrix ? t[VP_DTYPE_FP16] : t[VP_DTYPE_FP32];
    case VP_RL_BF16: return c->matrix ? t[VP_DTYPE_BF16] : t[VP_DTYPE_FP32];
    case VP_RL_FP8: return c->matrix ? t[VP_DTYPE_FP8] : t[VP_DTYPE_FP32];
    case VP_RL_INT8: return t[VP_DTYPE_INT8];
    default: return 0;
    }
}
