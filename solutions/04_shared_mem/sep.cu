/* sep.cu - lab 04, part sep: a separable filter in double on one plane, a
 * row pass then a column pass, each faster than the last.
 *
 * Versions (./lab04 --part sep --variant N):
 *   v1 (given) one thread per output, every input and tap read from global
 *      memory: 2R+1 loads of the picture per output and pass.
 *   v2 each block copies its tile and R halo cells on each side into shared
 *      memory first (the rows of a 32x32 block for the row pass, its columns
 *      for the column pass), so each input leaves global memory about once
 *      per block; the taps still come from global memory.
 *   v3 the taps in constant memory: a warp reads the same tap at the same
 *      time, which the constant cache broadcasts; no global tap loads.
 *   v4 every thread computes N (16) consecutive outputs from a window of 2N
 *      registers that slides N cells along the tile per N taps: 1/N shared
 *      loads per multiply-add instead of one, so the double-precision units,
 *      not shared memory, set the pace; results leave through shared memory
 *      so that stores are whole rows.
 *
 * Sections: kernels, launchers.
 */
#include "conv.h"

__constant__ double c_row[2 * CONV_SEP_MAX_RADIUS + 1];
__constant__ double c_col[2 * CONV_SEP_MAX_RADIUS + 1];

/* ------------------------------------------------------------------ kernels */

/* v1 (given): row pass from global memory */
__global__ void sep_v1_rows(const double *d_in, double *d_tmp, int width, int height,
                            const double *d_row, int radius)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    const double *row = d_in + (size_t)y * width;
    double s = 0.0;
    for (int k = -radius; k <= radius; k++) {
        const int xx = x + k;
        if (xx >= 0 && xx < width)
            s += d_row[k + radius] * row[xx];
    }
    d_tmp[(size_t)y * width + x] = s;
}

/* v1 (given): column pass from global memory */
__global__ void sep_v1_cols(const double *d_tmp, double *d_out, int width, int height,
                            const double *d_col, int radius)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    double s = 0.0;
    for (int k = -radius; k <= radius; k++) {
        const int yy = y + k;
        if (yy >= 0 && yy < height)
            s += d_col[k + radius] * d_tmp[(size_t)yy * width + x];
    }
    d_out[(size_t)y * width + x] = s;
}

/* v2: row pass from a shared tile (taps from global memory) */
__global__ void sep_v2_rows(const double *d_in, double *d_tmp, int width, int height,
                            const double *d_row, int radius)
{
    /* >>> SOLUTION */
    extern __shared__ double s_tile[]; /* blockDim.y rows of blockDim.x + 2R cells */
    const int span = blockDim.x + 2 * radius;
    double *s = s_tile + threadIdx.y * span;
    const int x0 = blockIdx.x * blockDim.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    /* each thread of the row copies every blockDim.x-th cell: a warp reads
     * consecutive addresses */
    for (int i = threadIdx.x; i < span; i += blockDim.x) {
        const int gx = x0 - radius + i;
        s[i] = (y < height && gx >= 0 && gx < width) ? d_in[(size_t)y * width + gx] : 0.0;
    }
    __syncthreads();
    const int x = x0 + threadIdx.x;
    if (x >= width || y >= height)
        return;
    double sum = 0.0;
    for (int k = 0; k <= 2 * radius; k++)
        sum += d_row[k] * s[threadIdx.x + k];
    d_tmp[(size_t)y * width + x] = sum;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: extern __shared__ double s_tile[]; row threadIdx.y of the block owns
    // cells [threadIdx.y * (blockDim.x + 2R) ...]: the picture's cells x0-R ..
    // x0+blockDim.x+R-1 of row y (zero outside), each thread copying every
    // blockDim.x-th one. __syncthreads(), then the sum of d_row[k] * cell
    // threadIdx.x + k, k = 0 .. 2R, into d_tmp.
    <<< STUDENT */
}

