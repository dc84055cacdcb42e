# A planted race for lab 04: rgb v1, rgb v6 and sep v2's column pass start
# reading their shared tile without waiting for the other warps to finish
# loading it (the __syncthreads() after the load is gone). racecheck reports
# the hazards; on a real GPU the results usually come out wrong too.
/^__global__ void conv_rgb_v1_kernel(/,/^}/ {
  /__syncthreads();/d
}
/^__device__ __forceinline__ void conv_rgb_v6_body(/,/^}/ {
  /__syncthreads();/d
}
/^__global__ void sep_v2_cols(/,/^}/ {
  /__syncthreads();/d
}
