// SPDX-License-Identifier: GPL-2.0
/*
 * aws-trace-summary: the figures of a window of the module's trace events
 * (module/aws_trace.h), from the text trace-cmd report (or tracefs's
 * trace file) prints, as "key value" lines that the guest suites read
 * into an array (harness/guest/lib-trace.sh says what each key means).
 *
 * It is the guest's one pass over 100,000 events a window: under TCG
 * an awk script took 5 to 7 s of CPU a window for what this does in a
 * fraction of one, and the trace windows were a third of the bpf suite.
 *
 * A line is an event when one of its words is "aws_NAME:"; the words
 * after it are its FIELD=VALUE pairs.  Any other line only counts, as
 * report_lost, when it says events were dropped or lost.  Numbers are
 * read as awk reads them (a decimal prefix, 0 when there is none); two
 * comparisons are of the text, as the awk's were: an id against "0" and
 * "0x0", and workingset_size against active_anon.
 *
 *   aws-trace-summary [FILE]      FILE or standard input
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 32
#define TABLE_SLOTS 8192	/* keys: a few hundred per window */
#define KEY_MAX 128

struct counter {
	char key[KEY_MAX];
	long long value;
	int used;
};

static struct counter table[TABLE_SLOTS];
static unsigned int nr_keys;

static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static struct counter *slot(const char *key)
{
	uint32_t i = hash(key) & (TABLE_SLOTS - 1);

	while (table[i].used && strcmp(table[i].key, key))
		i = (i + 1) & (TABLE_SLOTS - 1);
	if (!table[i].used) {
		if (++nr_keys > TABLE_SLOTS / 2) {
			fprintf(stderr, "aws-trace-summary: more than %d keys\n", TABLE_SLOTS / 2);
			exit(2);
		}
		if (snprintf(table[i].key, KEY_MAX, "%s", key) >= KEY_MAX) {
			fprintf(stderr, "aws-trace-summary: key too long: %s\n", key);
			exit(2);
		}
		table[i].used = 1;
	}
	return &table[i];
}

/* add V to the counter named by FMT, ... */
static void addf(long long v, const char *fmt, ...)
{
	char key[KEY_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(key, sizeof(key), fmt, ap);
	va_end(ap);
	slot(key)->value += v;
}

struct event {
	const char *name[MAX_FIELDS];
	const char *value[MAX_FIELDS];
	int n;
};

/* the field's text, "" when the event has none (as awk's f[k]) */
static const char *field(const struct event *e, const char *name)
{
	for (int i = 0; i < e->n; i++)
		if (!strcmp(e->name[i], name))
			return e->value[i];
	return "";
}

/* the field as awk's f[k] + 0: its decimal prefix, 0 without one */
static long long num(const struct event *e, const char *name)
{
	return strtoll(field(e, name), NULL, 10);
}

static void refault(const struct event *e, const char *policy)
{
	long long nr = num(e, "nr_pages"), act = num(e, "activate");
	long long dist = num(e, "distance"), ws = num(e, "workingset_size");
	const char *id = field(e, "id");

	addf(nr, "refault");
	if (!strcmp(id, "0") || !strcmp(id, "0x0"))
		addf(nr, "refault_no_id");
	addf(act * nr, "refault_activate");
	addf(num(e, "restore") * nr, "refault_restore");
	if (act != (dist <= ws))
		addf(1, "verdict_bad");
	if (strcmp(field(e, "workingset_size"), field(e, "active_anon")))
		addf(1, "size_not_active_anon");
	if (dist > ws) {
		addf(1, "verdict_long");
		addf(act, "verdict_long_in");
		addf(1, "long_%s", policy);
		addf(act, "long_in_%s", policy);
	} else {
		addf(1, "short_%s", policy);
		if (!act)
			addf(1, "short_out_%s", policy);
	}
	addf(1, act ? "verdict_in" : "verdict_out");
}

static void event(const char *ev, const struct event *e)
{
	const char *policy = field(e, "policy"), *memcg = field(e, "memcg");
	long long nr = num(e, "nr_pages");

	addf(1, "events");
	addf(1, "%s", ev);
	addf(1, "policy_%s_%s", policy, ev);
	if (strcmp(ev, "aws_switch") && *memcg) {
		char key[KEY_MAX];

		snprintf(key, sizeof(key), "memcg_%s_%s", policy, memcg);
		slot(key)->value = 1;
	}
	if (!strcmp(ev, "aws_place")) {
		addf(nr, num(e, "active") ? "place_active" : "place_inactive");
	} else if (!strcmp(ev, "aws_evict")) {
		addf(nr, num(e, "shadow") ? "evict_shadow" : "evict_noshadow");
	} else if (!strcmp(ev, "aws_refault")) {
		refault(e, policy);
	} else if (!strcmp(ev, "aws_activate")) {
		addf(nr, "activate_%s", field(e, "reason"));
	} else if (!strcmp(ev, "aws_age")) {
		addf(num(e, "aged") * nr, "age_aged");
	} else if (!strcmp(ev, "aws_switch")) {
		addf(num(e, "swept"), "swept");
		addf(1, "switch_%s_%s", field(e, "scope"), policy);
	} else if (!strcmp(ev, "aws_note")) {
		addf(1, "note_%s_v0_%s", policy, field(e, "v0"));
	}
}

/* an event name word: "aws_" then lower-case letters, then ':' */
static int event_word(const char *w, size_t len)
{
	if (len < 6 || strncmp(w, "aws_", 4) || w[len - 1] != ':')
		return 0;
	for (size_t i = 4; i < len - 1; i++)
		if (w[i] < 'a' || w[i] > 'z')
			return 0;
	return 1;
}

/* LINE's event, if it is one: 1, else 0 */
static int line(char *s)
{
	char *save, *w, *ev = NULL;
	struct event e = { .n = 0 };

	for (w = strtok_r(s, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		size_t len = strlen(w);
		char *eq;

		if (!ev) {
			if (event_word(w, len)) {
				w[len - 1] = '\0';
				ev = w;
			}
			continue;
		}
		eq = strchr(w, '=');
		if (!eq)
			continue;
		if (e.n == MAX_FIELDS) {
			fprintf(stderr, "aws-trace-summary: more than %d fields: %s\n", MAX_FIELDS, ev);
			exit(2);
		}
		*eq = '\0';
		e.name[e.n] = w;
		e.value[e.n++] = eq + 1;
	}
	if (ev)
		event(ev, &e);
	return ev != NULL;
}

int main(int argc, char **argv)
{
	FILE *in = stdin;
	char *buf = NULL;
	size_t cap = 0;

	if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
		fprintf(stderr, "usage: aws-trace-summary [FILE]\n");
		return 2;
	}
	if (argc == 2 && !(in = fopen(argv[1], "r"))) {
		fprintf(stderr, "aws-trace-summary: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	while (getline(&buf, &cap, in) >= 0) {
		int says_lost = strstr(buf, "EVENTS DROPPED") || strstr(buf, "LOST");

		if (!line(buf) && says_lost)
			addf(1, "report_lost");
	}
	free(buf);
	for (unsigned int i = 0; i < TABLE_SLOTS; i++)
		if (table[i].used)
			printf("%s %lld\n", table[i].key, table[i].value);
	return ferror(in) ? 2 : 0;
}
