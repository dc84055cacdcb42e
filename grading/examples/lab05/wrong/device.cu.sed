# device v1 forgets the two transfers per clock: its peak is half the GPU's (the harness's
# table marks it, the checker's relative difference is -0.5); the copies as in the solution
/^int device_v1(/,/^}/ s/d->peak_gbps = 2.0 \* /d->peak_gbps = /
