/* delayline: a user-space one-way delay for packets sent to NFQUEUE.
 *
 * The testbed has no netem, so latency comes from here: an iptables rule in a
 * network namespace sends packets to an NFQUEUE queue, and this program holds
 * each packet until its delay has passed, then accepts it. Every queue has one
 * constant delay, so packets leave in the order they came; a batch verdict on
 * the newest due packet releases all older ones with one message.
 *
 * One process serves the queues of many namespaces: for each queue it enters
 * the namespace (setns), opens the netlink socket there, and returns to its
 * own namespace. Only packet metadata is copied to user space (NFQNL_COPY_META)
 * and GSO packets stay whole (NFQA_CFG_F_GSO).
 *
 * Usage: delayline [-r READY_FILE] [-s] NETNS_PATH:QUEUE:DELAY_US ...
 *   NETNS_PATH  a network namespace file, e.g. /run/netns/NAME, or "-" for the
 *               current namespace
 *   QUEUE       NFQUEUE queue number in that namespace
 *   DELAY_US    delay added to each packet, in microseconds
 *   -r FILE     create FILE once every queue is bound (the caller waits on it)
 *   -s          print per-queue counts on exit
 * SIGTERM or SIGINT stops it; SIGUSR1 prints the counts. Run it SCHED_FIFO
 * (chrt -f) so that busy processes on the same cores cannot starve it.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <libnetfilter_queue/libnetfilter_queue.h>
#include <linux/netfilter.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum {
  kRingCapacity = 1 << 15, /* held packets per queue; more than the kernel queue may hold */
  kKernelQueueLen = 1 << 14,
  kMaxLines = 1024,
  kRecvBufferBytes = 8 << 20,
};

struct line {
  const char* spec;
  struct nfq_handle* handle;
  struct nfq_q_handle* queue;
  int fd;
  uint64_t delay_ns;
  uint32_t* ids; /* FIFO of held packets: id and release time */
  uint64_t* due_ns;
  size_t head;
  size_t count;
  uint64_t received;
  uint64_t released;
  uint64_t overflows; /* notifications lost to a full socket buffer */
};

static volatile sig_atomic_t g_stop = 0;
static volatile sig_atomic_t g_report = 0;

static void on_stop(int sig) {
  (void)sig;
  g_stop = 1;
}

static void on_report(int sig) {
  (void)sig;
  g_report = 1;
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char* what, const char* spec) {
  fprintf(stderr, "delayline: %s (%s): %s\n", what, spec, strerror(errno));
  exit(1);
}

/* Called by nfq_handle_packet for every queued packet: remember it. */
static int on_packet(struct nfq_q_handle* queue, struct nfgenmsg* msg, struct nfq_data* data, void* ctx) {
  (void)msg;
  struct line* l = ctx;
  struct nfqnl_msg_packet_hdr* hdr = nfq_get_msg_packet_hdr(data);
  if (hdr == NULL) return 0;
  uint32_t id = ntohl(hdr->packet_id);
  l->received++;
  if (l->count == kRingCapacity) {
    /* Cannot happen while the kernel queue is shorter than the ring; if it
     * does, pass the packet at once rather than lose track of it. */
    nfq_set_verdict(queue, id, NF_ACCEPT, 0, NULL);
    l->released++;
    return 0;
  }
  size_t tail = (l->head + l->count) % kRingCapacity;
  l->ids[tail] = id;
  l->due_ns[tail] = now_ns() + l->delay_ns;
  l->count++;
  return 0;
}

/* Accept every held packet whose time has come, with one batch verdict. */
static void release_due(struct line* l, uint64_t now) {
  size_t n = 0;
  while (n < l->count && l->due_ns[(l->head + n) % kRingCapacity] <= now) n++;
  if (n == 0) return;
  uint32_t last = l->ids[(l->head + n - 1) % kRingCapacity];
  nfq_set_verdict_batch(l->queue, last, NF_ACCEPT);
  l->head = (l->head + n) % kRingCapacity;
  l->count -= n;
  l->released += n;
}

static void drain_socket(struct line* l, char* buf, size_t size) {
  for (;;) {
    ssize_t got = recv(l->fd, buf, size, MSG_DONTWAIT);
    if (got > 0) {
      nfq_handle_packet(l->handle, buf, (int)got);
      continue;
    }
    if (got < 0 && errno == ENOBUFS) {
      /* Some notifications were lost; their packets are still held by the
       * kernel and leave with the next batch verdict. */
      l->overflows++;
      continue;
    }
    if (got < 0 && errno == EINTR) continue;
    return; /* EAGAIN, or an error we cannot act on */
  }
}

static void report(struct line* lines, size_t n) {
  for (size_t i = 0; i < n; i++) {
    fprintf(stderr, "delayline: %s received %llu released %llu held %zu overflows %llu\n", lines[i].spec,
            (unsigned long long)lines[i].received, (unsigned long long)lines[i].released, lines[i].count,
            (unsigned long long)lines[i].overflows);
  }
}

