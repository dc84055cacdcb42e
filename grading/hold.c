/* grading/hold.c - keep the CUDA driver's state of one GPU up while a grading runs.
 *
 * Without persistence mode, the driver brings a GPU up when the first program opens it and
 * takes it down again when the last one exits: every short graded run would then pay that
 * start-up (up to a second or more) again. The grader starts one hold per GPU slot, which opens
 * the device's primary context and keeps it as long as the process PID (the grader) lives.
 * It changes no setting of the card.
 *
 *   CUDA_VISIBLE_DEVICES=N build/hold PID
 *
 * Prints "held" on standard output once the context is up (or "not held: REASON"), then
 * checks five times a second whether PID is still there (SIGTERM ends it sooner). Exit
 * status: 0 once PID is gone; 1 when there is no device to hold; 2 bad usage.
 */
#include <cuda.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
    char *end = NULL;
    const long pid = argc == 2 ? strtol(argv[1], &end, 10) : 0;
    if (pid <= 0 || end == NULL || *end != '\0') {
        fprintf(stderr, "usage: hold PID (the process whose life the hold lasts)\n");
        return 2;
    }
    CUdevice dev;
    CUcontext ctx;
    const char *what = NULL;
    CUresult r = cuInit(0);
    if (r == CUDA_SUCCESS)
        r = cuDeviceGet(&dev, 0);
    if (r == CUDA_SUCCESS)
        r = cuDevicePrimaryCtxRetain(&ctx, dev);
    if (r != CUDA_SUCCESS) {
        if (cuGetErrorString(r, &what) != CUDA_SUCCESS || what == NULL)
            what = "unknown CUDA error";
        printf("not held: %s\n", what);
        return 1;
    }
    printf("held\n");
    fflush(stdout);
    const struct timespec tick = {0, 200 * 1000 * 1000};
    while (kill((pid_t)pid, 0) == 0)
        nanosleep(&tick, NULL);
    cuDevicePrimaryCtxRelease(dev);
    return 0;
}
