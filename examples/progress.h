/*
 * progress.h: the demos' progress reporting (a bar on a terminal, plain 10% lines otherwise), as a
 * ca_progress_fn. Header-only; include after <stdio.h>, <stdint.h> and <time.h> with
 * _POSIX_C_SOURCE >= 199309L (clock_gettime).
 */
#ifndef CHUNKARRAY_EXAMPLES_PROGRESS_H
#define CHUNKARRAY_EXAMPLES_PROGRESS_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct progress_state {
  int tty;          /* draw a bar with \r, else print a plain line every 10% */
  int quiet;        /* print nothing */
  double t0;
  int last_decile;  /* plain mode: last 10% step printed */
  int drawn;        /* tty mode: a bar is on the current line */
} progress_state_t;

static void on_progress(int64_t done, int64_t total, void *user_data) {
  progress_state_t *p = (progress_state_t *)user_data;
  if (p->quiet || total <= 0) return;
  double frac = (double)done / (double)total;
  double elapsed = now_seconds() - p->t0;
  if (p->tty) {
    enum { WIDTH = 40 };
    char bar[WIDTH + 1];
    int fill = (int)(frac * WIDTH);
    for (int i = 0; i < WIDTH; ++i) bar[i] = i < fill ? '#' : (i == fill ? '>' : '.');
    bar[WIDTH] = '\0';
    char eta[32] = "";
    if (done > 0 && done < total) snprintf(eta, sizeof eta, "  ETA %5.1f s", elapsed * (1.0 - frac) / frac);
    printf("\r  [%s] %5.1f%%  %lld/%lld tasks  %5.1f s%s   ", bar, 100.0 * frac, (long long)done,
           (long long)total, elapsed, eta);
    p->drawn = 1;
  } else {
    int decile = (int)(frac * 10.0);
    if (decile <= p->last_decile) return;
    p->last_decile = decile;
    printf("progress: %3d%%  %lld/%lld tasks  %.1f s\n", decile * 10, (long long)done, (long long)total, elapsed);
  }
  fflush(stdout);
}

#endif /* CHUNKARRAY_EXAMPLES_PROGRESS_H */
