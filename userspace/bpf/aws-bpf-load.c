// SPDX-License-Identifier: GPL-2.0
/*
 * aws-bpf-load - attach a BPF anon LRU policy and keep it attached
 *
 * usage: aws-bpf-load [-g] [-c CGROUP] [-D] [-n NAME] [-s VAR=N]... [-u VAR=N]...
 *                     POLICY.bpf.o
 *
 * Loads the one struct aws_bpf_ops in POLICY.bpf.o (the verifier checks
 * every program; the end of its log is printed if it refuses one, its last
 * lines say why), attaches it with
 * a BPF link, so that anon_workingset.ko lists it as a policy, and with -g
 * selects it as the global policy (the `policy` module parameter), with -c
 * for the memory cgroup at path CGROUP: the link carries the cgroup's id
 * (the ops' cgroup_id), so the module attaches and selects it in one step,
 * and refuses the attach if CGROUP is no memory cgroup below the root.  -D
 * drops CAP_SYS_ADMIN from the effective set between the load and the
 * attach: the attach of a task that could load the program but has no
 * CAP_SYS_ADMIN, which the module refuses (a test).  -n attaches the
 * policy as NAME instead of the name in the object, and -s sets the
 * policy's `const volatile` integer VAR (its .rodata) to N before the
 * load: so one object runs as two policies with different settings
 * side by side.  Then
 * it prints "attached NAME" and waits until it is told to stop (SIGINT,
 * SIGTERM) or the link is detached from outside (bpftool link detach).
 * On SIGHUP it loads POLICY.bpf.o again, as it is on disk then, with the
 * same -n, -c and -s, then each -u VAR=N, and replaces the attached
 * program with it through the link (BPF_LINK_UPDATE): the policy stays
 * selected where it was, with its state and shadows, and no policy switch
 * happens.  It prints "updated NAME", or why not ("not updated NAME": the
 * verifier's or the module's reason; the module keeps the name, clock,
 * state size, cgroup and members of the attach) and keeps the program
 * it had.
 * Before it lets go it prints the policy's global variables (its .bss and
 * .data: counters a policy keeps for its author), "NAME globals: VAR=N
 * ...", for every integer of up to 8 bytes.
 * When the link goes -- on a stop, or because this process dies, even by
 * SIGKILL -- the module hands every user of the policy back to the policy
 * it ran before.  The pattern is that of the kernel's tools/sched_ext
 * loaders: open, load, attach, wait, destroy the link.
 *
 * Exit status: 0 after a clean detach, 1 if the policy could not be
 * loaded or attached (the reason is printed: the end of the verifier's
 * log, and the module's own messages, read back from the kernel log
 * where it wrote them), 2 for bad usage, 3 if the module ejected it (a
 * callback ran over the module's bpf_budget_ms; the module's message
 * printed).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/magic.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#define POLICY_PARAM	"/sys/module/anon_workingset/parameters/policy"
#define VERIFIER_LOG	(1 << 20)

static volatile sig_atomic_t stopping, updating;

static void on_signal(int sig)
{
	if (sig == SIGHUP)
		updating = 1;
	else
		stopping = 1;
}

static int print_libbpf(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/*
 * The kernel log from here on (-1 if it cannot be read): the module says
 * there why it refuses a policy, and kmsg_reasons() prints its lines.
 */
static int kmsg_from_now(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	if (fd >= 0)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/*
 * The module's kernel log records since kmsg_from_now() not read yet (all
 * of them, or with @name only those about policy @name), on stderr; true
 * if one says the module ejected it.  A refusal's reason is the module's
 * last record: some cannot name the policy (a sleepable program, a bad
 * name).
 */
static bool kmsg_reasons(int fd, const char *name)
{
	char rec[2048], about[64] = "";
	bool ejected = false;
	const char *msg;
	ssize_t n;

	if (fd < 0)
		return false;
	if (name)
		snprintf(about, sizeof(about), "BPF policy %s", name);
	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* records overwritten: go on */
		if (n <= 0)
			break;
		rec[n] = '\0';
		msg = strchr(rec, ';');	/* after "level,seq,time,flags;" */
		if (!msg || strncmp(msg + 1, "anon_workingset: ", 17) ||
		    !strstr(msg, about))
			continue;
		fprintf(stderr, "aws-bpf-load: the module said: %s", msg + 18);
		ejected |= strstr(msg, " ejected: ") != NULL;
	}
	return ejected;
}

