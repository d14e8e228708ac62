/* Dense tensor peaks of accelerators, by device name.
 *
 * The order is the matching order: a key that is a substring of another
 * (H20 of H200, L40 of L40S, H100 of "H100 PCIe") comes after it, so the
 * first match is the most specific one.  Peaks with sparsity are never
 * used.  FP16 equals BF16 on every tensor core listed; FP8 is given where
 * the datasheet gives it, 0 (unknown or unsupported) elsewhere. */
#include <string.h>
#include <strings.h>

#include "vprof/flops.h"

/* Tensor peaks (mfu's): bf16, fp16, fp8. */
#define BF16(x) {x, x, 0}
#define BF16_FP8(x, y) {x, x, y}
/* Every dtype, for vprof roofline: bf16 = fp16, fp8, fp32, tf32, fp32
 * matrix, fp64, fp64 matrix, int8. */
#define ALL(bf, f8, f32, tf, f32mx, f64, f64mx, i8) {bf, bf, f8, f32, tf, f32mx, f64, f64mx, i8}

/* NVIDIA's datasheets give the tensor figures "with sparsity"; halved
 * here.  The bandwidth and non-tensor figures are the datasheets' too;
 * the secondary sources are those ../shared/reference/roofline.md (sec. 7)
 * cites (docs/roofline.md has the table with its sources). */
static const vp_peak peaks[] = {
    {"GB300", "GB300", BF16(2500), "torchtitan; VeOmni", 0, NULL},
    {"B300", "B300", BF16(2250), "torchtitan; VeOmni", 0, NULL},
    {"GB200", "GB200", ALL(2500, 5000, 0, 1250, 0, 45, 45, 5000),
     "NVIDIA Blackwell datasheet (VeOmni: 2565 at the measured clock)", 8.0,
     "NVIDIA GB200 NVL72 datasheet, per GPU (half a superchip)"},
    {"B200", "B200", ALL(2250, 4500, 80, 1125, 0, 0, 0, 4500),
     "NVIDIA Blackwell datasheet (VeOmni: 2382 at the measured clock)", 8.0,
     "NVIDIA HGX B200 datasheet; ml-engineering table"},
    {"H200 NVL", "H200 NVL", ALL(836, 1670.5, 60, 417.5, 0, 30, 60, 1670.5), "third-party tables",
     4.8, "NVIDIA H200 datasheet (NVL column)"},
    {"H200", "H200 SXM", ALL(989, 1979, 67, 494.5, 0, 34, 67, 1979),
     "NVIDIA H200 datasheet; torchtitan", 4.8, "NVIDIA H200 datasheet; ml-engineering table"},
    {"H100 NVL", "H100 NVL", ALL(835, 1671, 60, 417.5, 0, 30, 60, 1671),
     "NVIDIA H100 datasheet; torchtitan", 3.9, "NVIDIA H100 datasheet (NVL column)"},
    {"H100 PCIe", "H100 PCIe", ALL(756, 1513, 51, 378, 0, 26, 51, 1513),
     "NVIDIA H100 datasheet; torchtitan", 2.0, "NVIDIA H100 datasheet; ml-engineering table"},
    {"H100", "H100 SXM", ALL(989, 1979, 67, 494.5, 0, 34, 67, 1979),
     "NVIDIA H100 datasheet; torchtitan", 3.35, "NVIDIA H100 datasheet; ml-engineering table"},
    {"H800 PCIe", "H800 PCIe", ALL(756, 1513, 51, 378, 0, 0, 0, 1513), "as the H100 PCIe", 2.0,
     "as the H100 PCIe (FP64 not known)"},
    {"H800", "H800 SXM", ALL(989, 1979, 67, 494.5, 0, 1, 1, 1979), "as the H100 SXM (VeOmni)", 3.35,
     "as the H100 SXM, FP64 1 (LLM-Prof hardware_spec.md; tumgag)"},
    {"H20", "H20", ALL(148, 296, 44, 74, 0, 1, 1, 296), "torchtitan; VeOmni", 4.0,
     "NVIDIA H20 specifications as tabulated by VeOmni and vendors"},
    {"L40S", "L40S", ALL(362.05, 733, 91.6, 183, 0, 0, 0, 733), "NVIDIA L40S datasheet", 0.864,
     "NVIDIA L40S datasheet"},
    {"L40", "L40", ALL(181.05, 362, 90.5, 90.5, 0, 0, 0, 362), "NVIDIA L40 datasheet", 0.864,
     "NVIDIA L40 datasheet"},
    {"L20", "L20", ALL(119.5, 239, 59.8, 59.8, 0, 0, 0, 239), "VeOmni", 0.864,
     "NVIDIA L20 specifications (vendor tables)"},
    {"L4", "L4", ALL(121, 242.5, 30.3, 60, 0, 0, 0, 242.5), "NVIDIA L4 datasheet", 0.3,
     "NVIDIA L4 datasheet"},
    {"A100", "A100", ALL(312, 0, 19.5, 156, 0, 9.7, 19.5, 624),
     "NVIDIA A100 datasheet; torchtitan; nanoGPT", 1.555,
     "NVIDIA A100 datasheet (40 GB HBM2; 80 GB: see the memory variants)"},
    {"A800", "A800", ALL(312, 0, 19.5, 156, 0, 9.7, 19.5, 624), "as the A100", 1.555, "as the A100"},
    /* The A10G (AWS) is a different board: known, its peaks not. */
    {"A10G", "A10G", {0}, "no datasheet figure found", 0, NULL},
    {"A10", "A10", ALL(125, 0, 31.2, 62.5, 0, 0, 0, 250), "NVIDIA A10 datasheet", 0.6,
     "NVIDIA A10 datasheet"},
    /* Turing and Volta have no BF16: FP16 only. */
    {"T4", "T4", {0, 65, 0, 8.1, 0, 0, 0, 0, 130}, "NVIDIA T4 datasheet (FP16 mixed precision)",
     0.32, "NVIDIA T4 datasheet"},
    {"V100", "V100", {0, 125, 0, 15.7, 0, 0, 7.8, 0, 0}, "NVIDIA V100 datasheet (SXM2; FP16 only)",
     0.9, "Cornell Virtual Workshop (FP32, FP64); NVIDIA V100 datasheet (900 GB/s)"},
    {"MI355", "MI355X", BF16(2500), "torchtitan", 8.0, "AMD Instinct MI355X product page"},
    {"MI325", "MI325X", ALL(1307.4, 2614.9, 163.4, 653.7, 163.4, 81.7, 163.4, 2614.9),
     "AMD specifications", 6.0, "AMD MI325X product page (via Vultr docs); ml-engineering table"},
    {"MI300X", "MI300X", ALL(1307.4, 2614.9, 163.4, 653.7, 163.4, 81.7, 163.4, 2614.9),
     "AMD specifications (torchtitan: 1300)", 5.3,
     "AMD ROCm docs, MI300 microarchitecture, peak-performance table"},
    {"MI250X", "MI250X (one GCD)", ALL(191.5, 0, 23.95, 0, 47.85, 23.95, 47.85, 191.5),
     "torchtitan", 1.6, "AMD MI250X specifications halved: a process sees one of two GCDs"},
    {"MI210", "MI210", ALL(181, 0, 22.6, 0, 45.3, 22.6, 45.3, 181), "AMD MI210 specifications (AnandTech)",
     1.6, "AMD MI210 specifications (AnandTech)"},
    {"910B1", "Ascend 910B1", BF16(373.9), "Huawei TorchTitan NPU plugin (Cube peak)", 0, NULL},
    {"910B2", "Ascend 910B2", BF16(353.9), "Huawei TorchTitan NPU plugin (Cube peak)", 0, NULL},
    {"910B3", "Ascend 910B3", BF16(294.9), "Huawei TorchTitan NPU plugin (Cube peak)", 0, NULL},
    {"910B4", "Ascend 910B4", BF16(245.8), "Huawei TorchTitan NPU plugin (Cube peak)", 0, NULL},
    {"910_93", "Ascend 910_93 (A3, one die)", BF16(353.9), "Huawei TorchTitan NPU plugin (Cube peak)",
     0, NULL},
    {"950PR", "Ascend 950PR", BF16(432), "Huawei TorchTitan NPU plugin", 0, NULL},
    {"950DT", "Ascend 950DT", BF16(486), "Huawei TorchTitan NPU plugin", 0, NULL},
    {NULL, NULL, {0}, NULL, 0, NULL},
};

