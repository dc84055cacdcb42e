# A planted solution that ignores the device memory budget: strip v3-v5 size
# every buffer for the whole picture instead of one strip with its halo. The
# harness's account refuses the allocation past --gpu-mem (exit 3).
/^static int strip_ring/,/^}/ s/const size_t buf = strip_buffer_doubles(j) \* sizeof(double);/const size_t buf = (size_t)j->width * j->height * sizeof(double);/
