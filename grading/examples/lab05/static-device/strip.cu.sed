# the ring's tmp buffers come from a 64 MiB __device__ array (static.inc) instead of cudaMalloc
/^#include "strip.h"/r static.inc
/^static int strip_ring(/,/^}/ {
  s/CUDA_CHECK(cudaMalloc((void \*\*)&d_tmp\[b\], buf));/if (static_tmp(buf, b, nsets, \&d_tmp[b]) != KIT_OK) return KIT_RUNTIME_ERROR;/
  /CUDA_CHECK(cudaFree(d_tmp\[b\]));/d
}
