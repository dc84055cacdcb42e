# the reference solution as it is
