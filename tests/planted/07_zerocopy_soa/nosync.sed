# A planted race for lab 07: v3 (the course guide's shared tile) loses its
# __syncthreads(), so a warp may read tile elements another warp has not
# written yet. compute-sanitizer racecheck must report it; the result may
# or may not come out wrong, depending on how the warps happen to run.
# (lab.mk wants every student file changed: each gets a first-line note.)
1i\
/* planted: tests/planted/07_zerocopy_soa/nosync.sed */
/^__global__ void transpose_smem(/,/^}/ {
  /^[[:space:]]*__syncthreads();$/d
}