static void open_line(struct line* l, const char* spec, int home_ns) {
  char path[4096];
  unsigned queue_num = 0;
  unsigned long long delay_us = 0;
  const char* colon2 = strrchr(spec, ':');
  const char* colon1 = NULL;
  for (const char* p = spec; p < colon2 && colon2 != NULL; p++) {
    if (*p == ':') colon1 = p;
  }
  if (colon1 == NULL || (size_t)(colon1 - spec) >= sizeof path || sscanf(colon1 + 1, "%u", &queue_num) != 1 ||
      sscanf(colon2 + 1, "%llu", &delay_us) != 1 || queue_num > 65535) {
    fprintf(stderr, "delayline: bad spec '%s' (want NETNS_PATH:QUEUE:DELAY_US)\n", spec);
    exit(2);
  }
  memcpy(path, spec, (size_t)(colon1 - spec));
  path[colon1 - spec] = '\0';

  l->spec = spec;
  l->delay_ns = delay_us * 1000u;
  l->ids = calloc(kRingCapacity, sizeof *l->ids);
  l->due_ns = calloc(kRingCapacity, sizeof *l->due_ns);
  if (l->ids == NULL || l->due_ns == NULL) die("out of memory", spec);

  if (strcmp(path, "-") != 0) {
    int ns = open(path, O_RDONLY | O_CLOEXEC);
    if (ns < 0) die("cannot open namespace", spec);
    if (setns(ns, CLONE_NEWNET) != 0) die("cannot enter namespace", spec);
    close(ns);
  }
  /* The netlink socket belongs to the namespace it is created in. */
  l->handle = nfq_open();
  if (l->handle == NULL) die("nfq_open failed", spec);
  nfq_bind_pf(l->handle, AF_INET); /* a no-op on current kernels; harmless */
  l->queue = nfq_create_queue(l->handle, (uint16_t)queue_num, on_packet, l);
  if (l->queue == NULL) die("cannot bind the queue (is another program using it?)", spec);
  if (nfq_set_mode(l->queue, NFQNL_COPY_META, 0) < 0) die("cannot set metadata-only mode", spec);
  nfq_set_queue_maxlen(l->queue, kKernelQueueLen);
  if (nfq_set_queue_flags(l->queue, NFQA_CFG_F_GSO, NFQA_CFG_F_GSO) < 0) die("cannot keep GSO packets whole", spec);
  nfnl_rcvbufsiz(nfq_nfnlh(l->handle), kRecvBufferBytes);
  l->fd = nfq_fd(l->handle);
  int flags = fcntl(l->fd, F_GETFL);
  fcntl(l->fd, F_SETFL, flags | O_NONBLOCK);
  if (setns(home_ns, CLONE_NEWNET) != 0) die("cannot return to the home namespace", spec);
}

int main(int argc, char** argv) {
  const char* ready_file = NULL;
  int print_stats = 0;
  int opt;
  while ((opt = getopt(argc, argv, "r:s")) != -1) {
    if (opt == 'r') {
      ready_file = optarg;
    } else if (opt == 's') {
      print_stats = 1;
    } else {
      fprintf(stderr, "usage: %s [-r READY_FILE] [-s] NETNS_PATH:QUEUE:DELAY_US ...\n", argv[0]);
      return 2;
    }
  }
  size_t n = (size_t)(argc - optind);
  if (n == 0 || n > kMaxLines) {
    fprintf(stderr, "delayline: give between 1 and %d NETNS_PATH:QUEUE:DELAY_US specs\n", kMaxLines);
    return 2;
  }

  /* Signals are blocked except while waiting in ppoll, so none is missed. */
  sigset_t blocked, wait_mask;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGTERM);
  sigaddset(&blocked, SIGINT);
  sigaddset(&blocked, SIGUSR1);
  sigprocmask(SIG_BLOCK, &blocked, &wait_mask);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  sa.sa_handler = on_report;
  sigaction(SIGUSR1, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);

  int home_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
  if (home_ns < 0) die("cannot open own namespace", "/proc/self/ns/net");
  struct line* lines = calloc(n, sizeof *lines);
  struct pollfd* fds = calloc(n, sizeof *fds);
  if (lines == NULL || fds == NULL) die("out of memory", "main");
  for (size_t i = 0; i < n; i++) {
    open_line(&lines[i], argv[optind + (int)i], home_ns);
    fds[i].fd = lines[i].fd;
    fds[i].events = POLLIN;
  }
  close(home_ns);

  if (ready_file != NULL) {
    FILE* f = fopen(ready_file, "w");
    if (f == NULL) die("cannot create the ready file", ready_file);
    fprintf(f, "%d\n", (int)getpid());
    fclose(f);
  }

  static char buf[1 << 16];
  while (!g_stop) {
    uint64_t now = now_ns();
    uint64_t next = UINT64_MAX;
    for (size_t i = 0; i < n; i++) {
      release_due(&lines[i], now);
      if (lines[i].count > 0 && lines[i].due_ns[lines[i].head] < next) next = lines[i].due_ns[lines[i].head];
    }
    if (g_report) {
      g_report = 0;
      report(lines, n);
    }
    struct timespec wait;
    struct timespec* wait_ptr = NULL;
    if (next != UINT64_MAX) {
      uint64_t left = next > now ? next - now : 0;
      wait.tv_sec = (time_t)(left / 1000000000u);
      wait.tv_nsec = (long)(left % 1000000000u);
      wait_ptr = &wait;
    }
    int ready = ppoll(fds, (nfds_t)n, wait_ptr, &wait_mask);
    if (ready < 0) {
      if (errno == EINTR) continue;
      die("ppoll failed", "main");
    }
    for (size_t i = 0; i < n && ready > 0; i++) {
      if (fds[i].revents == 0) continue;
      ready--;
      drain_socket(&lines[i], buf, sizeof buf);
    }
  }

  /* Let held packets go now rather than have the kernel drop them when the
   * queues close. */
  for (size_t i = 0; i < n; i++) release_due(&lines[i], UINT64_MAX);
  if (print_stats) report(lines, n);
  for (size_t i = 0; i < n; i++) {
    nfq_destroy_queue(lines[i].queue);
    nfq_close(lines[i].handle);
    free(lines[i].ids);
    free(lines[i].due_ns);
  }
  free(lines);
  free(fds);
  return 0;
}
