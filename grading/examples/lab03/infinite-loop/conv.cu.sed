# v5's kernel waits for a flag the host never sets: the kernel never ends
/^__global__ void conv_v5_kernel(/ i\
__device__ volatile int v5_ready; /* TODO: set from the host before the launch */\

/^__global__ void conv_v5_kernel(/,/^}/ {
  /^{/ a\
    while (!v5_ready) {\
    }
}
