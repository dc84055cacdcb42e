# A planted wrong solution for lab 04: rgb v1 and sep v2's row pass load
# the picture's last column (rgb: its last byte) as zero, an off-by-one in
# the guard of the tile load.
/^__global__ void conv_rgb_v1_kernel(/,/^}/ {
  s/gcol < width \* CONV_CHANNELS)/gcol < width * CONV_CHANNELS - 1)/
}
/^__global__ void sep_v2_rows(/,/^}/ {
  s/gx >= 0 \&\& gx < width)/gx >= 0 \&\& gx < width - 1)/
}