/* v2: column pass from a shared tile (taps from global memory) */
__global__ void sep_v2_cols(const double *d_tmp, double *d_out, int width, int height,
                            const double *d_col, int radius)
{
    /* >>> SOLUTION */
    extern __shared__ double s_tile[]; /* blockDim.y + 2R rows of blockDim.x cells */
    const int bw = blockDim.x;
    const int x = blockIdx.x * bw + threadIdx.x;
    const int y0 = blockIdx.y * blockDim.y;
    for (int r = threadIdx.y; r < blockDim.y + 2 * radius; r += blockDim.y) {
        const int gy = y0 - radius + r;
        s_tile[r * bw + threadIdx.x] =
            (x < width && gy >= 0 && gy < height) ? d_tmp[(size_t)gy * width + x] : 0.0;
    }
    __syncthreads();
    const int y = y0 + threadIdx.y;
    if (x >= width || y >= height)
        return;
    double sum = 0.0;
    for (int k = 0; k <= 2 * radius; k++)
        sum += d_col[k] * s_tile[(threadIdx.y + k) * bw + threadIdx.x];
    d_out[(size_t)y * width + x] = sum;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: the tile is blockDim.y + 2R rows of blockDim.x cells: rows y0-R ..
    // of the block's columns (zero outside), each row of threads copying every
    // blockDim.y-th row. __syncthreads(), then the sum down the column into d_out.
    <<< STUDENT */
}

/* v3: row pass, shared tile, taps in constant memory */
__global__ void sep_v3_rows(const double *d_in, double *d_tmp, int width, int height,
                            int radius)
{
    /* >>> SOLUTION */
    extern __shared__ double s_tile[];
    const int span = blockDim.x + 2 * radius;
    double *s = s_tile + threadIdx.y * span;
    const int x0 = blockIdx.x * blockDim.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const double *in = d_in + (size_t)y * width; /* computed once, used for every cell */
    const int inside = y < height;
    for (int i = threadIdx.x; i < span; i += blockDim.x) {
        const int gx = x0 - radius + i;
        s[i] = (inside && gx >= 0 && gx < width) ? in[gx] : 0.0;
    }
    __syncthreads();
    const int x = x0 + threadIdx.x;
    if (x >= width || !inside)
        return;
    const double *p = s + threadIdx.x;
    double sum = 0.0;
    for (int k = 0; k <= 2 * radius; k++)
        sum += c_row[k] * p[k];
    d_tmp[(size_t)y * width + x] = sum;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: v2's row pass with the taps from c_row.
    <<< STUDENT */
}

/* v3: column pass, shared tile, taps in constant memory */
__global__ void sep_v3_cols(const double *d_tmp, double *d_out, int width, int height,
                            int radius)
{
    /* >>> SOLUTION */
    extern __shared__ double s_tile[];
    const int bw = blockDim.x;
    const int x = blockIdx.x * bw + threadIdx.x;
    const int y0 = blockIdx.y * blockDim.y;
    const int inside = x < width;
    const double *in = d_tmp + x;
    for (int r = threadIdx.y; r < blockDim.y + 2 * radius; r += blockDim.y) {
        const int gy = y0 - radius + r;
        s_tile[r * bw + threadIdx.x] =
            (inside && gy >= 0 && gy < height) ? in[(size_t)gy * width] : 0.0;
    }
    __syncthreads();
    const int y = y0 + threadIdx.y;
    if (!inside || y >= height)
        return;
    const double *p = s_tile + threadIdx.y * bw + threadIdx.x;
    double sum = 0.0;
    for (int k = 0; k <= 2 * radius; k++, p += bw)
        sum += c_col[k] * *p;
    d_out[(size_t)y * width + x] = sum;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: v2's column pass with the taps from c_col.
    <<< STUDENT */
}

/* v4: N outputs a thread. The bodies take N as a constant (one kernel per
 * N below), so the register arrays stay in registers. */
#define V4_N_MAX 16 /* arrays are sized for the largest N; the unrolled loops use N of them */

/* Row pass. A tile row holds cells x0-R .. x0+bw*N+R-1 with one unused
 * cell after every N: cell i sits at i + i/N. A thread's N outputs start at
 * cell tx*N, i.e. at tx*(N+1): an odd number of doubles between threads, so
 * a warp's 64-bit loads hit every bank once. */