/* -D: CAP_SYS_ADMIN out of the effective set, the others kept. */
static bool drop_sys_admin(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &h, d))
		return false;
	d[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective &= ~CAP_TO_MASK(CAP_SYS_ADMIN);
	return syscall(SYS_capset, &h, d) == 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: aws-bpf-load [-g] [-c CGROUP] [-D] [-n NAME] [-s VAR=N]... [-u VAR=N]... POLICY.bpf.o\n");
	exit(2);
}

/*
 * Member @member of the ops in @map's initial value, found by its BTF
 * member, and its size in *@room.
 */
static char *ops_member(struct bpf_object *obj, struct bpf_map *map,
			const char *member, size_t *room)
{
	const struct btf *btf = bpf_object__btf(obj);
	const struct btf_type *t;
	const struct btf_member *m;
	char *data;
	size_t size, off;
	int i;

	data = bpf_map__initial_value(map, &size);
	t = btf ? btf__type_by_id(btf, bpf_map__btf_value_type_id(map)) : NULL;
	if (!data || !t || !btf_is_struct(t))
		return NULL;
	m = btf_members(t);
	for (i = 0; i < btf_vlen(t); i++, m++) {
		off = btf_member_bit_offset(t, i) / 8;
		if (strcmp(btf__name_by_offset(btf, m->name_off), member) ||
		    off >= size || btf__resolve_size(btf, m->type) <= 0)
			continue;
		*room = btf__resolve_size(btf, m->type);
		if (off + *room > size)
			return NULL;
		return data + off;
	}
	return NULL;
}

/*
 * Call @fn for each integer variable of up to 8 bytes in @obj's maps whose
 * name ends in one of @suffixes (".bss", ...; NULL ends the list): its
 * name, where its value is (the map's memory-mapped value: the programs'
 * own copy once loaded, settable before) and its size.  Stops, and
 * returns true, when @fn returns true.
 */
typedef bool (*global_fn)(const char *var, unsigned char *value,
			  unsigned int size, void *ctx);

static bool for_each_global(struct bpf_object *obj, const char *const *suffixes,
			    global_fn fn, void *ctx)
{
	const struct btf *btf = bpf_object__btf(obj);
	const struct btf_var_secinfo *v;
	const struct btf_type *t, *vt;
	const char *const *sfx;
	unsigned char *data;
	struct bpf_map *map;
	size_t size, len;
	const char *mn;
	int i;

	bpf_object__for_each_map(map, obj) {
		mn = bpf_map__name(map);
		len = strlen(mn);
		for (sfx = suffixes; *sfx; sfx++)
			if (len >= strlen(*sfx) && !strcmp(mn + len - strlen(*sfx), *sfx))
				break;
		if (!btf || !*sfx)
			continue;
		data = bpf_map__initial_value(map, &size);
		t = btf__type_by_id(btf, bpf_map__btf_value_type_id(map));
		if (!data || !t || !btf_is_datasec(t))
			continue;
		v = btf_var_secinfos(t);
		for (i = 0; i < btf_vlen(t); i++, v++) {
			vt = btf__type_by_id(btf, v->type);
			if (!vt || !btf_is_var(vt) || v->offset + v->size > size)
				continue;
			mn = btf__name_by_offset(btf, vt->name_off);
			vt = btf__type_by_id(btf, btf__resolve_type(btf, vt->type));
			if (vt && btf_is_int(vt) && v->size <= sizeof(__u64) &&
			    fn(mn, data + v->offset, v->size, ctx))
				return true;
		}
	}
	return false;
}

