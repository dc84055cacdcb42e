/* main.c - lab 06 harness (owned by the kit; students edit matvec.cu).
 *
 * Makes a seeded random A (m x n, row-major) and x with entries in [-1, 1),
 * the CPU reference y (compensated sums) and the tolerance, allocates the
 * device buffers once, and runs each variant as copy A and x in -> kernel
 * -> copy y out (total time), then the kernel once more on the data already
 * on the device (kernel time), both timed with CUDA events.
 * Variant 0 is cuBLAS (cublasDgemv), the baseline of every other variant,
 * and lives here: it is the kit's, not an exercise.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>

#include "gpu.h"
#include "harness.h"
#include "matvec.h"
#include "ref.h"

typedef struct {
    int m, n, pinned;
    int tile_w, tile_h;         /* v2, v3 */
    int threads_v1, threads_v4; /* threads per block */
    double atol;                /* from the summation error bound, see tolerance() */
    double *h_A, *h_x, *h_y, *h_ref;
    double *d_A, *d_x, *d_y;
    cublasHandle_t blas;
    int have_blas;
    kit_gpu_timer tk, tt;
    int timers;
} lab06;

static const kit_variant variants[] = {
    {"cublas", "cublasDgemv, the transposed call on the column-major view (baseline)"},
    {"naive", "one thread per row: a warp's loads are n*8 bytes apart (uncoalesced)"},
    {"tiled-atomic", "the seed's 2D tiles, x slice in shared memory, atomicAdd on double"},
    {"tiled-cas", "v2 with the double add built from atomicCAS (GPUs before sm_60)"},
    {"warp-rows", "whole warps per row, 16-byte loads, shuffle sums, no atomics"},
};

/* u = 2^-53: the unit roundoff of double */
#define U64 1.1102230246251565e-16

/* The tolerance (README, "How results are checked"). Any order of the n
 * additions of one row - the reference's, cuBLAS's, a tree of shuffles,
 * atomics in whatever order the blocks arrive - errs by at most
 * gamma(n) * sum_j |a_ij x_j|, gamma(k) = k u / (1 - k u); the reference
 * itself is within u |y_i| (<= u * the same sum) of the exact value. So every
 * correct variant is within gamma(n + 2) * S of the reference, S being the
 * largest sum_j |a_ij x_j| over the rows, computed here. */
static double tolerance(const lab06 *L)
{
    double S = 0.0;
#pragma omp parallel for schedule(static) reduction(max : S)
    for (int i = 0; i < L->m; i++) {
        const double *a = L->h_A + (size_t)i * L->n;
        double s = 0.0;
        for (int j = 0; j < L->n; j++)
            s += fabs(a[j] * L->h_x[j]);
        if (s > S)
            S = s;
    }
    const double k = (double)L->n + 2.0;
    /* the sum of absolute values above is itself rounded: 1% margin */
    return 1.01 * (k * U64 / (1.0 - k * U64)) * S;
}

