# v1-v5 as the reference has them; tile.cu (v6) and sep.cu were not handed in, so
# the grader puts in the untouched skeletons
