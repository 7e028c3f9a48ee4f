// SPDX-License-Identifier: GPL-2.0
/*
 * Parsing of the "policy" and "ratio" module parameters as written to
 * sysfs: the buffer comes with an explicit length and is not trusted.
 * Policy names are looked up with aws_policy_find() over the registry
 * (module/policies/registry.c), whatever names it holds.
 */
#include <string.h>

#include <linux/types.h>
#include "aws_policy.h"
#include "tests.h"

struct parse_input {
	const char *buf;
	size_t len;	/* 0 with a non-empty buf means strlen(buf) */
	const char *what;
};

static size_t input_len(const struct parse_input *in)
{
	return in->len ? in->len : strlen(in->buf);
}

/* A 4096-byte buffer, the size of a sysfs write, filled with @c. */
static const char *page_of(char c)
{
	static char buf[2][4096];
	char *b = buf[c == '1'];

	memset(b, c, sizeof(buf[0]));
	return b;
}

/* Is buf[0..len) exactly a registry name? (Not via aws_policy_find().) */
static bool is_name(const char *buf, size_t len)
{
	unsigned int i;

	for (i = 0; i < aws_nr_policies; i++)
		if (strlen(aws_policies[i]->name) == len &&
		    !memcmp(aws_policies[i]->name, buf, len))
			return true;
	return false;
}

/* Names: short enough for the parameter, non-empty, lower case, unique. */
static void test_policy_names(struct aws_tc *tc)
{
	unsigned int i, j;

	CHECK(tc, aws_nr_policies >= 1, "empty registry");
	for (i = 0; i < aws_nr_policies; i++) {
		const char *name = aws_policies[i]->name;
		size_t n = strlen(name), k;

		CHECK(tc, n >= 1 && n <= AWS_POLICY_NAME_MAX,
		      "\"%s\": %zu chars", name, n);
		for (k = 0; k < n; k++)
			CHECK(tc, (name[k] >= 'a' && name[k] <= 'z') ||
			      (name[k] >= '0' && name[k] <= '9') ||
			      name[k] == '_', "\"%s\": char %zu", name, k);
		for (j = i + 1; j < aws_nr_policies; j++)
			CHECK(tc, strcmp(name, aws_policies[j]->name),
			      "\"%s\" twice", name);
	}
}

/* Every registry name is found, as written and as echo(1) writes it. */
static void test_policy_find_good(struct aws_tc *tc)
{
	char buf[AWS_POLICY_NAME_MAX + 2];
	unsigned int i;

	for (i = 0; i < aws_nr_policies; i++) {
		const struct aws_policy *want = aws_policies[i];
		const char *name = want->name;
		size_t n = strlen(name);
		const struct aws_policy *got;

		if (n > AWS_POLICY_NAME_MAX)
			continue;	/* test_policy_names() fails */
		got = aws_policy_find(name, n);
		CHECK(tc, got == want, "\"%s\" not found", name);

		/* as echo(1) writes it; not NUL-terminated within len */
		memcpy(buf, name, n);
		buf[n] = '\n';
		buf[n + 1] = 'X';
		got = aws_policy_find(buf, n + 1);
		CHECK(tc, got == want, "\"%s\\n\" not found", name);

		/* a length shorter than the buffer limits what is parsed */
		buf[n] = 'x';
		got = aws_policy_find(buf, n);
		CHECK(tc, got == want, "prefix of \"%sx\" not found", name);
	}
}

/* Inputs that are no name, whatever the registry holds. */
static void test_policy_find_bad_fixed(struct aws_tc *tc)
{
	const struct parse_input bad[] = {
		{ "", 0, "empty" },
		{ "\n", 0, "newline only" },
		{ "\n\n", 0, "two newlines" },
		{ "\0", 1, "NUL only" },
		{ "lru", 0, "a simulator-only name" },
		{ "opt", 0, "a simulator-only name" },
		{ "0", 0, "number" },
		{ "3", 0, "index" },
		{ "invalid", 0, "the old out-of-range name" },
		{ page_of('a'), 4096, "4096 chars" },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		size_t len = input_len(&bad[i]);

		if (is_name(bad[i].buf, len))
			continue;	/* a policy may really be called "opt" */
		CHECK(tc, !aws_policy_find(bad[i].buf, len), "%s accepted",
		      bad[i].what);
	}
	/* a NULL buffer of length 0 is never read */
	CHECK(tc, !aws_policy_find(NULL, 0), "NULL accepted");
}