/* -s VAR=N, as set_rodata() finds VAR */
struct rodata_set {
	const char *arg;
	size_t len;		/* of VAR */
	unsigned long long x;
	char names[512];	/* the variables there are */
	bool too_big;
};

static bool rodata_one(const char *var, unsigned char *value, unsigned int size,
		       void *ctx)
{
	struct rodata_set *r = ctx;

	if (strlen(r->names) + strlen(var) + 2 < sizeof(r->names))
		strcat(strcat(r->names, " "), var);
	if (strlen(var) != r->len || strncmp(var, r->arg, r->len))
		return false;
	if (size < sizeof(r->x) && r->x >> (8 * size)) {
		fprintf(stderr, "aws-bpf-load: -s %s: %s has %u bytes\n", r->arg, var, size);
		r->too_big = true;
		return true;
	}
	memcpy(value, &r->x, size);	/* little endian */
	return true;
}

/* @arg (-@opt's) as VAR=N into @r; false, with a message, if it is not. */
static bool parse_set(struct rodata_set *r, const char *arg, char opt)
{
	const char *eq = strchr(arg, '=');
	char *end;

	*r = (struct rodata_set){ .arg = arg };
	errno = 0;
	if (eq && eq != arg && eq[1])
		r->x = strtoull(eq + 1, &end, 0);
	if (!eq || eq == arg || !eq[1] || errno || *end) {
		fprintf(stderr, "aws-bpf-load: -%c %s: not VAR=N\n", opt, arg);
		return false;
	}
	r->len = eq - arg;
	return true;
}

/*
 * -s (or -u, @opt) VAR=N: set @obj's const volatile integer VAR in its
 * .rodata, before the load; false, with a message (the variables there
 * are), if it has none of that name or N does not fit.
 */
static bool set_rodata(struct bpf_object *obj, const char *arg, char opt)
{
	static const char *const rodata[] = { ".rodata", NULL };
	struct rodata_set r;

	if (!parse_set(&r, arg, opt))
		return false;
	if (for_each_global(obj, rodata, rodata_one, &r))
		return !r.too_big;
	fprintf(stderr, "aws-bpf-load: -%c %s: no such const volatile integer; there are:%s\n",
		opt, arg, r.names[0] ? r.names : " none");
	return false;
}

static bool print_one(const char *var, unsigned char *value, unsigned int size,
		      void *ctx)
{
	unsigned long long x = 0;

	memcpy(&x, value, size);	/* little endian */
	printf("%s%s=%llu", (*(int *)ctx)++ ? " " : "", var, x);
	return false;
}

/*
 * Print the integer globals of @obj's .bss and .data maps (read from their
 * memory-mapped values, which the programs update in place), one line.
 */
static void print_globals(struct bpf_object *obj, const char *name)
{
	static const char *const globals[] = { ".bss", ".data", NULL };
	int n = 0;

	for_each_global(obj, globals, print_one, &n);
	if (n)
		printf(" (%s globals)\n", name);
	fflush(stdout);
}

/*
 * -c CGROUP: the cgroup2 directory's id (its inode number) into the ops'
 * cgroup_id, for the module to select the policy for when it attaches.
 */
static bool set_cgroup(struct bpf_object *obj, struct bpf_map *ops,
		       const char *cgroup)
{
	struct statfs sfs;
	struct stat st;
	size_t room = 0;
	__u64 id;
	char *p;

	if (statfs(cgroup, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC ||
	    stat(cgroup, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "aws-bpf-load: -c %s: not a cgroup2 directory\n", cgroup);
		return false;
	}
	p = ops_member(obj, ops, "cgroup_id", &room);
	if (!p || room != sizeof(id)) {
		fprintf(stderr, "aws-bpf-load: the module's struct aws_bpf_ops has no cgroup_id\n");
		return false;
	}
	id = st.st_ino;
	memcpy(p, &id, sizeof(id));
	return true;
}

/* Write @name into @path (a policy file); false, with a message, if refused. */
static bool select_policy(const char *path, const char *name)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0) {
		fprintf(stderr, "aws-bpf-load: %s: %s\n", path, strerror(errno));
		return false;
	}
	n = write(fd, name, strlen(name));
	if (n < 0)
		fprintf(stderr, "aws-bpf-load: writing %s to %s: %s\n", name,
			path, strerror(errno));
	close(fd);
	return n >= 0;
}

