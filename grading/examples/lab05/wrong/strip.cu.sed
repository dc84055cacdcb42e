# strip.cu as in the solution: the bug is in batch.cu
