# rgb v1 loads the window's bytes up to the row's last one but not that one: the blue channel
# of the right-most pixels is read as black
/^__global__ void conv_rgb_v1_kernel(/,/^}/ {
  s/gcol < width \* CONV_CHANNELS)/gcol < width * CONV_CHANNELS - 1)/
}