/* What the command line asks of every load of the object. */
struct load_args {
	const char *path, *cgroup, *rename;
	const char *sets[32];	/* -s, then for an update -u */
	int nsets, nupdate;
	bool update;		/* with the -u settings */
};

/*
 * Open @a->path, set its ops' name, .rodata and cgroup as @a asks and load
 * it (the verifier checks every program): the object, with its ops map in
 * *@ops and its name in *@name; or NULL, the reason printed (the end of
 * the verifier's log if it refused a program) and *@status 2 for bad usage.
 */
static struct bpf_object *load_policy(const struct load_args *a,
				      struct bpf_map **ops, char **name,
				      int *status)
{
	static char log[VERIFIER_LOG];
	LIBBPF_OPTS(bpf_object_open_opts, opts, .kernel_log_buf = log,
		    .kernel_log_size = sizeof(log));
	int i, n = a->nsets + (a->update ? a->nupdate : 0);
	struct bpf_object *obj;
	struct bpf_map *map;
	size_t room = 0;

	*ops = NULL;
	log[0] = '\0';
	obj = bpf_object__open_file(a->path, &opts);
	if (!obj) {
		fprintf(stderr, "aws-bpf-load: cannot open %s: %s\n", a->path,
			strerror(errno));
		return NULL;
	}
	bpf_object__for_each_map(map, obj) {
		if (bpf_map__type(map) != BPF_MAP_TYPE_STRUCT_OPS)
			continue;
		if (*ops) {
			fprintf(stderr, "aws-bpf-load: %s holds more than one policy\n",
				a->path);
			goto fail;
		}
		*ops = map;
	}
	*name = *ops ? ops_member(obj, *ops, "name", &room) : NULL;
	if (!*name) {
		fprintf(stderr, "aws-bpf-load: %s holds no struct aws_bpf_ops with a name\n",
			a->path);
		goto fail;
	}
	/* the module checks the name itself; here only that it fits */
	if (a->rename && strlen(a->rename) >= room) {
		fprintf(stderr, "aws-bpf-load: -n %s: a name has at most %zu characters\n",
			a->rename, room - 1);
		*status = 2;
		goto fail;
	}
	if (a->rename) {
		memset(*name, 0, room);
		memcpy(*name, a->rename, strlen(a->rename));
	}
	for (i = 0; i < n; i++) {
		if (!set_rodata(obj, a->sets[i], i < a->nsets ? 's' : 'u')) {
			*status = 2;
			goto fail;
		}
	}
	if (a->cgroup && !set_cgroup(obj, *ops, a->cgroup)) {
		*status = 2;
		goto fail;
	}
	/* Attached or updated by the caller, once everything is loaded. */
	bpf_map__set_autoattach(*ops, false);
	if (bpf_object__load(obj)) {
		/* the verifier's reasons are at the end of its log */
		if (log[0])
			fprintf(stderr, "-- verifier log --\n%s-- end of verifier log --\n",
				log);
		fprintf(stderr, "aws-bpf-load: %s: the kernel refused to load it: %s\n",
			*name, strerror(errno));
		goto fail;
	}
	return obj;
fail:
	bpf_object__close(obj);
	return NULL;
}

/*
 * SIGHUP: load the object again with the -u settings and replace @link's
 * program with it; *@obj becomes the new object.  The reason is printed
 * if the verifier or the module refuses, and the old program stays.
 */
static void update_policy(struct load_args *a, struct bpf_link *link,
			  struct bpf_object **obj, const char *name)
{
	int kmsg = kmsg_from_now(), status = 1, err = 0;
	struct bpf_object *next;
	struct bpf_map *ops;
	char *next_name;

