/* yield_sleep: an LD_PRELOAD shim whose sched_yield sleeps a little.
 *
 * Open MPI with mpi_yield_when_idle calls sched_yield in its progress loop.
 * On an emulated cluster many ranks share few cores, and a plain sched_yield
 * returns at once when no other task is runnable on that core, so idle ranks
 * still spin. Sleeping a few microseconds instead hands the cores to the ranks
 * (and the delay line) that have work, at the cost of some latency.
 *
 * RAGGED_TESTBED_YIELD_SLEEP_US sets the sleep (default 20 microseconds).
 * Build: cc -O2 -shared -fPIC -o yield_sleep.so yield_sleep.c
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <time.h>

static long g_sleep_ns = 20000;

__attribute__((constructor)) static void read_setting(void) {
  const char* text = getenv("RAGGED_TESTBED_YIELD_SLEEP_US");
  if (text == NULL || *text == '\0') return;
  long us = strtol(text, NULL, 10);
  if (us < 0) us = 0;
  if (us > 1000000) us = 1000000;
  g_sleep_ns = us * 1000;
}

int sched_yield(void) {
  struct timespec ts;
  ts.tv_sec = g_sleep_ns / 1000000000L;
  ts.tv_nsec = g_sleep_ns % 1000000000L;
  nanosleep(&ts, NULL);
  return 0;
}
