# v3 copies each group back from the buffer it sent (d_in), not from the filtered one
/^int batch_v3(/,/^}/ s/CUDA_CHECK(cudaMemcpy(j->h_out + first \* pic, d_out, n \* pic/CUDA_CHECK(cudaMemcpy(j->h_out + first * pic, d_in, n * pic/
