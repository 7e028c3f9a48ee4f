// SPDX-License-Identifier: GPL-2.0
/*
 * aws-sim - replay a page-access trace through the anon LRU policies of
 * module/policies/ (the registry, include/aws_policy.h), 6.1's
 * multi-generational LRU, plain LRU and Belady's OPT.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: aws-sim [options]\n"
"trace (one of):\n"
"  --pattern thrash|protect|zipf|randw|loop|scanhot  built-in generator\n"
"                     (default thrash; docs/trace-format.md)\n"
"  --trace FILE                  text or binary trace (docs/trace-format.md)\n"
"  --distribution N              instances 0..N-1 of the workload\n"
"                     distribution (dist.c: eight families drawn relative\n"
"                     to --frames); needs --csv, one row per instance and\n"
"                     policy\n"
"  --dist-seed S      the distribution's rng seed (default 1)\n"
"generator knobs:\n"
"  --scale S          multiply every size, frames included (default 1)\n"
"  --rounds N         repetitions of the measured phase (default 20)\n"
"  --warmup N         passes that establish the hot set (default 8)\n"
"  zipf is aws-zipf's stream (userspace/streams/aws_zipf.h): the region\n"
"  filled once, then records of one zipf-drawn chunk each; with one thread\n"
"  exactly \"aws-zipf --size <pages x 4K> --chunk <chunk x 4K> --threads 1\n"
"  --alpha A --seed N --records <accesses / chunk>\" (docs/trace-format.md)\n"
"  --alpha A          zipf exponent (default 0.9)\n"
"  --zipf-pages N     zipf region in pages (default 2 x frames)\n"
"  --zipf-chunk N     pages per chunk, i.e. per record (default 1)\n"
"  --zipf-threads N   worker streams, taken round-robin one record each\n"
"                     (default 1; N > 1 approximates the guest's order)\n"
"  --accesses N       zipf page accesses after the fill, a multiple of\n"
"                     chunk x threads; randw's writes in all, a multiple\n"
"                     of threads (default 10000000)\n"
"  --seed N           zipf and randw random seed, the workloads' --seed\n"
"                     (default 1)\n"
"  randw is aws-randw's writes (userspace/streams/aws_randw.h), then its\n"
"  verification of the written pages; with one thread exactly \"aws-randw\n"
"  --size <pages x 4K> --threads 1 --writes N --seed S\"\n"
"  --randw-pages N    randw region in pages (default 2 x frames)\n"
"  --randw-threads N  writer threads, taken round-robin one write each\n"
"                     (default 1; N > 1 approximates the guest's order)\n"
"  --cold-mb, --hot1-mb, --hot2-mb, --slice-mb MB  thrash sizes\n"
"                     (default 512, 96, 96, 128)\n"
"  --hot-mb MB        hot set of protect and scanhot (default 128, 96)\n"
"  --wave-mb MB       protect's used-once waves (default 128)\n"
"  --scan-mb MB       scanhot's used-once scan per round (default 64)\n"
"  --loop-mb MB       loop's region (default 160)\n"
"  --loops N          loop's passes after the first touch (default 4)\n"
"model:\n"
"  --frames N         frames in pages (default 280 MiB / 4 KiB x scale)\n"
"  --frames-mb MB     frames in MiB (x scale)\n"
"  --ratio auto|N     inactive:active ratio parameter (default 1, seed 1:1)\n"
"  --policies LIST    comma list of policy names (see --list), mglru,\n"
"                     mglru-batch, lru, opt (default: every policy but\n"
"                     stock, in registry order, then mglru,lru,opt)\n"
"                     mglru: 6.1's multi-generational LRU (mglru.c), one\n"
"                     page reclaimed per fault like the policies;\n"
"                     mglru-batch: the same, reclaiming as the guest's\n"
"                     memcg reclaim does (32 pages per charge)\n"
"  --fault-young      the faulting access leaves the PTE young\n"
"  --refault-deactivate  age the active list after refault activations\n"
"                     (prepare_scan_count(); off: ratio only)\n"
"  --batch            the two-list model reclaims as the guest's memcg\n"
"                     reclaim does: 32 pages per charge that finds the\n"
"                     frames used, by priority, isolating and deactivating\n"
"                     in chunks of 32, refault-driven deactivation included\n"
"                     (default: one page per fault)\n"
"  --bucket-order N   force the shadow bucket_order (default: derived)\n"
"  --clock-start N    initial clock value (test wrap-around)\n"
"  --file-mb MB       static page cache: taken from frames, seen by the\n"
"                     refault rules that count file pages (default 0)\n"
"output:\n"
"  --csv FILE         write one CSV row per policy\n"
"  --hist             print refault distance histograms\n"
"  (measured: swap-ins of the pattern's measured phase - thrash's and\n"
"  scanhot's rounds, loop's loops, protect's rounds, zipf's records (after\n"
"  the fill), the whole of randw and of a file trace - with x OPT, the\n"
"  same count for OPT)\n"
"  --notes FILE       write every note the policies make (AWS_NOTE, e.g.\n"
"                     regret's rule and sums at each refault), one line\n"
"                     each: instance (0 without --distribution), policy,\n"
"                     active and inactive anon pages and PG_workingset of\n"
"                     the refault judged, the policy's eight words\n"
"                     (docs/tracing.md: aws_note)\n"
"  --save FILE        write the trace (binary, or text if FILE ends .txt)\n"
"  --selftest         run the built-in self tests and exit\n"
"  --list             print every policy name, one per line, and exit\n");
}

struct run {
	const char *name;
	int kind;		/* K_LRU2, K_LRU, K_OPT, K_MGLRU, K_MGLRU_BATCH */
	const struct aws_policy *policy;
	struct sim_stats st;
	double extra_seconds;	/* OPT: next-use precomputation */
};