/* Boards of one entry with other memory: the entry's key, a second
 * substring of the device name, and their bandwidth. */
static const struct {
    const char *key, *has;
    double tbs;
    const char *source;
} mem_variants[] = {
    {"A100", "80GB PCIe", 1.935, "NVIDIA A100 datasheet (80 GB PCIe, HBM2e)"},
    {"A100", "80GB", 2.039, "NVIDIA A100 datasheet (80 GB SXM, HBM2e)"},
    {"A800", "80GB PCIe", 1.935, "as the A100 80 GB PCIe"},
    {"A800", "80GB", 2.039, "as the A100 80 GB SXM"},
};

/* Case-insensitive substring search; names come as "NVIDIA H100 80GB HBM3",
 * "Ascend910B3" or whatever a user types after --gpu. */
static int contains(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return 1;
    return 0;
}

const vp_peak *vp_peak_lookup(const char *name)
{
    if (!name)
        return NULL;
    for (const vp_peak *p = peaks; p->key; p++)
        if (contains(name, p->key))
            return p;
    return NULL;
}

double vp_peak_find(const char *device_name, vp_dtype d, const vp_peak **row)
{
    *row = vp_peak_lookup(device_name);
    if (!*row)
        return -1;
    return (*row)->tflops[d] > 0 ? (*row)->tflops[d] : 0;
}

double vp_peak_tbs(const char *device_name, const vp_peak *row, const char **source)
{
    *source = NULL;
    if (!row)
        return 0;
    for (size_t i = 0; i < sizeof mem_variants / sizeof *mem_variants; i++)
        if (strcmp(row->key, mem_variants[i].key) == 0 && device_name &&
            contains(device_name, mem_variants[i].has)) {
            *source = mem_variants[i].source;
            return mem_variants[i].tbs;
        }
    *source = row->tbs > 0 ? row->tbs_source : NULL;
    return row->tbs;
}

const vp_peak *vp_peak_table(void)
{
    return peaks;
}

static const char *const dtype_names[VP_DTYPE_COUNT] = {
    "bf16", "fp16", "fp8", "fp32", "tf32", "fp32 matrix", "fp64", "fp64 matrix", "int8",
};

int vp_dtype_parse(const char *s, vp_dtype *out)
{
    for (int i = 0; i < 3; i++)
        if (strcasecmp(s, dtype_names[i]) == 0) {
            *out = (vp_dtype)i;
            return 0;
        }
    return -1;
}

const char *vp_dtype_name(vp_dtype d)
{
    return (unsigned)d < VP_DTYPE_COUNT ? dtype_names[d] : "?";
}