__device__ __forceinline__ void sep_v4_rows_body(const double *d_in, double *d_tmp, int width,
                                                 int height, int radius, const int N)
{
    /* >>> SOLUTION */
    extern __shared__ double s_tile[];
    const int bw = blockDim.x, tx = threadIdx.x;
    const int span = bw * N + 2 * radius;
    const int pitch = span + span / N + 1;
    double *s = s_tile + threadIdx.y * pitch;
    const int x0 = blockIdx.x * bw * N;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int inside = y < height;
    const double *in = d_in + (size_t)(inside ? y : 0) * width;
#pragma unroll 4
    for (int i = tx; i < span; i += bw) {
        const int gx = x0 - radius + i;
        s[i + i / N] = (inside && gx >= 0 && gx < width) ? in[gx] : 0.0;
    }
    __syncthreads();
    double acc[V4_N_MAX];
#pragma unroll
    for (int j = 0; j < N; j++)
        acc[j] = 0.0;
    double *sw = s + tx * (N + 1); /* cell tx*N */
    const int taps = 2 * radius + 1;
    /* a window of 2N cells slides along the row: v[0 .. N-1] are cells
     * tx*N+k0 .. (kept from the last run), v[N .. 2N-1] the next N, loaded
     * now; cells +k0 .. +k0+2N-2 serve taps k0 .. k0+N-1 of all N outputs */
    double v[2 * V4_N_MAX];
#pragma unroll
    for (int m = 0; m < N; m++)
        v[m] = sw[m];
    int k0 = 0;
    for (; k0 + N <= taps; k0 += N) {
        const double *sk = sw + k0 + k0 / N + N + 1; /* cell tx*N + k0 + N */
#pragma unroll
        for (int m = 0; m < N; m++)
            v[N + m] = sk[m];
#pragma unroll
        for (int t = 0; t < N; t++) {
            const double c = c_row[k0 + t];
#pragma unroll
            for (int j = 0; j < N; j++)
                acc[j] = fma(c, v[j + t], acc[j]);
        }
#pragma unroll
        for (int m = 0; m < N; m++)
            v[m] = v[N + m];
    }
    for (; k0 < taps; k0++) { /* the last taps, one at a time */
        const double c = c_row[k0];
#pragma unroll
        for (int j = 0; j < N; j++) {
            const int cell = tx * N + k0 + j;
            acc[j] = fma(c, s[cell + cell / N], acc[j]);
        }
    }
    /* through the tile to the picture: a warp then stores whole rows */
    __syncthreads();
#pragma unroll
    for (int j = 0; j < N; j++)
        sw[j] = acc[j];
    __syncthreads();
    if (inside) {
        double *out = d_tmp + (size_t)y * width;
        for (int i = tx; i < bw * N; i += bw)
            if (x0 + i < width)
                out[x0 + i] = s[i + i / N];
    }
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: load the tile row as the comment above says (cell i at i + i/N,
    // zero outside); __syncthreads(). Outputs tx*N .. tx*N+N-1 from a register
    // window v[2N]: v[0..N-1] = cells tx*N .. tx*N+N-1 first; then for each run
    // of N taps k0 .. k0+N-1 load cells tx*N+k0+N .. +2N-1 into v[N..2N-1],
    // acc[j] = fma(c_row[k0+t], v[j+t], acc[j]) for all t and j, and slide
    // (v[m] = v[N+m]); the taps left over one at a time. Then __syncthreads(), acc[] back into the
    // tile at cells tx*N+j, __syncthreads(), and the row out, one cell a thread
    // in turn (x < width).
    <<< STUDENT */
}

/* Column pass: a block is bw columns and N*blockDim.y rows of outputs; a
 * thread walks N consecutive rows of its column. */
__device__ __forceinline__ void sep_v4_cols_body(const double *d_tmp, double *d_out, int width,
                                                 int height, int radius, const int N)
{
    /* >>> SOLUTION */
    extern __shared__ double s_tile[];
    const int bw = blockDim.x, bh = blockDim.y;
    const int rows = bh * N + 2 * radius;
    const int x = blockIdx.x * bw + threadIdx.x;
    const int y0 = blockIdx.y * bh * N;
    const int inside = x < width;
    const double *in = d_tmp + (inside ? x : 0);
#pragma unroll 4
    for (int r = threadIdx.y; r < rows; r += bh) {
        const int gy = y0 - radius + r;
        s_tile[r * bw + threadIdx.x] =
            (inside && gy >= 0 && gy < height) ? in[(size_t)gy * width] : 0.0;
    }
    __syncthreads();
    if (!inside)
        return;
    double acc[V4_N_MAX];
#pragma unroll
    for (int j = 0; j < N; j++)
        acc[j] = 0.0;
    const double *sc = s_tile + threadIdx.y * N * bw + threadIdx.x;
    const int taps = 2 * radius + 1;
    double v[2 * V4_N_MAX]; /* the sliding window of the row pass, down the column */
#pragma unroll
    for (int m = 0; m < N; m++)
        v[m] = sc[m * bw];
    int k0 = 0;
    for (; k0 + N <= taps; k0 += N) {
#pragma unroll
        for (int m = 0; m < N; m++)
            v[N + m] = sc[(k0 + N + m) * bw];
#pragma unroll
        for (int t = 0; t < N; t++) {
            const double c = c_col[k0 + t];
#pragma unroll
            for (int j = 0; j < N; j++)
                acc[j] = fma(c, v[j + t], acc[j]);
        }
#pragma unroll
        for (int m = 0; m < N; m++)
            v[m] = v[N + m];
    }
    for (; k0 < taps; k0++) {
        const double c = c_col[k0];
#pragma unroll
        for (int j = 0; j < N; j++)
            acc[j] = fma(c, sc[(k0 + j) * bw], acc[j]);
    }
    const int ybase = y0 + threadIdx.y * N;
#pragma unroll
    for (int j = 0; j < N; j++)
        if (ybase + j < height)
            d_out[(size_t)(ybase + j) * width + x] = acc[j];
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: the tile is blockDim.y*N + 2R rows of blockDim.x cells (rows y0-R ..
    // of the block's columns, zero outside); __syncthreads(). Thread (tx, ty)
    // computes rows ty*N .. ty*N+N-1 of column tx, with the sliding register
    // window of the row pass (here down the column); a warp's stores are then
    // whole rows.
    <<< STUDENT */
}

#define SEP_V4_KERNELS(N)                                                                     \
    __global__ void sep_v4_rows_n##N(const double *d_in, double *d_tmp, int width, int height, \
                                     int radius)                                              \
    {                                                                                         \
        sep_v4_rows_body(d_in, d_tmp, width, height, radius, N);                              \
    }                                                                                         \
    __global__ void sep_v4_cols_n##N(const double *d_tmp, double *d_out, int width,           \
                                     int height, int radius)                                  \
    {                                                                                         \
        sep_v4_cols_body(d_tmp, d_out, width, height, radius, N);                             \
    }