enum { K_LRU2, K_LRU, K_OPT, K_MGLRU, K_MGLRU_BATCH };

static void add_policy(struct run *r, const struct aws_policy *p)
{
	r->name = p->name;
	r->kind = K_LRU2;
	r->policy = p;
}

/* No --policies: every registry policy but stock, then MGLRU, LRU, OPT. */
static int default_policies(struct run *runs, int max)
{
	unsigned int i;
	int n = 0;

	for (i = 0; i < aws_nr_policies; i++) {
		if (aws_policy_is_stock(aws_policies[i]))
			continue;	/* runs upstream's rules, see below */
		if (n == max)
			return -1;
		memset(&runs[n], 0, sizeof(runs[n]));
		add_policy(&runs[n++], aws_policies[i]);
	}
	if (n + 3 > max)
		return -1;
	memset(&runs[n], 0, 3 * sizeof(runs[n]));
	runs[n].name = "MGLRU";
	runs[n++].kind = K_MGLRU;
	runs[n].name = "LRU";
	runs[n++].kind = K_LRU;
	runs[n].name = "OPT";
	runs[n++].kind = K_OPT;
	return n;
}

static int parse_policies(const char *list, struct run *runs, int max)
{
	char buf[1024], *tok, *save = NULL;
	int n = 0;

	if (!list)
		return default_policies(runs, max);
	if (strlen(list) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		const struct aws_policy *p;

		if (n == max) {
			fprintf(stderr, "aws-sim: more than %d policies\n",
				max);
			return -1;
		}
		memset(&runs[n], 0, sizeof(runs[n]));
		if (!strcmp(tok, "lru")) {
			runs[n].name = "LRU";
			runs[n].kind = K_LRU;
		} else if (!strcmp(tok, "opt")) {
			runs[n].name = "OPT";
			runs[n].kind = K_OPT;
		} else if (!strcmp(tok, "mglru")) {
			runs[n].name = "MGLRU";
			runs[n].kind = K_MGLRU;
		} else if (!strcmp(tok, "mglru-batch")) {
			runs[n].name = "MGLRU-batch";
			runs[n].kind = K_MGLRU_BATCH;
		} else if ((p = aws_policy_find(tok, strlen(tok))) ||
			   (p = sim_twin_find(tok))) {
			add_policy(&runs[n], p);
		} else {
			fprintf(stderr, "aws-sim: unknown policy \"%s\"\n", tok);
			return -1;
		}
		n++;
	}
	return n;
}

