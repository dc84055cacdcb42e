# v3's kernel waits for a flag the host never sets: the kernel never ends
/^__global__ void conv_v3_kernel(/ i\
__device__ volatile int v3_ready; /* TODO: set from the host before the launch */\

/^__global__ void conv_v3_kernel(/,/^}/ {
  /^{/ a\
    while (!v3_ready) {\
    }
}