static int setup(kit_ctx *ctx)
{
    lab06 *L = kit_calloc(1, sizeof *L);
    ctx->user = L;
    L->m = ctx->opt.rows;
    L->n = ctx->opt.cols;
    L->pinned = ctx->opt.pinned;
    L->tile_w = ctx->opt.tile_w ? ctx->opt.tile_w : MATVEC_TILE_W;
    L->tile_h = ctx->opt.tile_h ? ctx->opt.tile_h : MATVEC_TILE_H;
    L->threads_v1 = ctx->opt.block_w ? ctx->opt.block_w * ctx->opt.block_h : MATVEC_V1_THREADS;
    L->threads_v4 = ctx->opt.block_w ? ctx->opt.block_w * ctx->opt.block_h : MATVEC_V4_THREADS;
    if (L->tile_w > MATVEC_MAX_TILE_W) {
        kit_error("--tile %dx%d: a tile is at most %d columns wide (one thread per column)",
                  L->tile_w, L->tile_h, MATVEC_MAX_TILE_W);
        return KIT_EXIT_USAGE;
    }
    int rc = kit_gpu_init(ctx->opt.device);
    if (rc)
        return rc;
    /* device memory first: a matrix that cannot fit is refused before the
     * host allocates and fills it */
    const size_t m = (size_t)L->m, n = (size_t)L->n;
    const size_t bytes_A = m * n * sizeof(double);
    rc = kit_gpu_require_bytes(bytes_A + (m + n) * sizeof(double) + ((size_t)64 << 20));
    if (rc)
        return rc;

    /* host side: inputs, reference, output */
    L->h_A = kit_host_alloc(bytes_A, L->pinned);
    L->h_x = kit_host_alloc(n * sizeof(double), L->pinned);
    L->h_y = kit_host_alloc(m * sizeof(double), L->pinned);
    L->h_ref = kit_calloc(m, sizeof(double));
    kit_rng g;
    kit_rng_seed(&g, ctx->opt.seed);
    const unsigned long long s_A = kit_rng_next(&g), s_x = kit_rng_next(&g);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < L->m; i++)
        kit_fill_uniform(L->h_A + (size_t)i * n, n, s_A, (size_t)i * n);
    kit_fill_uniform(L->h_x, n, s_x, 0);
    if (kit_want_reference(ctx)) {
#pragma omp parallel for schedule(dynamic, 64)
        for (int i = 0; i < L->m; i++)
            kit_ref_matvec_f64(L->h_A + (size_t)i * n, L->h_x, L->h_ref + i, 1, L->n);
    }
    L->atol = tolerance(L);

    /* device side */
    CUDA_CHECK(cudaMalloc((void **)&L->d_A, bytes_A));
    CUDA_CHECK(cudaMalloc((void **)&L->d_x, n * sizeof(double)));
    CUDA_CHECK(cudaMalloc((void **)&L->d_y, m * sizeof(double)));
    if (cublasCreate(&L->blas) != CUBLAS_STATUS_SUCCESS) {
        kit_error("cublasCreate failed (is libcublas installed with the CUDA Toolkit?)");
        return KIT_EXIT_RUNTIME;
    }
    L->have_blas = 1;
    if (cublasSetStream(L->blas, 0) != CUBLAS_STATUS_SUCCESS) {
        kit_error("cublasSetStream failed");
        return KIT_EXIT_RUNTIME;
    }
    if (kit_gpu_timer_create(&L->tk) != KIT_OK || kit_gpu_timer_create(&L->tt) != KIT_OK)
        return KIT_EXIT_RUNTIME;
    L->timers = 1;

    ctx->ref = (kit_buf){KIT_F64, L->m, 1, 1, 0, L->h_ref};
    ctx->out = (kit_buf){KIT_F64, L->m, 1, 1, 0, L->h_y};
    ctx->width = L->n;
    ctx->height = L->m;
    snprintf(ctx->param, sizeof ctx->param, "m=%d n=%d", L->m, L->n);
    return 0;
}

static void select_variant(kit_ctx *ctx, int v)
{
    lab06 *L = ctx->user;
    KIT_UNUSED(v);
    ctx->atol = L->atol;
    ctx->rtol = 0.0;
}

static int supports(kit_ctx *ctx, int v, char *why, size_t len)
{
    lab06 *L = ctx->user;
    if ((v == 2 || v == 3) && (L->m + L->tile_h - 1) / L->tile_h > MATVEC_MAX_GRID_Y) {
        snprintf(why, len,
                 "%d rows in tiles %d high need more than %d row tiles; use a taller --tile",
                 L->m, L->tile_h, MATVEC_MAX_GRID_Y);
        return 0;
    }
    if (v == 4 && L->threads_v4 % 32 != 0) {
        snprintf(why, len, "--block gives %d threads; v4 needs a multiple of 32 (whole warps)",
                 L->threads_v4);
        return 0;
    }
    return 1;
}

/* v0: y = A x with cuBLAS. cuBLAS is column-major: the row-major m x n A is,
 * byte for byte, the column-major n x m matrix A^T with leading dimension n.
 * So y = A x = (A^T)^T x is the transposed product on that matrix. */
static int blas_gemv(lab06 *L)
{
    const double one = 1.0, zero = 0.0;
    cublasStatus_t s = cublasDgemv(L->blas, CUBLAS_OP_T, L->n, L->m, &one, L->d_A, L->n, L->d_x,
                                   1, &zero, L->d_y, 1);
    if (s != CUBLAS_STATUS_SUCCESS) {
        kit_error("cublasDgemv failed: %s", cublasGetStatusString(s));
        return KIT_RUNTIME_ERROR;
    }
    KIT_CHECK_LAUNCH();
    return KIT_OK;
}

static int launch(lab06 *L, int v)
{
    switch (v) {
    case 0: return blas_gemv(L);
    case 1: return matvec_v1(L->d_A, L->d_x, L->d_y, L->m, L->n, L->threads_v1);
    case 2: return matvec_v2(L->d_A, L->d_x, L->d_y, L->m, L->n, L->tile_w, L->tile_h);
    case 3: return matvec_v3(L->d_A, L->d_x, L->d_y, L->m, L->n, L->tile_w, L->tile_h);
    case 4: return matvec_v4(L->d_A, L->d_x, L->d_y, L->m, L->n, L->threads_v4);
    }
    return KIT_UNSUPPORTED;
}

/* Total time: copy A and x in, the launch, copy y out, on a y poisoned with
 * NaN; that y is what gets checked. Kernel time: the same launch again
 * right after, on the data already on the device, so it does not pay for
 * writing back what the input copy left dirty in L2. */
