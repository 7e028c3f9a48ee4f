// SPDX-License-Identifier: GPL-2.0
/*
 * workers.c - worker threads, and what a workload measures with: the
 * clock, its major faults and the system's /proc/vmstat.
 *
 * aws-zipf and aws-randw run the same way: --threads workers, each doing
 * operations (a record, a write) until it has done its count (--records,
 * --writes) or --seconds have passed, or SIGUSR1 ends the phase early;
 * the run reports their total, its wall time and the major faults over
 * it.  struct aws_workers carries those options from the program's table
 * to aws_run_workers(), and aws_describe_workers() says what trace such a
 * run has.  A phase (struct aws_phase) brackets any other measured part
 * of a run, and aws_start() / aws_finish() bracket the whole run with one.
 */
#include "internal.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t end_requested;

static void on_end_signal(int sig)
{
	(void)sig;
	end_requested = 1;
}

void aws_catch_end_signal(void)
{
	struct sigaction sa = { .sa_handler = on_end_signal };

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL))
		aws_fatal("sigaction: %s", strerror(errno));
}

double aws_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void aws_sleep(double seconds)
{
	struct timespec ts;

	if (seconds <= 0)
		return;
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

long aws_majflt(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return ru.ru_majflt;
}

const char *const aws_vm_keys[AWS_VM_NR] = {
	[AWS_VM_PSWPIN] = "pswpin",
	[AWS_VM_PSWPOUT] = "pswpout",
	[AWS_VM_PGMAJFAULT] = "pgmajfault",
	[AWS_VM_WS_REFAULT_ANON] = "workingset_refault_anon",
	[AWS_VM_WS_ACTIVATE_ANON] = "workingset_activate_anon",
};

void aws_vmstat_read(struct aws_vmstat *vm)
{
	char key[64];
	long long val;
	FILE *f;
	int i;

	for (i = 0; i < AWS_VM_NR; i++)
		vm->v[i] = -1;
	f = fopen("/proc/vmstat", "r");
	if (!f)
		return;
	while (fscanf(f, "%63s %lld", key, &val) == 2) {
		for (i = 0; i < AWS_VM_NR; i++)
			if (!strcmp(key, aws_vm_keys[i]))
				vm->v[i] = val;
	}
	fclose(f);
}

void aws_phase_begin(struct aws_phase *p)
{
	aws_vmstat_read(&p->vm0);
	p->majflt0 = aws_majflt();
	p->t0 = aws_now();
}

void aws_phase_end(struct aws_phase *p)
{
	long long a, b;

	p->seconds = aws_now() - p->t0;
	p->majfaults = aws_majflt() - p->majflt0;
	aws_vmstat_read(&p->vm1);
	a = p->vm0.v[AWS_VM_PSWPIN];
	b = p->vm1.v[AWS_VM_PSWPIN];
	p->pswpin = a >= 0 && b >= 0 ? b - a : -1;
}

void aws_workers_init(struct aws_workers *wk, int online)
{
	long ncpu = online ? sysconf(_SC_NPROCESSORS_ONLN) : 1;

	memset(wk, 0, sizeof(*wk));
	wk->threads = ncpu > 0 ? (uint64_t)ncpu : 1;
	wk->threads_online = online;
	wk->seconds = AWS_DEF_SECONDS;
}

void aws_workers_check(struct aws_workers *wk)
{
	if (wk->max_ops && !wk->seconds_given)
		wk->seconds = 0;	/* no time limit */
	/* the trace must be the one sequence the simulator replays */
	aws_trace_single_thread(wk->threads);
}

uint64_t aws_describe_workers(const struct aws_workers *wk,
			      const char *count_opt, const char *pattern,
			      uint64_t accesses_per_op, uint64_t *accesses)
{
	uint64_t ops;

	aws_describe_common(wk->seconds_given);
	if (!wk->max_ops)
		aws_describe_na("no %s: timed (%d s by default)", count_opt,
				AWS_DEF_SECONDS);
	if (wk->threads_online && !wk->threads_given)
		aws_describe_na("no --threads: it defaults to the CPUs online, the guest's are not the host's");
	if (wk->threads == 1)
		aws_describe_exact();
	if (__builtin_mul_overflow(wk->max_ops, wk->threads, &ops) ||
	    __builtin_mul_overflow(ops, accesses_per_op, accesses))
		aws_describe_na("more than 2^64 accesses");
	aws_describe_sim("--seed", "%" PRIu64, aws.seed);
	aws_describe_sim("--pattern", "%s", pattern);
	return ops;
}

struct worker_slot {
	struct aws_worker w;
	uint64_t (*fn)(const struct aws_worker *w);
	atomic_uint *done;
	pthread_t tid;
};

static void *worker_trampoline(void *p)
{
	struct worker_slot *slot = p;

	slot->w.ops = slot->fn(&slot->w);
	aws_thread_flush();
	atomic_fetch_add_explicit(slot->done, 1, memory_order_release);
	return NULL;
}

void aws_run_workers(struct aws_workers *wk,
		     uint64_t (*fn)(const struct aws_worker *w), void *ctx)
{
	unsigned int i, n = wk->threads;
	struct worker_slot *slots = calloc(n, sizeof(*slots));
	atomic_uint done = 0;
	double t0, deadline;
	int err;

	if (!slots)
		aws_fatal("out of memory");
	wk->majfaults = aws_majflt();
	atomic_store(&wk->stop, 0);
	t0 = aws_now();
	deadline = wk->seconds > 0 ? t0 + wk->seconds : 0;
	for (i = 0; i < n; i++) {
		slots[i].w.id = i;
		slots[i].w.wk = wk;
		slots[i].w.ctx = ctx;
		slots[i].fn = fn;
		slots[i].done = &done;
		err = pthread_create(&slots[i].tid, NULL, worker_trampoline,
				     &slots[i]);
		if (err)
			aws_fatal("pthread_create: %s", strerror(err));
	}
	while (atomic_load_explicit(&done, memory_order_acquire) < n) {
		double now = aws_now();

		if (end_requested || (deadline && now >= deadline))
			break;
		aws_sleep(deadline && deadline - now < 0.01 ?
			  deadline - now : 0.01);
	}
	atomic_store(&wk->stop, 1);
	wk->ops = 0;
	for (i = 0; i < n; i++) {
		err = pthread_join(slots[i].tid, NULL);
		if (err)
			aws_fatal("pthread_join: %s", strerror(err));
		wk->ops += slots[i].w.ops;
	}
	wk->run_seconds = aws_now() - t0;
	wk->majfaults = aws_majflt() - wk->majfaults;
	free(slots);
}
