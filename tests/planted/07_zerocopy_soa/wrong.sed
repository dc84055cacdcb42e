# A planted wrong solution for lab 07: v4 (the padded tile) writes the tile
# back without turning it, reading [threadIdx.y][threadIdx.x] where the
# transposed block needs [threadIdx.x][threadIdx.y]. Every matrix larger
# than 1x1 comes out wrong; the tests must see mismatches.
# (lab.mk wants every student file changed: each gets a first-line note.)
1i\
/* planted: tests/planted/07_zerocopy_soa/wrong.sed */
/^__global__ void transpose_smem_pad(/,/^}/ {
  s/= s_tile\[threadIdx.x\]\[threadIdx.y\];/= s_tile[threadIdx.y][threadIdx.x];/
}
