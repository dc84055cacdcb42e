# v1's threads stop one column short of the end of their row
/^__global__ void matvec_v1_kernel(/,/^}/ s/for (int j = 0; j < n; j++)/for (int j = 0; j < n - 1; j++)/
