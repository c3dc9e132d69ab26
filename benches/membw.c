// The machine's memory bandwidth, for BENCHMARKS.md ("Issue 41: values"): reading (a sum of
// 64-bit words) and copying (memcpy), 1 GiB a thread, on 1 to N threads, best of 5.
//   cc -O3 -march=native -pthread benches/membw.c -o membw && ./membw [THREADS]
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BYTES (1ul << 30)

struct job { uint64_t *src, *dst; int copy; uint64_t sum; };

static void *run(void *p) {
    struct job *j = p;
    if (j->copy) {
        memcpy(j->dst, j->src, BYTES);
    } else {
        uint64_t s[8] = {0};
        for (size_t i = 0; i < BYTES / 8; i += 8)
            for (int k = 0; k < 8; k++) s[k] += j->src[i + k];
        for (int k = 0; k < 8; k++) j->sum += s[k];
    }
    return NULL;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1;
    struct job jobs[64];
    pthread_t th[64];
    for (int i = 0; i < n; i++) {
        jobs[i].src = malloc(BYTES);
        jobs[i].dst = malloc(BYTES);
        memset(jobs[i].src, i + 1, BYTES);
        memset(jobs[i].dst, 0, BYTES);
    }
    for (int copy = 0; copy < 2; copy++) {
        double best = 0;
        for (int r = 0; r < 5; r++) {
            double t = now();
            for (int i = 0; i < n; i++) { jobs[i].copy = copy; pthread_create(&th[i], NULL, run, &jobs[i]); }
            for (int i = 0; i < n; i++) pthread_join(th[i], NULL);
            double gbs = n * (double)BYTES / (now() - t) / 1e9;
            if (gbs > best) best = gbs;
        }
        printf("%d thread%s: %s %.1f GB/s\n", n, n > 1 ? "s" : "", copy ? "memcpy (bytes copied)" : "read", best);
    }
    return 0;
}