	a->update = true;
	next = load_policy(a, &ops, &next_name, &status);
	if (next) {
		err = bpf_link__update_map(link, ops);
		if (err)
			fprintf(stderr, "aws-bpf-load: %s: the kernel refused the update: %s\n",
				name, strerror(-err));
	}
	if (!next || err) {
		kmsg_reasons(kmsg, NULL);
		bpf_object__close(next);
		printf("not updated %s\n", name);
	} else {
		bpf_object__close(*obj);
		*obj = next;
		printf("updated %s\n", name);
	}
	fflush(stdout);
	if (kmsg >= 0)
		close(kmsg);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct load_args a = { .path = NULL };
	char *name, attached[64] = "";
	struct bpf_link *link = NULL;
	struct bpf_object *obj;
	bool global = false, nocap = false;
	const char *updates[16];
	int opt, status = 1, kmsg;
	sigset_t block, unblocked;
	struct bpf_map *ops;
	struct pollfd pfd;

	while ((opt = getopt(argc, argv, "gc:Dn:s:u:")) != -1) {
		if (opt == 'g')
			global = true;
		else if (opt == 'D')
			nocap = true;
		else if (opt == 'c')
			a.cgroup = optarg;
		else if (opt == 'n')
			a.rename = optarg;
		else if (opt == 's' && a.nsets < 16)
			a.sets[a.nsets++] = optarg;
		else if (opt == 'u' && a.nupdate < 16)
			updates[a.nupdate++] = optarg;
		else
			usage();
	}
	/* checked now, not at the first SIGHUP (their variables: then) */
	for (opt = 0; opt < a.nupdate; opt++) {
		struct rodata_set r;

		if (!parse_set(&r, updates[opt], 'u'))
			return 2;
	}
	if (optind != argc - 1)
		usage();
	a.path = argv[optind];
	memcpy(a.sets + a.nsets, updates, a.nupdate * sizeof(*updates));
	libbpf_set_print(print_libbpf);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	kmsg = kmsg_from_now();
	obj = load_policy(&a, &ops, &name, &status);
	if (!obj) {
		kmsg_reasons(kmsg, NULL);
		goto out;
	}
	snprintf(attached, sizeof(attached), "%s", name);
	if (nocap && !drop_sys_admin()) {
		fprintf(stderr, "aws-bpf-load: cannot drop CAP_SYS_ADMIN: %s\n",
			strerror(errno));
		goto out;
	}
	link = bpf_map__attach_struct_ops(ops);
	if (!link) {
		fprintf(stderr, "aws-bpf-load: %s: the kernel refused to attach it: %s\n",
			name, strerror(errno));
		kmsg_reasons(kmsg, NULL);
		goto out;
	}
	if (global && !select_policy(POLICY_PARAM, name)) {
		kmsg_reasons(kmsg, NULL);
		goto out;
	}
	printf("attached %s%s%s\n", name, a.cgroup ? " for " : "", a.cgroup ? a.cgroup : "");
	fflush(stdout);

	/* the signals arrive only inside ppoll(), so none is missed */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &unblocked);
	pfd = (struct pollfd){ .fd = bpf_link__fd(link), .events = POLLIN };
	while (!stopping) {
		if (updating) {
			updating = 0;
			update_policy(&a, link, &obj, attached);
			continue;
		}
		if (ppoll(&pfd, 1, NULL, &unblocked) > 0 && (pfd.revents & POLLHUP)) {
			printf("%s detached from outside\n", attached);
			fflush(stdout);
			break;
		}
	}
	print_globals(obj, attached);
	/* the module's way out: a callback over its budget */
	status = stopping || !kmsg_reasons(kmsg, attached) ? 0 : 3;
	if (status)
		fprintf(stderr, "aws-bpf-load: %s: ejected by the module\n", attached);
out:
	if (kmsg >= 0)
		close(kmsg);
	bpf_link__destroy(link);
	bpf_object__close(obj);
	if (!status) {
		printf("detached %s\n", attached);
		fflush(stdout);
	}
	return status;
}
