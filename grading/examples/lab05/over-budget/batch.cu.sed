# batch.cu as in the solution