SEP_V4_KERNELS(4)
SEP_V4_KERNELS(8)
SEP_V4_KERNELS(16)

/* ---------------------------------------------------------------- launchers */

static int check_args(const double *d_in, const double *d_tmp, const double *d_out, int width,
                      int height, int radius, int block_w, int block_h)
{
    KIT_REQUIRE(d_in != NULL && d_tmp != NULL && d_out != NULL);
    KIT_REQUIRE(d_in != d_tmp && d_in != d_out && d_tmp != d_out);
    KIT_REQUIRE(width > 0 && height > 0);
    KIT_REQUIRE(radius >= 1 && radius <= CONV_SEP_MAX_RADIUS);
    KIT_REQUIRE(block_w > 0 && block_h > 0 && block_w * block_h <= 1024);
    return KIT_OK;
}

/* Kernels asking for more than 48 KiB of dynamic shared memory must say so. */
KIT_MAYBE_UNUSED static int allow_smem(const void *kernel, size_t bytes)
{
    if (bytes > 48 * 1024)
        CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        (int)bytes));
    return KIT_OK;
}

int conv_sep_upload_taps(const double *h_row, const double *h_col, int radius)
{
    KIT_REQUIRE(h_row != NULL && h_col != NULL);
    KIT_REQUIRE(radius >= 1 && radius <= CONV_SEP_MAX_RADIUS);
    const size_t bytes = (size_t)(2 * radius + 1) * sizeof(double);
    CUDA_CHECK(cudaMemcpyToSymbol(c_row, h_row, bytes));
    CUDA_CHECK(cudaMemcpyToSymbol(c_col, h_col, bytes));
    return KIT_OK;
}

int conv_sep_v1(const double *d_in, double *d_tmp, double *d_out, int width, int height,
                const double *d_row, const double *d_col, int radius, int block_w,
                int block_h)
{
    int rc = check_args(d_in, d_tmp, d_out, width, height, radius, block_w, block_h);
    if (rc != KIT_OK)
        return rc;
    KIT_REQUIRE(d_row != NULL && d_col != NULL);
    dim3 block(block_w, block_h);
    dim3 grid(kit_blocks_for(width, block_w), kit_blocks_for(height, block_h));
    sep_v1_rows<<<grid, block>>>(d_in, d_tmp, width, height, d_row, radius);
    KIT_CHECK_LAUNCH();
    sep_v1_cols<<<grid, block>>>(d_tmp, d_out, width, height, d_col, radius);
    KIT_CHECK_LAUNCH();
    return KIT_OK;
}

