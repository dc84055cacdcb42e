# the reference solution as it is: every variant right and as fast as the reference
