# sep v2's row pass treats the plane's last column as outside it
/^__global__ void sep_v2_rows(/,/^}/ {
  s/gx >= 0 \&\& gx < width)/gx >= 0 \&\& gx < width - 1)/
}