static void print_hist(const struct run *r)
{
	unsigned int b;
	uint64_t total = 0;

	for (b = 0; b < AWS_HIST_BUCKETS; b++)
		total += r->st.hist[b];
	if (!total)
		return;
	printf("\nrefault distance / workingset size, %s (%llu refaults):\n",
	       r->name, (unsigned long long)total);
	for (b = 0; b < AWS_HIST_BUCKETS; b++) {
		int lg = aws_hist_bucket_log(b);

		if (!r->st.hist[b])
			continue;
		if (b == AWS_HIST_BUCKETS - 1)
			printf("  >= 2^%-3d     %10llu\n", lg - 1,
			       (unsigned long long)r->st.hist[b]);
		else
			printf("   < 2^%-3d     %10llu\n", lg,
			       (unsigned long long)r->st.hist[b]);
	}
}

/* One run of @r's engine over @t. */
static int run_one(const struct trace *t, struct lru2_params *lp,
		   struct run *r)
{
	struct mglru_params mp = {
		.frames = lp->frames, .fault_young = lp->fault_young,
		.batch = r->kind == K_MGLRU_BATCH,
	};

	memset(&r->st, 0, sizeof(r->st));
	switch (r->kind) {
	case K_LRU2:
		lp->policy = r->policy;
		return lru2_run(t, lp, &r->st);
	case K_LRU:
		return lru_run(t, lp->frames, &r->st);
	case K_MGLRU:
	case K_MGLRU_BATCH:
		return mglru_run(t, &mp, &r->st);
	default:
		return opt_run(t, lp->frames, &r->st, &r->extra_seconds);
	}
}

/* Replay @t under every run; 0, or 1 if an engine failed. */
static int run_all(const struct trace *t, struct lru2_params *lp,
		   struct run *runs, int nruns)
{
	int i, ret;

	for (i = 0; i < nruns; i++) {
		struct run *r = &runs[i];

		ret = run_one(t, lp, r);
		if (ret) {
			fprintf(stderr, "aws-sim: %s failed (out of memory?)\n",
				r->name);
			return 1;
		}
	}
	return 0;
}

/*
 * Instances 0..n-1 of the workload distribution under every run: one CSV
 * row per instance and run, its swap-ins (misses on pages touched
 * before) beside the trace's size and the drawn parameters.
 */
static int run_distribution(unsigned int n, uint64_t seed,
			    struct lru2_params *lp, struct run *runs,
			    int nruns, const char *csv)
{
	FILE *cf = fopen(csv, "w");
	struct dist_instance d;
	double t0 = sim_now();
	struct trace tr;
	unsigned int i;
	int k;

	if (!cf) {
		perror(csv);
		return 1;
	}
	fprintf(cf, "instance,dist_seed,family,frames,accesses,distinct_pages,policy,swapins,params\n");
	for (i = 0; i < n; i++) {
		if (dist_draw(&tr, seed, i, lp->frames, &d)) {
			fprintf(stderr, "aws-sim: cannot draw instance %u\n", i);
			fclose(cf);
			return 1;
		}
		sim_notes_instance = i;
		if (run_all(&tr, lp, runs, nruns)) {
			fclose(cf);
			return 1;
		}
		for (k = 0; k < nruns; k++)
			fprintf(cf, "%u,%llu,%s,%lu,%zu,%u,%s,%llu,\"%s\"\n",
				i, (unsigned long long)seed,
				dist_family_name(d.family), lp->frames, tr.len,
				tr.npages, runs[k].name,
				(unsigned long long)sim_measured_swapins(&tr, &runs[k].st),
				d.params);
		trace_free(&tr);
		if ((i + 1) % 100 == 0 || i + 1 == n)
			fprintf(stderr, "aws-sim: %u of %u instances, %.0f s CPU\n",
				i + 1, n, sim_now() - t0);
	}
	if (fclose(cf)) {
		perror(csv);
		return 1;
	}
	return 0;
}

