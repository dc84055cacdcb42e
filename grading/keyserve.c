/* grading/keyserve.c - the grader's side of a timed run's key channel (build/keyserve).
 *
 *   keyserve REQ_FD KEY_FD LOG_FD MAX GATE_FD [BATON_IN BATON_OUT READY] [CPU_FD]
 *
 * Reads the harness's requests "rep V K" from REQ_FD (DESIGN.md, "The grading mode of the
 * harness"; V a variant number, or PART:NUMBER where the grader set KIT_CTL_PARTS=1); for each, draws a fresh key (64 random bits, never 0) at that moment, writes
 * "key HEX" to KEY_FD, and appends "rep V K HEX T_ASKED T_ANSWERED" to LOG_FD (times in
 * CLOCK_MONOTONIC ns, the clock of the harness's launch windows). The notes "go V K" and
 * "done V K" the harness writes right before and after the repetition runs are logged as
 * "go V K T" and "done V K T" (no answer): the grader times a CPU variant by them, on its own
 * clock. The grader reads the log after the run.
 *
 * A process of its own, so that answering takes microseconds whatever the grader is busy with
 * (a thread of the grader could wait milliseconds, and the run would be timed with that wait);
 * at a real-time priority where the grader may give it one.
 * Anything but a well-formed line, a request or note out of turn (a repeated one, a go before
 * its key, a done before its go), or more than MAX keys: a "broken REASON" line, and the
 * channel is closed (the harness then stops with an error). Ends at the end of REQ_FD.
 *
 * The gate: each case of the run begins with "gate 0 0", written once its GPU context is made
 * and before it calls the student's code. The first is answered "open" once the grader writes
 * a byte to GATE_FD (the grader started this run early, while another was timed, and lets it
 * go on once that one is over; the end of GATE_FD instead refuses the run), or at once where
 * GATE_FD is -1; later ones at once. Logged as "gate T" and "open T".
 *
 * Lockstep (the three extra descriptors): two runs timed as a pair, repetition by repetition.
 * A key is answered only while this server holds the baton, one byte read from BATON_IN; the
 * next request (the run is done with its repetition and its output) hands the baton on, a
 * byte written to BATON_OUT, and waits for it to come back. So the two runs' repetitions
 * alternate on the machine, each alone, and a change of load on the machine falls on both
 * (timed process after process, identical code's ratios ranged 0.54 to 1.64 on a loaded
 * 16-core machine). The first request, or the end of the run before one, writes a byte to
 * READY (the grader hands out the first baton once both runs are ready, so neither's
 * repetition meets the other's start-up). At the end of REQ_FD the baton goes on for good:
 * BATON_OUT is closed after a last byte, and a server that reads the end of BATON_IN runs
 * free from then on.
 * CPU_FD (a last argument): the run's cgroup cpu.stat (v1: cpuacct.usage), open. Each
 * request and note then
 * ends with the run's CPU time at that moment (usage_usec, in microseconds): "rep V K HEX
 * T_ASKED T_ANSWERED CPU_ASKED", "go V K T CPU", "done V K T CPU". The grader finds from them
 * the CPU the run used outside its repetitions' windows (work a thread does beside the
 * harness's own).
 * Exit 0; 2 bad usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define MAX_SEEN 65536

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int write_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

static unsigned long long fresh_key(void)
{
    unsigned long long k = 0;
    while (k == 0) {
        if (getrandom(&k, sizeof k, 0) != (ssize_t)sizeof k)
            k = 0;
    }
    return k;
}

/* The run's cgroup cpu.stat (-1: none), and its usage_usec now (-1: unknown). */
static int cpu_fd = -1;

static long long cpu_us(void)
{
    char b[1024];
    if (cpu_fd < 0)
        return -1;
    ssize_t n = pread(cpu_fd, b, sizeof b - 1, 0);
    if (n <= 0)
        return -1;
    b[n] = 0;
    const char *p = strstr(b, "usage_usec ");
    if (p)
        return atoll(p + 11);
    return b[0] >= '0' && b[0] <= '9' ? atoll(b) / 1000 : -1; /* v1's cpuacct.usage: ns */
}

/* " CPU" after a log line's fields where the run's CPU time is read, else nothing */
static const char *cpu_field(char *out, size_t size, long long us)
{
    if (cpu_fd < 0)
        return "";
    snprintf(out, size, " %lld", us);
    return out;
}

/* Lockstep: the baton's descriptors (-1: none) and whether this server holds it. */
static int baton_in = -1, baton_out = -1, ready = -1, holding;

static void say_ready(void)
{
    if (ready >= 0) {
        (void)write_all(ready, "r", 1);
        close(ready);
        ready = -1;
    }
}

/* Before answering a key: the run's previous repetition is over, so the baton goes to the
 * other run; then wait for it to come back (its end: this server runs free from now on). */
static void wait_for_baton(void)
{
    if (baton_in < 0)
        return;
    say_ready();
    if (holding && baton_out >= 0 && write_all(baton_out, "b", 1)) {
        close(baton_out);
        baton_out = -1;
    }
    holding = 0;
    for (;;) {
        char c;
        ssize_t r = read(baton_in, &c, 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            close(baton_in);
            baton_in = -1;
        }
        break;
    }
    holding = 1;
}

/* The run has ended: the other run goes on alone. */
static void let_go(void)
{
    say_ready();
    if (baton_out >= 0) {
        if (holding)
            (void)write_all(baton_out, "b", 1);
        close(baton_out);
        baton_out = -1;
    }
}

