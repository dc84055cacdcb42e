# v1 repeats the edge pixels instead of reading zeros outside the picture
/^__global__ void conv_v1_kernel(/,/^}/ {
  s/const int yy = y + i - radius;/const int yy = min(max(y + i - radius, 0), height - 1);/
  s/const int xx = x + j - radius;/const int xx = min(max(x + j - radius, 0), width - 1);/
}