int conv_sep_v2(const double *d_in, double *d_tmp, double *d_out, int width, int height,
                const double *d_row, const double *d_col, int radius, int block_w,
                int block_h)
{
    int rc = check_args(d_in, d_tmp, d_out, width, height, radius, block_w, block_h);
    if (rc != KIT_OK)
        return rc;
    KIT_REQUIRE(d_row != NULL && d_col != NULL);
    /* >>> SOLUTION */
    const size_t smem = conv_sep_v2_smem(radius, block_w, block_h);
    if (allow_smem((const void *)sep_v2_rows, smem) != KIT_OK ||
        allow_smem((const void *)sep_v2_cols, smem) != KIT_OK)
        return KIT_RUNTIME_ERROR;
    dim3 block(block_w, block_h);
    dim3 grid(kit_blocks_for(width, block_w), kit_blocks_for(height, block_h));
    sep_v2_rows<<<grid, block, smem>>>(d_in, d_tmp, width, height, d_row, radius);
    KIT_CHECK_LAUNCH();
    sep_v2_cols<<<grid, block, smem>>>(d_tmp, d_out, width, height, d_col, radius);
    KIT_CHECK_LAUNCH();
    return KIT_OK;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: as v1, with the dynamic shared memory of conv_sep_v2_smem() as
    // the third launch parameter of both kernels (allow_smem() first).
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
}

int conv_sep_v3(const double *d_in, double *d_tmp, double *d_out, int width, int height,
                int radius, int block_w, int block_h)
{
    int rc = check_args(d_in, d_tmp, d_out, width, height, radius, block_w, block_h);
    if (rc != KIT_OK)
        return rc;
    /* >>> SOLUTION */
    const size_t smem = conv_sep_v2_smem(radius, block_w, block_h);
    if (allow_smem((const void *)sep_v3_rows, smem) != KIT_OK ||
        allow_smem((const void *)sep_v3_cols, smem) != KIT_OK)
        return KIT_RUNTIME_ERROR;
    dim3 block(block_w, block_h);
    dim3 grid(kit_blocks_for(width, block_w), kit_blocks_for(height, block_h));
    sep_v3_rows<<<grid, block, smem>>>(d_in, d_tmp, width, height, radius);
    KIT_CHECK_LAUNCH();
    sep_v3_cols<<<grid, block, smem>>>(d_tmp, d_out, width, height, radius);
    KIT_CHECK_LAUNCH();
    return KIT_OK;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: as v2, with the v3 kernels.
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
}

int conv_sep_v4(const double *d_in, double *d_tmp, double *d_out, int width, int height,
                int radius, int block_w, int block_h, int per_thread)
{
    int rc = check_args(d_in, d_tmp, d_out, width, height, radius, block_w, block_h);
    if (rc != KIT_OK)
        return rc;
    KIT_REQUIRE(per_thread == 4 || per_thread == 8 || per_thread == 16);
    KIT_REQUIRE(block_w * block_h <= CONV_SEP_V4_MAX_THREADS(per_thread));
    /* >>> SOLUTION */
    typedef void (*pass_fn)(const double *, double *, int, int, int);
    const pass_fn rows = per_thread == 4 ? sep_v4_rows_n4 : per_thread == 8 ? sep_v4_rows_n8
                                                                           : sep_v4_rows_n16;
    const pass_fn cols = per_thread == 4 ? sep_v4_cols_n4 : per_thread == 8 ? sep_v4_cols_n8
                                                                           : sep_v4_cols_n16;
    const size_t smem_r = conv_sep_v4_row_smem(radius, block_w, block_h, per_thread);
    const size_t smem_c = conv_sep_v4_col_smem(radius, block_w, block_h, per_thread);
    if (allow_smem((const void *)rows, smem_r) != KIT_OK ||
        allow_smem((const void *)cols, smem_c) != KIT_OK)
        return KIT_RUNTIME_ERROR;
    dim3 block(block_w, block_h);
    dim3 grid_r(kit_blocks_for(width, block_w * per_thread), kit_blocks_for(height, block_h));
    dim3 grid_c(kit_blocks_for(width, block_w), kit_blocks_for(height, block_h * per_thread));
    rows<<<grid_r, block, smem_r>>>(d_in, d_tmp, width, height, radius);
    KIT_CHECK_LAUNCH();
    cols<<<grid_c, block, smem_c>>>(d_tmp, d_out, width, height, radius);
    KIT_CHECK_LAUNCH();
    return KIT_OK;
    /* <<< SOLUTION */
    /* >>> STUDENT
    // TODO: pick the kernels made for per_thread (sep_v4_rows_nN, sep_v4_cols_nN);
    // the row pass's blocks cover block_w*per_thread columns and block_h rows,
    // the column pass's block_w columns and block_h*per_thread rows; dynamic
    // shared memory conv_sep_v4_row_smem() and conv_sep_v4_col_smem().
    return KIT_NOT_IMPLEMENTED;
    <<< STUDENT */
}
