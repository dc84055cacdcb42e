# the ring takes its buffers from the driver API (driver.inc), twice the whole picture each,
# and keeps them from call to call: nothing is freed at the end of a call
/^#include "strip.h"/r driver.inc
/^static int strip_ring(/,/^}/ {
  /const size_t buf = strip_buffer_doubles(j) \* sizeof(double);/d
  s/CUDA_CHECK(cudaMalloc((void \*\*)&d_pic\[b\], buf));/if (drv_buffers(j, b, \&d_pic[b], \&d_tmp[b]) != KIT_OK) return KIT_RUNTIME_ERROR;/
  /CUDA_CHECK(cudaMalloc((void \*\*)&d_tmp\[b\], buf));/d
  /CUDA_CHECK(cudaFree(d_pic\[b\]));/d
  /CUDA_CHECK(cudaFree(d_tmp\[b\]));/d
}
