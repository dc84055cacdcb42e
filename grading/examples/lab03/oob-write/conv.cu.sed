# v1's kernel lost its guard: threads past the right and bottom edges write outside the picture
/^__global__ void conv_v1_kernel(/,/^}/ {
  /if (x >= width || y >= height)/ {
    N
    d
  }
}
