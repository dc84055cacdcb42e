# v3 (the shared tile) forgets to swap the block indices when it writes the transposed tile:
# right for a matrix of a single tile, wrong for anything larger (and never out of bounds)
/^__global__ void transpose_smem(/,/^}/ {
  s/const int ox = blockIdx.y \* t + threadIdx.x;/const int ox = blockIdx.x * t + threadIdx.x;/
  s/const int oy = blockIdx.x \* t + threadIdx.y;/const int oy = blockIdx.y * t + threadIdx.y;/
}
