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
	uint64_t dist_seed = 0, index = 0;
	int have_seed = 0, have_index = 0, rc;
	const char *memory_arg = NULL;
	const struct aws_option options[] = {
		AWS_OPT_U64_GIVEN("--dist-seed", &dist_seed, 0, UINT64_MAX,
				  &have_seed),
		AWS_OPT_U64_GIVEN("--index", &index, 0, UINT32_MAX,
				  &have_index),
		AWS_OPT_STR("--memory", &memory_arg),
		AWS_OPT_END,
	};
	struct dist_instance d;
	struct aws_region *reg;
	struct aws_phase phase;
	struct trace t;
	size_t bytes, i;

	aws_init("instance", "aws-instance");
	aws_parse_options(argc, argv, options, usage);
	if (!have_seed || !have_index || !memory_arg)
		aws_usage_error("--dist-seed, --index and --memory are required");
	bytes = aws_parse_size("--memory", memory_arg, AWS_MiB,
			       64 * AWS_PAGE_SIZE);
	aws_describe_fixed();

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
	aws_phase_begin(&phase);
	for (i = 0; i < t.len; i++) {
		uint32_t p = t.pages[i];

		if (reg->gen[p])
			aws_page_verify(reg, p);
		else
			aws_page_write(reg, p, 1);
	}
	aws_phase_end(&phase);
	if (aws.corrupt_test) {
		/* every page of the trace was written at its first access */
		aws_corrupt_page(reg, t.pages[0]);
		aws_page_verify(reg, t.pages[0]);
	}

	aws_result_u64("family", d.family);
	aws_result_u64("accesses", t.len);
	aws_result_u64("pages", t.npages);
	aws_result_i64("majfaults", phase.majfaults);
	aws_result_i64("replay_pswpin", phase.pswpin);
	aws_result_double("replay_seconds", phase.seconds, 3);
	rc = aws_finish();

	aws_region_free(reg);
	trace_free(&t);
	return rc;
}
