// SPDX-License-Identifier: GPL-2.0
/*
 * instance.c - aws-instance: one instance of the simulator's workload
 * distribution, run for real.
 *
 * The simulator judges policies on instances drawn at random from
 * families of access patterns, each sized relative to memory
 * (userspace/sim/dist.c).  This program draws instance --index of rng
 * seed --dist-seed for --memory (the frames the draw is relative to: the
 * cgroup limit it will run under) with the simulator's own generator,
 * compiled in, and then touches the pages of an anonymous region in the
 * trace's order: the first access to a page writes it, every later one
 * reads and verifies it.  So the guest runs exactly the trace the
 * simulator replays, and OPT is computed on it (--save-trace writes it;
 * harness/experiment/opt.py takes that, as for every exact workload).
 *
 * The trace array itself (4 bytes an access) is locked in memory with
 * mlock() before the replay: it counts against the limit like the
 * program's code and stack, but it is never swapped, so every swap-in the
 * run reports is a page of the region.  The trace has no read/write
 * distinction (docs/trace-format.md): a family that writes (randw) is
 * replayed as reads after the first touch, so swapped-in pages keep their
 * swap slot as they do under the loop and zipf workloads.
 *
 * RESULT keys: family (the family's number, dist.c's order), accesses,
 * pages, majfaults (ru_majflt over the replay, the first touches being
 * minor faults: the run's swap-ins), replay_pswpin (the system's pswpin
 * over the replay, readahead included) and replay_seconds; the drawn
 * parameters go to stderr.
 */
#include "common.h"

#include <inttypes.h>
#include <sys/mman.h>

#include "sim.h"

enum {
	OPT_DIST_SEED = AWS_OPT_PROGRAM_BASE,
	OPT_INDEX,
	OPT_MEMORY,
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: aws-instance --dist-seed S --index I --memory SIZE [options]\n"
		"Replay instance I of the simulator's workload distribution drawn\n"
		"with rng seed S for SIZE of memory (aws-sim --distribution).\n"
		"\n"
		"  --dist-seed S   the distribution's rng seed\n"
		"  --index I       the instance (its family is I mod %u)\n"
		"  --memory SIZE   the memory the draw is relative to (the limit)\n"
		"\n"
		"RESULT keys: family accesses pages majfaults replay_pswpin\n"
		"             replay_seconds + common keys\n"
		"\n", DIST_FAMILIES);
	aws_common_usage(f);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dist-seed", required_argument, NULL, OPT_DIST_SEED },
		{ "index",     required_argument, NULL, OPT_INDEX },
		{ "memory",    required_argument, NULL, OPT_MEMORY },
		AWS_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	uint64_t dist_seed = 0, index = 0;
	int have_seed = 0, have_index = 0, opt;
	const char *memory_arg = NULL;
	struct dist_instance d;
	struct aws_region *reg;
	struct aws_vmstat vm0, vm1;
	long long pswpin = -1;
	long majfaults;
	struct trace t;
	double t0, seconds;
	size_t bytes, i;

	aws_init("instance", "aws-instance");
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (aws_common_option(opt, optarg, usage))
			continue;
		switch (opt) {
		case OPT_DIST_SEED:
			dist_seed = aws_parse_u64("--dist-seed", optarg, 0,
						  UINT64_MAX);
			have_seed = 1;
			break;
		case OPT_INDEX:
			index = aws_parse_u64("--index", optarg, 0, UINT32_MAX);
			have_index = 1;
			break;
		case OPT_MEMORY:
			memory_arg = optarg;
			break;
		default:
			aws_usage_error("unhandled option");
		}
	}
	aws_no_operands(argc, argv, optind);
	if (!have_seed || !have_index || !memory_arg)
		aws_usage_error("--dist-seed, --index and --memory are required");
	bytes = aws_parse_size("--memory", memory_arg, AWS_MiB,
			       64 * AWS_PAGE_SIZE);
	if (aws.describe) {
		aws_describe_common(argc, argv, 0);
		aws_describe_exact();
	}

	if (dist_draw(&t, dist_seed, (unsigned int)index,
		      bytes / AWS_PAGE_SIZE, &d))
		aws_fatal("cannot draw instance %" PRIu64 " of seed %" PRIu64,
			  index, dist_seed);
	if (mlock(t.pages, t.len * sizeof(*t.pages)))
		aws_fatal("mlock of the %zu-access trace: %m", t.len);
	fprintf(stderr, "aws-instance: %s %s: %zu accesses, %u pages, memory %zuMiB\n",
		t.name, d.params, t.len, t.npages, bytes / AWS_MiB);

	aws_start();
	reg = aws_region_alloc("instance", (size_t)t.npages * AWS_PAGE_SIZE);
	aws_vmstat_read(&vm0);
	majfaults = aws_majflt();
	t0 = aws_now();
	for (i = 0; i < t.len; i++) {
		uint32_t p = t.pages[i];

		if (reg->gen[p])
			aws_page_verify(reg, p);
		else
			aws_page_write(reg, p, 1);
	}
	seconds = aws_now() - t0;
	majfaults = aws_majflt() - majfaults;
	aws_vmstat_read(&vm1);
	if (vm0.v[AWS_VM_PSWPIN] >= 0 && vm1.v[AWS_VM_PSWPIN] >= 0)
		pswpin = vm1.v[AWS_VM_PSWPIN] - vm0.v[AWS_VM_PSWPIN];
	if (aws.corrupt_test) {
		/* every page of the trace was written at its first access */
		aws_corrupt_page(reg, t.pages[0]);
		aws_page_verify(reg, t.pages[0]);
	}

	aws_result_u64("family", d.family);
	aws_result_u64("accesses", t.len);
	aws_result_u64("pages", t.npages);
	aws_result_i64("majfaults", majfaults);
	aws_result_i64("replay_pswpin", pswpin);
	aws_result_double("replay_seconds", seconds, 3);
	opt = aws_finish();

	aws_region_free(reg);
	trace_free(&t);
	return opt;
}
