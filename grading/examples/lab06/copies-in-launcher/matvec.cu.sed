# v4 is right, but its launcher first copies x into a buffer of its own (a device-to-device
# copy inside the timed launcher, whose time must be its kernels alone)
/^#include "matvec.h"/r copy.inc
/^int matvec_v4(/,/^}/ s/matvec_v4_kernel<<<kit_blocks_for(m, rows_per_block), threads>>>(d_A, d_x, d_y, m, n,/matvec_v4_kernel<<<kit_blocks_for(m, rows_per_block), threads>>>(d_A, own_copy(d_x, n), d_y, m, n,/
