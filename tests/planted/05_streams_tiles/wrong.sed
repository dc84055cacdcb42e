# A planted wrong solution for lab 05 (one bug in each student file):
# strip.cu: v3-v5 copy each strip's result back to the row of its first halo
#           row (a0) instead of its first own row (y0): wrong from the second
#           strip on, right when the picture is a single strip;
# batch.cu: v3 copies back the group it sent (d_in) instead of the filtered one.
s/cudaMemcpyAsync(j->h_out + (size_t)sp.y0 \* W, d_pic\[b\]/cudaMemcpyAsync(j->h_out + (size_t)sp.a0 * W, d_pic[b]/
s/CUDA_CHECK(cudaMemcpy(j->h_out + first \* pic, d_out, n \* pic/CUDA_CHECK(cudaMemcpy(j->h_out + first * pic, d_in, n * pic/