/* A request's V: a variant number, or PART:NUMBER (the harness names the part where the grader
 * set KIT_CTL_PARTS=1): lower-case letters, digits and '_', then ':' and digits. */
static int variant_word(const char *v)
{
    const char *colon = strchr(v, ':');
    const char *num = colon ? colon + 1 : v;
    if (colon && (colon == v || strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789_") !=
                                    (size_t)(colon - v)))
        return 0;
    return num[0] && strspn(num, "0123456789") == strlen(num) && strlen(num) < 10;
}

int main(int argc, char **argv)
{
    if (argc < 6 || argc > 10 || argc == 8) {
        fprintf(stderr, "usage: keyserve REQ_FD KEY_FD LOG_FD MAX GATE_FD "
                        "[BATON_IN BATON_OUT READY] [CPU_FD]\n");
        return 2;
    }
    if (argc == 7 || argc == 10)
        cpu_fd = atoi(argv[argc - 1]);
    const int req = atoi(argv[1]), key = atoi(argv[2]), log = atoi(argv[3]);
    int gate = atoi(argv[5]), gated = 0;
    /* a reader gone (the harness, the other server) is an error of write, not the end */
    signal(SIGPIPE, SIG_IGN);
    if (argc >= 9) {
        baton_in = atoi(argv[6]);
        baton_out = atoi(argv[7]);
        ready = atoi(argv[8]);
    }
    /* answer and note at once even on a busy machine: a real-time priority where allowed
     * (the grader's root), else as it is; it sleeps in read() between lines */
    struct sched_param sp = {.sched_priority = 1};
    (void)sched_setscheduler(0, SCHED_FIFO, &sp);
    const long max = atol(argv[4]);
    static struct { char v[24]; int k, state; } seen[MAX_SEEN]; /* 1 keyed, 2 go, 3 done */
    long n = 0;
    char line[128];
    size_t len = 0;
    int open = 1;
    for (;;) {
        char c;
        ssize_t r = read(req, &c, 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        if (!open)
            continue; /* drain what comes after a refusal */
        if (c != '\n') {
            if (len + 1 < sizeof line) {
                line[len++] = c;
                continue;
            }
            dprintf(log, "broken wrote a line longer than a key request\n");
        } else {
            const long long asked = now_ns(), asked_cpu = cpu_us();
            char cpu[32];
            line[len] = 0;
            len = 0;
            int k, end = 0;
            char what[8] = "", v[24] = "";
            const char *why = NULL;
            long at = -1;
            if (sscanf(line, "%7s %23s %d%n", what, v, &k, &end) != 3 || line[end] != 0 ||
                !variant_word(v) ||
                (strcmp(what, "rep") && strcmp(what, "go") && strcmp(what, "done") &&
                 strcmp(what, "gate")))
                why = "wrote something other than a key request on the key channel";
            else if (!strcmp(what, "gate")) {
                if (strcmp(v, "0") || k != 0)
                    why = "asked to start out of turn";
                else {
                    dprintf(log, "gate %lld\n", asked);
                    char c = 0;
                    ssize_t g = 1;
                    if (gate >= 0 && !gated) {
                        do
                            g = read(gate, &c, 1);
                        while (g < 0 && errno == EINTR);
                        close(gate);
                        gate = -1;
                    }
                    gated = 1;
                    if (g != 1)
                        why = "was not let start (the grading went on without it)";
                    else if (write_all(key, "open\n", 5))
                        why = "stopped reading its keys";
                    else {
                        dprintf(log, "open %lld\n", now_ns());
                        continue;
                    }
                }
            }
            for (long i = 0; !why && i < n && i < MAX_SEEN; i++)
                if (!strcmp(seen[i].v, v) && seen[i].k == k)
                    at = i;
            if (!why && !strcmp(what, "rep")) {
                if (at >= 0)
                    why = "asked twice for the key of one repetition";
                else if (n >= max)
                    why = "asked for more keys than it has repetitions";
            } else if (!why) {
                const int want = !strcmp(what, "go") ? 1 : 2;
                if (at < 0 || seen[at].state != want)
                    why = !strcmp(what, "go") ? "said it started a repetition out of turn"
                                              : "said it ended a repetition out of turn";
                else {
                    seen[at].state = want + 1;
                    dprintf(log, "%s %s %d %lld%s\n", what, v, k, asked,
                            cpu_field(cpu, sizeof cpu, asked_cpu));
                    continue;
                }
            }
            if (!why) {
                char out[64];
                wait_for_baton();
                const unsigned long long kk = fresh_key();
                int m = snprintf(out, sizeof out, "key %016llx\n", kk);
                if (write_all(key, out, (size_t)m))
                    why = "stopped reading its keys";
                if (n < MAX_SEEN) {
                    memcpy(seen[n].v, v, sizeof seen[n].v);
                    seen[n].k = k;
                    seen[n].state = 1;
                }
                n++;
                if (!why) {
                    dprintf(log, "rep %s %d %016llx %lld %lld%s\n", v, k, kk, asked, now_ns(),
                            cpu_field(cpu, sizeof cpu, asked_cpu));
                    continue;
                }
            }
            dprintf(log, "broken %s\n", why);
        }
        open = 0;
        close(key); /* the harness reads the end of its channel and stops */
    }
    let_go();
    return 0;
}