/*
 * Every name, mangled: each variant must be rejected unless it happens to
 * be another registry name.
 */
static void test_policy_find_bad_names(struct aws_tc *tc)
{
	static char big[4096];
	unsigned int i;

	for (i = 0; i < aws_nr_policies; i++) {
		const char *name = aws_policies[i]->name;
		size_t n = strlen(name), k;
		struct {
			char buf[2 * AWS_POLICY_NAME_MAX + 4];
			size_t len;
			const char *what;
		} v[20];
		unsigned int nv = 0, j;

		if (!n || n > AWS_POLICY_NAME_MAX)
			continue;	/* test_policy_names() fails */
#define VARIANT(what_, ...)						\
		do {							\
			v[nv].len = (size_t)snprintf(v[nv].buf,		\
					sizeof(v[nv].buf), __VA_ARGS__); \
			v[nv++].what = (what_);				\
		} while (0)
		VARIANT("two trailing newlines", "%s\n\n", name);
		VARIANT("leading space", " %s", name);
		VARIANT("trailing space", "%s ", name);
		VARIANT("tab before newline", "%s\t\n", name);
		VARIANT("space before newline", "%s \n", name);
		VARIANT("leading tab", "\t%s", name);
		VARIANT("text after newline", "%s\nx", name);
		VARIANT("leading newline", "\n%s", name);
		VARIANT("repeated", "%s%s", name, name);
		VARIANT("suffix", "%sx", name);
		VARIANT("prefix", "%.*s", (int)(n - 1), name);
		/* one over the limit, starting with the name */
		VARIANT("too long", "%s%.*s", name,
			(int)(AWS_POLICY_NAME_MAX + 1 - n), "xxxxxxxxxxxxxxxxx");
		VARIANT("upper case", "%s", name);
		for (k = 0; k < n; k++)
			if (v[nv - 1].buf[k] >= 'a' && v[nv - 1].buf[k] <= 'z')
				v[nv - 1].buf[k] -= 'a' - 'A';
		VARIANT("capitalised", "%s", name);
		if (v[nv - 1].buf[0] >= 'a' && v[nv - 1].buf[0] <= 'z')
			v[nv - 1].buf[0] -= 'a' - 'A';
		/* NULs inside the length: snprintf() cannot write those */
		VARIANT("trailing NUL", "%s", name);
		v[nv - 1].len = n + 1;
		VARIANT("embedded NUL", "%.*s_%s", (int)(n / 2), name,
			name + n / 2);
		v[nv - 1].buf[n / 2] = '\0';
#undef VARIANT

		for (j = 0; j < nv; j++) {
			if (is_name(v[j].buf, v[j].len))
				continue;
			CHECK(tc, !aws_policy_find(v[j].buf, v[j].len),
			      "\"%s\": %s accepted", name, v[j].what);
		}
		/* a leading NUL */
		v[0].buf[0] = '\0';
		memcpy(v[0].buf + 1, name, n);
		CHECK(tc, !aws_policy_find(v[0].buf, n + 1),
		      "\"%s\": leading NUL accepted", name);

		/* 4096 bytes whose first ones are the name: too long */
		memset(big, '\n', sizeof(big));
		memcpy(big, name, n);
		CHECK(tc, !aws_policy_find(big, sizeof(big)),
		      "%s + %zu newlines accepted", name, sizeof(big) - n);
	}
}

