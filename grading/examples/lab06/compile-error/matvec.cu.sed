# v1's kernel sums into a variable it never declared
/^__global__ void matvec_v1_kernel(/,/^}/ s/    double sum = 0.0;/    double total = 0.0;/
