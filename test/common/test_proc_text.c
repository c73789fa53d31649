/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rxr_proc_value() on /proc "KEY: value" lines; rxr_cpu_model_parse() on
 * /proc/cpuinfo text as Linux writes it on x86, powerpc, arm32 and aarch64
 * (which names no model), and on empty text; rxr_cpu_model() on this
 * machine.
 */

#include <string.h>

#include "rxr_proc_text.h"
#include "rxr_test.h"

static const char x86[] =
	"processor\t: 0\n"
	"vendor_id\t: GenuineIntel\n"
	"cpu family\t: 6\n"
	"model\t\t: 167\n"
	"model name\t: Intel(R) Xeon(R) Processor  \n"
	"cpu MHz\t\t: 2893.202\n"
	"\n"
	"processor\t: 1\n"
	"model name\t: second CPU\n";

static const char ppc[] =
	"processor\t: 0\n"
	"cpu\t\t: POWER9 (architected), altivec supported\n"
	"clock\t\t: 2200.000000MHz\n";

static const char arm32[] =
	"Processor\t: ARMv7 Processor rev 4 (v7l)\n"
	"processor\t: 0\n"
	"BogoMIPS\t: 38.40\n"
	"\n"
	"Hardware\t: BCM2835\n";

static const char aarch64[] =
	"processor\t: 0\n"
	"BogoMIPS\t: 50.00\n"
	"Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 cpuid\n"
	"CPU implementer\t: 0x41\n"
	"CPU architecture: 8\n"
	"CPU variant\t: 0x3\n"
	"CPU part\t: 0xd0c\n"
	"CPU revision\t: 1\n";

static int
test_value(void)
{
	static const char status[] =
		"Name:\tpoll\n"
		"voluntary_ctxt_switches:\t7\n"
		"nonvoluntary_ctxt_switches:\t12\n";
	static const char sched[] =
		"se.nr_migrations                             :                    3\n"
		"  indented : 5\n";
	const char *v;

	v = rxr_proc_value(status, "nonvoluntary_ctxt_switches");
	RXR_TEST_ASSERT(v != NULL && strncmp(v, "12\n", 3) == 0,
		"status: '%s'", v != NULL ? v : "(null)");
	v = rxr_proc_value(status, "voluntary_ctxt_switches");
	RXR_TEST_ASSERT(v != NULL && *v == '7', "not a longer key's line");
	v = rxr_proc_value(sched, "se.nr_migrations");
	RXR_TEST_ASSERT(v != NULL && *v == '3', "blanks around ':'");
	v = rxr_proc_value(sched, "indented");
	RXR_TEST_ASSERT(v != NULL && *v == '5', "blanks before the key");
	RXR_TEST_ASSERT(rxr_proc_value(status, "Nam") == NULL,
		"a key's start is no key");
	RXR_TEST_ASSERT(rxr_proc_value(status, "") == NULL, "empty key");
	RXR_TEST_ASSERT(rxr_proc_value(NULL, "Name") == NULL, "no text");
	RXR_TEST_ASSERT(rxr_proc_value("", "Name") == NULL, "empty text");
	return 0;
}

static int
test_parse(void)
{
	char buf[128];

	RXR_TEST_ASSERT_EQ(rxr_cpu_model_parse(x86, buf, sizeof(buf)), 0,
		"x86");
	RXR_TEST_ASSERT(strcmp(buf, "Intel(R) Xeon(R) Processor") == 0,
		"x86: first model name, trailing blanks cut: '%s'", buf);
	RXR_TEST_ASSERT_EQ(rxr_cpu_model_parse(ppc, buf, sizeof(buf)), 0,
		"ppc");
	RXR_TEST_ASSERT(strcmp(buf,
		"POWER9 (architected), altivec supported") == 0,
		"ppc '%s'", buf);
	RXR_TEST_ASSERT_EQ(rxr_cpu_model_parse(arm32, buf, sizeof(buf)), 0,
		"arm32");
	RXR_TEST_ASSERT(strcmp(buf, "ARMv7 Processor rev 4 (v7l)") == 0,
		"arm32: Processor before Hardware: '%s'", buf);
	return 0;
}

static int
test_no_model(void)
{
	char buf[16] = "untouched";

	RXR_TEST_ASSERT_EQ(rxr_cpu_model_parse(aarch64, buf, sizeof(buf)), -1,
		"aarch64 names no model");
	RXR_TEST_ASSERT(strcmp(buf, "untouched") == 0, "buf kept: '%s'", buf);
	RXR_TEST_ASSERT_EQ(rxr_cpu_model_parse("", buf, sizeof(buf)), -1,
		"empty text");
	RXR_TEST_ASSERT_EQ(rxr_cpu_model_parse("model name\t:  \n", buf,
		sizeof(buf)), -1, "empty value");
	RXR_TEST_ASSERT_EQ(rxr_cpu_model_parse("model name", buf,
		sizeof(buf)), -1, "no colon");
	return 0;
}

static int
test_cut(void)
{
	char buf[6];

	RXR_TEST_ASSERT_EQ(rxr_cpu_model_parse(x86, buf, sizeof(buf)), 0,
		"x86 into a small buffer");
	RXR_TEST_ASSERT(strcmp(buf, "Intel") == 0, "cut to fit: '%s'", buf);
	return 0;
}

static int
test_this_machine(void)
{
	char buf[256];
	int ret = rxr_cpu_model(buf, sizeof(buf));

	RXR_TEST_ASSERT(buf[0] != '\0', "a model or '%s'",
		RXR_CPU_MODEL_UNKNOWN);
	RXR_TEST_ASSERT(ret == 0 ||
		strcmp(buf, RXR_CPU_MODEL_UNKNOWN) == 0,
		"ret %d with '%s'", ret, buf);
	return 0;
}

int
main(void)
{
	rxr_test_run("KEY: value lines", test_value);
	rxr_test_run("cpuinfo x86, powerpc, arm32", test_parse);
	rxr_test_run("cpuinfo aarch64, empty", test_no_model);
	rxr_test_run("cpuinfo value cut to fit", test_cut);
	rxr_test_run("cpuinfo of this machine", test_this_machine);
	return rxr_test_done();
}
