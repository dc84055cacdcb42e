/* main.c - lab 06's glue (owned by the kit; students edit matvec.cu).
 *
 * A and x come from the spec (spec.c). This allocates the device buffers
 * once, poisons y before every run, copies A and x in, launches, copies y
 * back; the common harness times the launch alone (kernel ms: A and x
 * already on the GPU, the L2 flushed) and the whole (total ms).
 * Variant 0 is cuBLAS (cublasDgemv), the baseline of every other variant,
 * and lives here: it is the kit's, not an exercise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>

#include "gpu.h"
#include "harness.h"
#include "matvec.h"

typedef struct {
    int pinned;
    int tile_w, tile_h;         /* v2, v3 */
    int threads_v1, threads_v4; /* threads per block */
    double *d_A, *d_x, *d_y;
    cublasHandle_t blas;
    int have_blas, registered;
} lab06;

/* The run options: --tile for v2/v3, --block for v1/v4 (threads per block). */
static void run_opts(const kit_ctx *ctx, lab06 *L)
{
    int bw, bh;
    kit_arg_wxh(&ctx->args, "--tile", &L->tile_w, &L->tile_h);
    if (!L->tile_w) {
        L->tile_w = MATVEC_TILE_W;
        L->tile_h = MATVEC_TILE_H;
    }
    kit_arg_wxh(&ctx->args, "--block", &bw, &bh);
    L->pinned = kit_arg_given(&ctx->args, "--pinned");
    L->threads_v1 = bw ? bw * bh : MATVEC_V1_THREADS;
    L->threads_v4 = bw ? bw * bh : MATVEC_V4_THREADS;
}

static int setup(kit_ctx *ctx)
{
    lab06 *L = kit_calloc(1, sizeof *L);
    ctx->user = L;
    const matvec_problem *q = ctx->prob.data;
    run_opts(ctx, L);
    if (L->tile_w > MATVEC_MAX_TILE_W) {
        kit_error("--tile %dx%d: a tile is at most %d columns wide (one thread per column)",
                  L->tile_w, L->tile_h, MATVEC_MAX_TILE_W);
        return KIT_EXIT_USAGE;
    }
    const size_t m = (size_t)q->m, n = (size_t)q->n, bytes_A = m * n * sizeof(double);
    int rc = kit_gpu_require_bytes(bytes_A + (m + n) * sizeof(double) + ((size_t)64 << 20));
    if (rc)
        return rc;
    if (L->pinned) { /* page-lock the spec's host buffers for fast copies */
        CUDA_CHECK(cudaHostRegister(q->h_A, bytes_A, cudaHostRegisterDefault));
        CUDA_CHECK(cudaHostRegister(q->h_x, n * sizeof(double), cudaHostRegisterDefault));
        L->registered = 1;
    }
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
    return 0;
}

static int supports(kit_ctx *ctx, int v, char *why, size_t len)
{
    lab06 o;
    const matvec_problem *q = ctx->prob.data;
    run_opts(ctx, &o);
    if ((v == 2 || v == 3) && (q->m + o.tile_h - 1) / o.tile_h > MATVEC_MAX_GRID_Y) {
        snprintf(why, len,
                 "%d rows in tiles %d high need more than %d row tiles; use a taller --tile",
                 q->m, o.tile_h, MATVEC_MAX_GRID_Y);
        return 0;
    }
    if (v == 4 && o.threads_v4 % 32 != 0) {
        snprintf(why, len, "--block gives %d threads; v4 needs a multiple of 32 (whole warps)",
                 o.threads_v4);
        return 0;
    }
    return 1;
}

/* Unwritten rows must not pass (v2 and v3 zero y themselves, inside their
 * timed launcher, before adding into it). */
static int prepare(kit_ctx *ctx, int v)
{
    lab06 *L = ctx->user;
    const matvec_problem *q = ctx->prob.data;
    KIT_UNUSED(v);
    CUDA_CHECK(cudaMemset(L->d_y, kit_poison_byte(ctx), (size_t)q->m * sizeof(double)));
    return KIT_OK;
}

