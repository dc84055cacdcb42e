# A planted wrong solution for lab 04: rgb v1 and sep v2's row pass load the
# picture's last column (rgb: its last byte) as zero, rgb v6 its last row,
# off-by-ones in the guards of the tile loads.
/^__global__ void conv_rgb_v1_kernel(/,/^}/ {
  s/gcol < width \* CONV_CHANNELS)/gcol < width * CONV_CHANNELS - 1)/
}
/^__device__ __forceinline__ void conv_rgb_v6_body(/,/^}/ {
  s/gy < height \&\& gx >= 0/gy < height - 1 \&\& gx >= 0/g
}
/^__global__ void sep_v2_rows(/,/^}/ {
  s/gx >= 0 \&\& gx < width)/gx >= 0 \&\& gx < width - 1)/
}
