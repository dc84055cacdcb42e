# v2's kernel lost its guard: threads past the right and bottom edges write outside the picture
/^__global__ void conv_v2_kernel(/,/^}/ {
  /if (x >= width || y >= height)/ {
    N
    d
  }
}