static void test_ratio_parse_good(struct aws_tc *tc)
{
	const struct {
		const char *buf;
		unsigned int want;
	} good[] = {
		{ "auto", AWS_RATIO_AUTO },
		{ "auto\n", AWS_RATIO_AUTO },
		{ "1", 1 },
		{ "1\n", 1 },
		{ "2", 2 },
		{ "10", 10 },
		{ "100", 100 },
		{ "999", 999 },
		{ "1000", 1000 },
		{ "1023", 1023 },
		{ "1024", 1024 },
		{ "1024\n", 1024 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		unsigned int out = 77777;
		int ret = aws_ratio_parse(good[i].buf, strlen(good[i].buf),
					  &out);

		CHECK(tc, ret == 0 && out == good[i].want, "\"%s\": %d/%u",
		      good[i].buf, ret, out);
	}
	{
		unsigned int out = 0;

		/* length excludes the trailing junk */
		CHECK(tc, aws_ratio_parse("12x", 2, &out) == 0 && out == 12,
		      "len-limited \"12\": %u", out);
	}
	CHECK(tc, AWS_RATIO_MAX == 1024 && AWS_RATIO_AUTO == 0, "constants");
}

static void test_ratio_parse_bad(struct aws_tc *tc)
{
	const struct parse_input bad[] = {
		{ "", 0, "empty" },
		{ "\n", 0, "newline only" },
		{ "0", 0, "zero" },
		{ "0\n", 0, "zero newline" },
		{ "00", 0, "double zero" },
		{ "01", 0, "leading zero" },
		{ "-1", 0, "negative" },
		{ "-0", 0, "minus zero" },
		{ "+5", 0, "plus sign" },
		{ "1025", 0, "one over the max" },
		{ "2048", 0, "over the max" },
		{ "4294967297", 0, "2^32 + 1 (wraps to 1 in u32)" },
		{ "4294968320", 0, "2^32 + 1024" },
		{ "99999999999999999999", 0, "overflows u64" },
		{ "0x10", 0, "hex" },
		{ "0X10", 0, "hex upper" },
		{ "010", 0, "octal-looking" },
		{ "1e3", 0, "exponent" },
		{ "1.0", 0, "decimal point" },
		{ " 5", 0, "leading space" },
		{ "5 ", 0, "trailing space" },
		{ "5\n\n", 0, "two newlines" },
		{ "\n5", 0, "leading newline" },
		{ "5\0", 2, "trailing NUL" },
		{ "1\0002", 3, "embedded NUL" },
		{ "au\0to", 5, "NUL in auto" },
		{ "AUTO", 0, "upper-case auto" },
		{ "auto\n\n", 0, "auto two newlines" },
		{ "autox", 0, "auto suffix" },
		{ "aut", 0, "auto prefix" },
		{ " auto", 0, "auto leading space" },
		{ "five", 0, "word" },
		{ page_of('1'), 4096, "4096 digits" },
		{ page_of('a'), 4096, "4096 letters" },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		unsigned int out = 77777;
		int ret = aws_ratio_parse(bad[i].buf, input_len(&bad[i]), &out);

		CHECK(tc, ret == -22, "%s accepted (%d, %u)", bad[i].what, ret,
		      out);
		CHECK(tc, out == 77777, "%s: output written", bad[i].what);
	}
}

/* Every value in range parses to itself; the two neighbours fail. */
static void test_ratio_parse_all(struct aws_tc *tc)
{
	unsigned int v;
	char buf[16];

	for (v = 0; v <= AWS_RATIO_MAX + 1; v++) {
		unsigned int out = 77777;
		int n = snprintf(buf, sizeof(buf), "%u\n", v);
		int ret = aws_ratio_parse(buf, (size_t)n, &out);

		if (v >= 1 && v <= AWS_RATIO_MAX)
			CHECK(tc, ret == 0 && out == v, "%u: %d/%u", v, ret,
			      out);
		else
			CHECK(tc, ret == -22, "%u accepted", v);
	}
}

const struct aws_test_case aws_parse_cases[] = {
	{ "policy_names", test_policy_names },
	{ "policy_find_good", test_policy_find_good },
	{ "policy_find_bad_fixed", test_policy_find_bad_fixed },
	{ "policy_find_bad_names", test_policy_find_bad_names },
	{ "ratio_parse_good", test_ratio_parse_good },
	{ "ratio_parse_bad", test_ratio_parse_bad },
	{ "ratio_parse_all", test_ratio_parse_all },
};
const unsigned int aws_nr_parse_cases =
	ARRAY_SIZE(aws_parse_cases);