static int upload(kit_ctx *ctx, int v)
{
    lab06 *L = ctx->user;
    const matvec_problem *q = ctx->prob.data;
    const size_t m = (size_t)q->m, n = (size_t)q->n;
    KIT_UNUSED(v);
    CUDA_CHECK(cudaMemcpy(L->d_A, q->h_A, m * n * sizeof(double), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(L->d_x, q->h_x, n * sizeof(double), cudaMemcpyHostToDevice));
    return KIT_OK;
}

/* v0: y = A x with cuBLAS. cuBLAS is column-major: the row-major m x n A is,
 * byte for byte, the column-major n x m matrix A^T with leading dimension n.
 * So y = A x = (A^T)^T x is the transposed product on that matrix. */
static int blas_gemv(lab06 *L, const matvec_problem *q)
{
    const double one = 1.0, zero = 0.0;
    cublasStatus_t s = cublasDgemv(L->blas, CUBLAS_OP_T, q->n, q->m, &one, L->d_A, q->n, L->d_x,
                                   1, &zero, L->d_y, 1);
    if (s != CUBLAS_STATUS_SUCCESS) {
        kit_error("cublasDgemv failed: %s", cublasGetStatusString(s));
        return KIT_RUNTIME_ERROR;
    }
    KIT_CHECK_LAUNCH();
    return KIT_OK;
}

static int launch(kit_ctx *ctx, int v)
{
    lab06 *L = ctx->user;
    const matvec_problem *q = ctx->prob.data;
    switch (v) {
    case 0: return blas_gemv(L, q);
    case 1: return matvec_v1(L->d_A, L->d_x, L->d_y, q->m, q->n, L->threads_v1);
    case 2: return matvec_v2(L->d_A, L->d_x, L->d_y, q->m, q->n, L->tile_w, L->tile_h);
    case 3: return matvec_v3(L->d_A, L->d_x, L->d_y, q->m, q->n, L->tile_w, L->tile_h);
    case 4: return matvec_v4(L->d_A, L->d_x, L->d_y, q->m, q->n, L->threads_v4);
    }
    return KIT_UNSUPPORTED;
}

static int download(kit_ctx *ctx, int v)
{
    lab06 *L = ctx->user;
    KIT_UNUSED(v);
    CUDA_CHECK(cudaMemcpy(ctx->out.data, L->d_y, kit_buf_bytes(&ctx->out), cudaMemcpyDeviceToHost));
    return KIT_OK;
}

static void config(kit_ctx *ctx, int v, char *buf, size_t len)
{
    lab06 *L = ctx->user;
    const matvec_problem *q = ctx->prob.data;
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
                 L->threads_v4 % 32 ? 0 : matvec_v4_warps_per_row(q->n, L->threads_v4),
                 L->pinned);
    }
}

static void teardown(kit_ctx *ctx)
{
    lab06 *L = ctx->user;
    const matvec_problem *q = ctx->prob.data;
    if (!L)
        return;
    if (L->have_blas)
        cublasDestroy(L->blas);
    if (L->registered) {
        cudaHostUnregister(q->h_A);
        cudaHostUnregister(q->h_x);
    }
    void *dev[] = {L->d_A, L->d_x, L->d_y};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
        if (dev[i])
            cudaFree(dev[i]);
    free(L);
    ctx->user = NULL;
}

static const kit_part_glue parts[] = {{.part = "",
                                       .setup = setup,
                                       .supports = supports,
                                       .prepare = prepare,
                                       .upload = upload,
                                       .launch = launch,
                                       .download = download,
                                       .config = config,
                                       .host_alloc = kit_pinned_host_alloc,
                                       .host_free = kit_pinned_host_free,
                                       .teardown = teardown}};
static const kit_glue glue = {1, parts, &kit_gpu_protocol};

int main(int argc, char **argv)
{
    return kit_main(&kit_lab_spec, &glue, argc, argv);
}