static int run(kit_ctx *ctx, int v, double *kernel_ms, double *total_ms)
{
    lab06 *L = ctx->user;
    const size_t m = (size_t)L->m, n = (size_t)L->n;
    /* unwritten rows must not pass (v2 and v3 zero y themselves, inside
     * their timed launcher, before adding into it) */
    CUDA_CHECK(cudaMemset(L->d_y, kit_poison_byte(ctx), m * sizeof(double)));
    if (kit_gpu_timer_start(&L->tt) != KIT_OK)
        return KIT_RUNTIME_ERROR;
    CUDA_CHECK(cudaMemcpy(L->d_A, L->h_A, m * n * sizeof(double), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(L->d_x, L->h_x, n * sizeof(double), cudaMemcpyHostToDevice));
    int r = launch(L, v);
    if (r != KIT_OK)
        return r;
    CUDA_CHECK(cudaMemcpy(L->h_y, L->d_y, m * sizeof(double), cudaMemcpyDeviceToHost));
    if (kit_gpu_timer_stop(&L->tt, total_ms) != KIT_OK)
        return KIT_RUNTIME_ERROR;
    /* a kernel that faulted shows here at the latest */
    CUDA_CHECK(cudaGetLastError());
    if (kit_gpu_timer_start(&L->tk) != KIT_OK)
        return KIT_RUNTIME_ERROR;
    r = launch(L, v);
    if (r != KIT_OK)
        return r;
    if (kit_gpu_timer_stop(&L->tk, kernel_ms) != KIT_OK)
        return KIT_RUNTIME_ERROR;
    CUDA_CHECK(cudaGetLastError());
    return KIT_OK;
}

/* A read once, x read once, y written once. */
static double bytes(kit_ctx *ctx, int v)
{
    lab06 *L = ctx->user;
    KIT_UNUSED(v);
    return 8.0 * ((double)L->m * (double)L->n + (double)L->n + (double)L->m);
}

static void config(kit_ctx *ctx, int v, char *buf, size_t len)
{
    lab06 *L = ctx->user;
    switch (v) {
    case 0: snprintf(buf, len, "op=T lda=n pinned=%d", L->pinned); break;
    case 1: snprintf(buf, len, "block=%d pinned=%d", L->threads_v1, L->pinned); break;
    case 2:
    case 3:
        snprintf(buf, len, "tile=%dx%d block=%d pinned=%d", L->tile_w, L->tile_h,
                 32 * ((L->tile_w + 31) / 32), L->pinned);
        break;
    default:
        snprintf(buf, len, "block=%d warps/row=%d pinned=%d", L->threads_v4,
                 L->threads_v4 % 32 ? 0 : matvec_v4_warps_per_row(L->n, L->threads_v4),
                 L->pinned);
    }
}

static void teardown(kit_ctx *ctx)
{
    lab06 *L = ctx->user;
    if (!L)
        return;
    if (L->have_blas)
        cublasDestroy(L->blas);
    if (L->timers) {
        kit_gpu_timer_destroy(&L->tk);
        kit_gpu_timer_destroy(&L->tt);
    }
    void *dev[] = {L->d_A, L->d_x, L->d_y};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
        if (dev[i])
            cudaFree(dev[i]);
    kit_host_free(L->h_A, L->pinned);
    kit_host_free(L->h_x, L->pinned);
    kit_host_free(L->h_y, L->pinned);
    free(L->h_ref);
    free(L);
}

static const kit_lab lab = {
    .lab = "06",
    .title = "matrix-vector product y = A x in double on the GPU: cuBLAS, naive, tiled, warp rows",
    .gpu = 1,
    .options = KIT_OPT_MATRIX | KIT_OPT_TILE | KIT_OPT_BLOCK | KIT_OPT_PINNED | KIT_OPT_DEVICE,
    .default_rows = 10000,
    .default_cols = 10000,
    .atol = 0.0, /* set per input by select_variant from the error bound */
    .rtol = 0.0,
    .nvariants = 5,
    .variants = variants,
    .first_variant = 0,
    .help_extra = "A is rows x cols, row-major, entries uniform in [-1, 1). y passes when within\n"
                  "atol = gamma(n+2) * max_i sum_j |a_ij x_j| of the CPU reference, where\n"
                  "gamma(k) = k u / (1 - k u), u = 2^-53: the worst case of any summation order.\n"
                  "--tile WxH: v2/v3 tiles of W columns (at most 1024) by H rows (default 512x64,\n"
                  "the seed's BLOCK_WIDTH x BLOCK_HEIGHT). --block Tx1: T threads per block for\n"
                  "v1 (default 512) and v4 (default 256, whole warps). total ms: copy A and x in,\n"
                  "kernel, copy y out; kernel ms: the same launch again on the data already on\n"
                  "the GPU (v2/v3: with their zeroing of y).",
    .setup = setup,
    .select = select_variant,
    .supports = supports,
    .run = run,
    .bytes = bytes,
    .config = config,
    .teardown = teardown,
    .gpu_lines = kit_gpu_lines,
};

int main(int argc, char **argv)
{
    return kit_main(&lab, argc, argv);
}
