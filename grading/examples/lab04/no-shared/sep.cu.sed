# sep v2 launches v1's kernels, which read every tap from global memory: the same sums in the
# same order, so every output is right, and no shared memory is used. The kernel records of
# its timed runs show no shared memory where its step asks for it (the rubric's mechanism
# line): sep:2 keeps its correctness points and loses its speed points.
/^int conv_sep_v2(/,/^}/ {
  s/sep_v2_rows<<<grid, block, smem>>>/sep_v1_rows<<<grid, block>>>/
  s/sep_v2_cols<<<grid, block, smem>>>/sep_v1_cols<<<grid, block>>>/
}