/* Open --notes @path and write its header; 0, or 1 with a message. */
static int notes_open(const char *path)
{
	unsigned int i;

	sim_notes = fopen(path, "w");
	if (!sim_notes) {
		perror(path);
		return 1;
	}
	fputs("# instance policy active_anon inactive_anon workingset", sim_notes);
	for (i = 0; i < AWS_NOTE_WORDS; i++)
		fprintf(sim_notes, " v%u", i);
	fputc('\n', sim_notes);
	return 0;
}

/* Close --notes, if open: @ret, or 1 if it could not be written. */
static int notes_close(int ret, const char *path)
{
	if (sim_notes && fclose(sim_notes)) {
		perror(path);
		ret = 1;
	}
	sim_notes = NULL;
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pattern", required_argument, NULL, 'p' },
		{ "trace", required_argument, NULL, 't' },
		{ "distribution", required_argument, NULL, 1014 },
		{ "dist-seed", required_argument, NULL, 1015 },
		{ "scale", required_argument, NULL, 's' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "zipf-pages", required_argument, NULL, 'z' },
		{ "accesses", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 'S' },
		{ "zipf-chunk", required_argument, NULL, 1010 },
		{ "zipf-threads", required_argument, NULL, 1011 },
		{ "randw-pages", required_argument, NULL, 1012 },
		{ "randw-threads", required_argument, NULL, 1013 },
		{ "cold-mb", required_argument, NULL, 1001 },
		{ "hot1-mb", required_argument, NULL, 1002 },
		{ "hot2-mb", required_argument, NULL, 1003 },
		{ "slice-mb", required_argument, NULL, 1004 },
		{ "hot-mb", required_argument, NULL, 1005 },
		{ "wave-mb", required_argument, NULL, 1006 },
		{ "scan-mb", required_argument, NULL, 1007 },
		{ "loop-mb", required_argument, NULL, 1008 },
		{ "loops", required_argument, NULL, 1009 },
		{ "frames", required_argument, NULL, 'f' },
		{ "frames-mb", required_argument, NULL, 'F' },
		{ "ratio", required_argument, NULL, 'R' },
		{ "policies", required_argument, NULL, 'P' },
		{ "fault-young", no_argument, NULL, 'y' },
		{ "refault-deactivate", no_argument, NULL, 'D' },
		{ "batch", no_argument, NULL, 1016 },
		{ "bucket-order", required_argument, NULL, 'b' },
		{ "clock-start", required_argument, NULL, 'c' },
		{ "file-mb", required_argument, NULL, 'm' },
		{ "csv", required_argument, NULL, 'C' },
		{ "hist", no_argument, NULL, 'H' },
		{ "save", required_argument, NULL, 'o' },
		{ "notes", required_argument, NULL, 1017 },
		{ "selftest", no_argument, NULL, 'T' },
		{ "list", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *pattern = "thrash", *trace_file = NULL, *csv = NULL;
	const char *save = NULL, *ratio_str = "1", *notes = NULL;
	const char *policies = NULL;	/* default_policies() */
	struct gen_params g;
	struct lru2_params lp = { .bucket_order = -1 };
	double frames_mb = 280, file_mb = 0;
	unsigned long frames = 0;
	bool hist = false, have_stock = false;
	struct run runs[64];
	const struct run *opt = NULL;
	struct trace tr;
	double lru2_sec = 0, t0;
	uint64_t lru2_acc = 0, opt_measured = 0;
	int nruns, i, c;
	FILE *cf = NULL;
	unsigned int dist_n = 0;
	uint64_t dist_seed = 1;

	gen_params_default(&g);
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			pattern = optarg;
			break;
		case 't':
			trace_file = optarg;
			break;
		case 's':
			g.scale = atof(optarg);
			break;
		case 'r':
			g.rounds = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'w':
			g.warmup = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'a':
			g.alpha = atof(optarg);
			break;
		case 'z':
			g.zipf_pages = strtoull(optarg, NULL, 0);
			break;
		case 'n':
			g.accesses = strtoull(optarg, NULL, 0);
			break;
		case 'S':
			g.seed = strtoull(optarg, NULL, 0);
			break;
		case 1010:
			g.zipf_chunk = strtoull(optarg, NULL, 0);
			break;
		case 1011:
			g.zipf_threads = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 1012:
			g.randw_pages = strtoull(optarg, NULL, 0);
			break;
		case 1013:
			g.randw_threads = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 1014:
			dist_n = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 1015:
			dist_seed = strtoull(optarg, NULL, 0);
			break;
		case 1001:
			g.cold_mb = atof(optarg);
			break;
		case 1002:
			g.hot1_mb = atof(optarg);
			break;
		case 1003:
			g.hot2_mb = atof(optarg);
			break;
		case 1004:
			g.slice_mb = atof(optarg);
			break;
		case 1005:
			g.hot_mb = atof(optarg);
			g.scan_hot_mb = g.hot_mb;
			break;
		case 1006:
			g.wave_mb = atof(optarg);
			break;
		case 1007:
			g.scan_mb = atof(optarg);
			break;
		case 1008:
			g.loop_mb = atof(optarg);
			break;
		case 1009:
			g.loops = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'f':
			frames = strtoul(optarg, NULL, 0);
			break;
		case 'F':
			frames_mb = atof(optarg);
			break;
		case 'R':
			ratio_str = optarg;
			break;
		case 'P':
			policies = optarg;
			break;
		case 'y':
			lp.fault_young = true;
			break;
		case 'D':
			lp.refault_deactivate = true;
			break;
		case 1016:
			lp.batch = true;
			break;
		case 'b':
			lp.bucket_order = atoi(optarg);
			break;
		case 'c':
			lp.clock_start = strtoul(optarg, NULL, 0);
			break;
		case 'm':
			file_mb = atof(optarg);
			break;
		case 'C':
			csv = optarg;
			break;
		case 'H':
			hist = true;
			break;
		case 'o':
			save = optarg;
			break;
		case 1017:
			notes = optarg;
			break;
		case 'T':
			return sim_selftest() ? 1 : 0;
		case 'L':
			for (i = 0; i < (int)aws_nr_policies; i++)
				printf("%s\n", aws_policies[i]->name);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || g.scale <= 0) {
		usage(stderr);
		return 2;
	}
	if (aws_ratio_parse(ratio_str, strlen(ratio_str), &lp.ratio)) {
		fprintf(stderr, "aws-sim: bad --ratio \"%s\"\n", ratio_str);
		return 2;
	}
	if (!frames)
		frames = mb_to_pages(frames_mb, g.scale);
	lp.file_pages = file_mb > 0 ? mb_to_pages(file_mb, g.scale) : 0;
	if (lp.file_pages >= frames) {
		fprintf(stderr, "aws-sim: --file-mb leaves no anon frames\n");
		return 2;
	}
	lp.frames = frames - lp.file_pages;
	if (!g.zipf_pages)
		g.zipf_pages = 2 * frames;
	if (!g.randw_pages)
		g.randw_pages = 2 * frames;

	nruns = parse_policies(policies, runs, (int)ARRAY_SIZE(runs));
	if (nruns <= 0)
		return 2;
	if (dist_n && (!csv || trace_file || lp.file_pages)) {
		fprintf(stderr, "aws-sim: --distribution needs --csv, and no --trace or --file-mb\n");
		return 2;
	}
	if (notes && notes_open(notes))
		return 1;
	if (dist_n)
		return notes_close(run_distribution(dist_n, dist_seed, &lp,
						    runs, nruns, csv), notes);

	t0 = sim_now();
	if (trace_file ? trace_load(&tr, trace_file) :
			 trace_generate(&tr, pattern, &g)) {
		fprintf(stderr, "aws-sim: cannot build trace \"%s\"\n",
			trace_file ? trace_file : pattern);
		return 2;
	}
	printf("aws-sim: %s\n", tr.desc);
	printf("  %zu accesses, %u distinct pages (%.1f MiB), built in %.2f s\n",
	       tr.len, tr.npages,
	       (double)tr.npages / (double)SIM_PAGES_PER_MB, sim_now() - t0);
	printf("  frames %lu (%.1f MiB)%s, ratio %s, fault-young %s\n",
	       frames, (double)frames / (double)SIM_PAGES_PER_MB,
	       lp.file_pages ? " incl. static page cache" : "", ratio_str,
	       lp.fault_young ? "on" : "off");
	if (save && trace_save(&tr, save))
		return 1;

	for (i = 0; i < nruns; i++) {
		struct run *r = &runs[i];
		int ret = run_one(&tr, &lp, r);

		if (r->kind == K_LRU2) {
			lru2_sec += r->st.seconds;
			lru2_acc += r->st.accesses;
			have_stock |= aws_policy_is_stock(r->policy);
		} else if (r->kind == K_OPT) {
			opt = r;
		}
		if (ret) {
			fprintf(stderr, "aws-sim: %s failed (out of memory?)\n",
				r->name);
			return notes_close(1, notes);
		}
	}
	if (notes_close(0, notes))
		return 1;
	for (i = 0; i < nruns; i++) {
		if (runs[i].kind == K_LRU2) {
			printf("  shadow bucket_order %u%s\n",
			       runs[i].st.bucket_order,
			       lp.batch ? ", batched reclaim (--batch)" :
			       lp.refault_deactivate ?
			       ", refault-driven deactivation on" : "");
			break;
		}
	}

	opt_measured = opt ? sim_measured_swapins(&tr, &opt->st) : 0;
	printf("\n%-9s %10s %10s %10s %10s %10s %9s %10s %7s %10s %7s\n",
	       "policy", "faults", "swap-ins", "swap-outs", "refaults",
	       "wsactivate", "restores", "rclactiv", "vs OPT", "measured",
	       "x OPT");
	for (i = 0; i < nruns; i++) {
		const struct sim_stats *s = &runs[i].st;
		uint64_t meas = sim_measured_swapins(&tr, s);
		char ratio[16] = "-", mratio[16] = "-";

		if (opt && opt->st.faults)
			snprintf(ratio, sizeof(ratio), "%.3f",
				 (double)s->faults / (double)opt->st.faults);
		if (opt && opt_measured)
			snprintf(mratio, sizeof(mratio), "%.3f",
				 (double)meas / (double)opt_measured);
		printf("%-9s %10llu %10llu %10llu %10llu %10llu %9llu %10llu %7s %10llu %7s\n",
		       runs[i].name, (unsigned long long)s->faults,
		       (unsigned long long)s->swapins,
		       (unsigned long long)s->evictions,
		       (unsigned long long)s->refaults,
		       (unsigned long long)s->refault_activations,
		       (unsigned long long)s->restores,
		       (unsigned long long)s->reclaim_activations, ratio,
		       (unsigned long long)meas, mratio);
	}
	if (!have_stock)
		printf("(stock: 6.1 runs the upstream algorithm but ignores --ratio; with no\n"
		       " file pages its clock and workingset size equal detect's and upstream's here)\n");
	for (i = 0; i < nruns; i++) {
		const struct sim_stats *s = &runs[i].st;

		if (runs[i].kind != K_MGLRU && runs[i].kind != K_MGLRU_BATCH)
			continue;
		printf("%s: %llu agings, %llu pages promoted by the walk, %llu by look-around,\n"
		       "  generations %llu-%llu (refaults: recent ones; wsactivate: protected by\n"
		       "  sort_folio(); rclactiv: young at the rmap check)\n",
		       runs[i].name, (unsigned long long)s->agings,
		       (unsigned long long)s->walk_promotions,
		       (unsigned long long)s->lookaround_promotions,
		       (unsigned long long)s->gens_min,
		       (unsigned long long)s->gens_max);
	}

	printf("\nspeed (CPU time):");
	if (lru2_sec > 0)
		printf(" two-list model %.1f M accesses/s (%llu accesses in %.3f s);",
		       (double)lru2_acc / lru2_sec / 1e6,
		       (unsigned long long)lru2_acc, lru2_sec);
	for (i = 0; i < nruns; i++) {
		const struct run *r = &runs[i];

		if (r->kind == K_LRU && r->st.seconds > 0)
			printf(" LRU %.1f M/s;",
			       (double)r->st.accesses / r->st.seconds / 1e6);
		if ((r->kind == K_MGLRU || r->kind == K_MGLRU_BATCH) &&
		    r->st.seconds > 0)
			printf(" %s %.1f M/s;", r->name,
			       (double)r->st.accesses / r->st.seconds / 1e6);
		if (r->kind == K_OPT)
			printf(" OPT %.3f s (next-use %.3f s + replay %.3f s)",
			       r->extra_seconds + r->st.seconds,
			       r->extra_seconds, r->st.seconds);
	}
	printf("\n");

	if (hist)
		for (i = 0; i < nruns; i++)
			print_hist(&runs[i]);

	if (csv) {
		cf = fopen(csv, "w");
		if (!cf) {
			perror(csv);
			return 1;
		}
		fprintf(cf, "trace,policy,frames,file_pages,ratio,fault_young,accesses,distinct_pages,faults,swapins,swapouts,refaults,refault_activations,restores,reclaim_activations,rotations,deactivations,psi_swapins,faults_vs_opt,seconds,accesses_per_sec,swapins_measured,swapins_measured_vs_opt,quiet_activations,active_kept\n");
		for (i = 0; i < nruns; i++) {
			const struct run *r = &runs[i];
			const struct sim_stats *s = &r->st;
			double secs = s->seconds + r->extra_seconds;

			fprintf(cf, "%s,%s,%lu,%lu,%s,%d,%llu,%u,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,",
				tr.name, r->name, lp.frames, lp.file_pages,
				ratio_str, lp.fault_young,
				(unsigned long long)s->accesses, tr.npages,
				(unsigned long long)s->faults,
				(unsigned long long)s->swapins,
				(unsigned long long)s->evictions,
				(unsigned long long)s->refaults,
				(unsigned long long)s->refault_activations,
				(unsigned long long)s->restores,
				(unsigned long long)s->reclaim_activations,
				(unsigned long long)s->rotations,
				(unsigned long long)s->deactivations,
				(unsigned long long)s->psi_swapins);
			if (opt && opt->st.faults)
				fprintf(cf, "%.4f,", (double)s->faults /
					(double)opt->st.faults);
			else
				fprintf(cf, ",");
			fprintf(cf, "%.4f,%.0f,%llu,", secs,
				secs > 0 ? (double)s->accesses / secs : 0.0,
				(unsigned long long)sim_measured_swapins(&tr, s));
			if (opt_measured)
				fprintf(cf, "%.4f,",
					(double)sim_measured_swapins(&tr, s) /
					(double)opt_measured);
			else
				fprintf(cf, ",");
			fprintf(cf, "%llu,%llu\n",
				(unsigned long long)s->quiet_activations,
				(unsigned long long)s->active_kept);
		}
		if (fclose(cf)) {
			perror(csv);
			return 1;
		}
	}
	trace_free(&tr);
	return 0;
}
