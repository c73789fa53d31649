/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The kernel text parsers noise accounting uses (rxr_proc_text.h) on
 * fixture text: /proc/stat, a thread's status, sched and schedstat,
 * /proc/<pid>/stat and CPU lists, as Linux writes them, and text they must
 * refuse.
 */

#include <inttypes.h>
#include <string.h>

#include "rxr_proc_text.h"
#include "rxr_test.h"

static const char proc_stat[] =
	"cpu  24128 3038 3822 11768 375 0 80 47 0 0\n"
	"cpu0 11702 1472 1758 6643 29 0 7 24 0 0\n"
	"cpu1 12426 1566 2063 5125 345 0 73 23 0 0\n"
	"cpu10 1 2 3 4 5 6 7 8 9 10\n"
	"intr 1 2 3\n"
	"ctxt 4216631\n"
	"btime 1764624000\n";

static int
test_stat(void)
{
	uint64_t steal, total;

	RXR_TEST_ASSERT_EQ(rxr_proc_stat_cpu(proc_stat, 1, &steal, &total), 0,
		"cpu1");
	RXR_TEST_ASSERT_EQ(steal, 23, "steal");
	RXR_TEST_ASSERT_EQ(total, 12426 + 1566 + 2063 + 5125 + 345 + 0 + 73 +
		23, "total without guest");
	/* cpu1 is not the start of cpu10's line, nor cpu10 of cpu1's. */
	RXR_TEST_ASSERT_EQ(rxr_proc_stat_cpu(proc_stat, 10, &steal, &total), 0,
		"cpu10");
	RXR_TEST_ASSERT_EQ(total, 36, "cpu10 total");
	RXR_TEST_ASSERT_EQ(steal, 8, "cpu10 steal");
	RXR_TEST_ASSERT_EQ(rxr_proc_stat_cpu(proc_stat, 2, &steal, &total), -1,
		"no cpu2");
	/* A kernel without steal: 7 fields, steal 0. */
	RXR_TEST_ASSERT_EQ(rxr_proc_stat_cpu("cpu0 1 2 3 4 5 6 7\n", 0, &steal,
		&total), 0, "seven fields");
	RXR_TEST_ASSERT_EQ(steal, 0, "no steal field");
	RXR_TEST_ASSERT_EQ(total, 28, "seven fields' total");
	RXR_TEST_ASSERT_EQ(rxr_proc_stat_cpu("cpu0 1 2\n", 0, &steal, &total),
		-1, "too few fields");
	RXR_TEST_ASSERT_EQ(rxr_proc_stat_cpu("cpu0 x y z w\n", 0, &steal,
		&total), -1, "not numbers");
	RXR_TEST_ASSERT_EQ(rxr_proc_stat_cpu("", 0, &steal, &total), -1,
		"empty");
	return 0;
}

static const char status[] =
	"Name:\tlcore-worker-1\n"
	"State:\tR (running)\n"
	"Tgid:\t5050\n"
	"Pid:\t5051\n"
	"Cpus_allowed_list:\t1\n"
	"voluntary_ctxt_switches:\t7\n"
	"nonvoluntary_ctxt_switches:\t136\n";

static const char sched[] =
	"lcore-worker-1 (5051, #threads: 3)\n"
	"-------------------------------------------------------------------\n"
	"se.exec_start                                :        217188.742868\n"
	"se.sum_exec_runtime                          :          1234.000000\n"
	"se.nr_migrations                             :                    4\n"
	"nr_switches                                  :                  143\n"
	"nr_involuntary_switches                      :                  136\n";

static int
test_fields(void)
{
	uint64_t v;

	RXR_TEST_ASSERT_EQ(rxr_proc_u64(status,
		"nonvoluntary_ctxt_switches", &v), 0, "nonvoluntary");
	RXR_TEST_ASSERT_EQ(v, 136, "nonvoluntary value");
	/* "voluntary_ctxt_switches" is inside the other key: whole keys only. */
	RXR_TEST_ASSERT_EQ(rxr_proc_u64(status, "voluntary_ctxt_switches",
		&v), 0, "voluntary");
	RXR_TEST_ASSERT_EQ(v, 7, "voluntary value");
	RXR_TEST_ASSERT_EQ(rxr_proc_u64(sched, "se.nr_migrations", &v), 0,
		"migrations");
	RXR_TEST_ASSERT_EQ(v, 4, "migrations value");
	/* nr_switches is a prefix of no other key, but a key's prefix is no
	 * match: "nr_" alone is absent. */
	RXR_TEST_ASSERT_EQ(rxr_proc_u64(sched, "nr_", &v), -1, "prefix");
	RXR_TEST_ASSERT_EQ(rxr_proc_u64(sched, "nr_switches", &v), 0,
		"nr_switches");
	RXR_TEST_ASSERT_EQ(v, 143, "nr_switches value");
	RXR_TEST_ASSERT_EQ(rxr_proc_u64(status, "Name", &v), -1,
		"not a number");
	RXR_TEST_ASSERT_EQ(rxr_proc_u64(status, "absent", &v), -1,
		"absent");
	RXR_TEST_ASSERT_EQ(rxr_proc_u64("", "x", &v), -1, "empty");
	return 0;
}

static int
test_schedstat(void)
{
	uint64_t run, wait;

	RXR_TEST_ASSERT_EQ(rxr_proc_schedstat("1234567 11086046 17\n", &run,
		&wait), 0, "schedstat");
	RXR_TEST_ASSERT(run == 1234567 && wait == 11086046,
		"%" PRIu64 " %" PRIu64, run, wait);
	RXR_TEST_ASSERT_EQ(rxr_proc_schedstat("1 2\n", &run, &wait), -1,
		"two numbers");
	RXR_TEST_ASSERT_EQ(rxr_proc_schedstat("1 2 3 4\n", &run, &wait), -1,
		"four numbers");
	RXR_TEST_ASSERT_EQ(rxr_proc_schedstat("", &run, &wait), -1, "empty");
	return 0;
}

static int
test_pid_stat(void)
{
	/* comm with blanks and parentheses; negative tty_nr and tpgid. */
	static const char odd[] =
		"4519 (cc1 (x) y) R 4518 4518 6755 0 -1 4194304 101 0 0 0 "
		"250 17 0 0 20 0 1 0 53187 3133440 365 18446744073709551615 "
		"9480 9481 1407 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 9480 9481 "
		"9482 1407 1407 1407 1407 0\n";
	static const char cat[] =
		"5931 (cat) R 5926 5926 6755 0 -1 4194304 101 0 0 0 0 0 0 0 "
		"20 0 1 0 53187 3133440 365 18446744073709551615 94807933607936"
		" 94807933627817 140736385811584 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0"
		" 0 94807933643824 94807933645440 94808198168576 140736385817214"
		" 140736385817234 140736385817234 140736385818603 0\n";
	struct rxr_proc_task t;

	RXR_TEST_ASSERT_EQ(rxr_proc_pid_stat(odd, &t), 0, "odd comm");
	RXR_TEST_ASSERT_EQ(t.pid, 4519, "pid");
	RXR_TEST_ASSERT(strcmp(t.comm, "cc1 (x) y") == 0, "comm '%s'", t.comm);
	RXR_TEST_ASSERT_EQ(t.ticks, 250 + 17, "utime + stime");
	RXR_TEST_ASSERT_EQ(t.cpu, 1, "cpu");
	RXR_TEST_ASSERT_EQ(rxr_proc_pid_stat(cat, &t), 0, "cat");
	RXR_TEST_ASSERT_EQ(t.cpu, 1, "cat's cpu");
	RXR_TEST_ASSERT_EQ(t.ticks, 0, "cat's time");
	/* Cut after the state, no parentheses, no pid. */
	RXR_TEST_ASSERT_EQ(rxr_proc_pid_stat("12 (x) S 1 2 3\n", &t), -1,
		"truncated");
	RXR_TEST_ASSERT_EQ(rxr_proc_pid_stat("12 x S 1\n", &t), -1,
		"no comm");
	RXR_TEST_ASSERT_EQ(rxr_proc_pid_stat("(x) S 1\n", &t), -1,
		"no pid");
	RXR_TEST_ASSERT_EQ(rxr_proc_pid_stat("", &t), -1, "empty");
	return 0;
}

static int
test_cpulist(void)
{
	cpu_set_t s;

	RXR_TEST_ASSERT_EQ(rxr_proc_cpulist("0-3,8,10-11\n", &s), 7,
		"ranges");
	RXR_TEST_ASSERT(CPU_ISSET(0, &s) && CPU_ISSET(3, &s) &&
		!CPU_ISSET(4, &s) && CPU_ISSET(8, &s) &&
		!CPU_ISSET(9, &s) && CPU_ISSET(11, &s) &&
		!CPU_ISSET(12, &s), "members");
	RXR_TEST_ASSERT_EQ(rxr_proc_cpulist("\n", &s), 0, "none");
	RXR_TEST_ASSERT_EQ(rxr_proc_cpulist("", &s), 0, "empty");
	RXR_TEST_ASSERT(!CPU_ISSET(0, &s), "cleared");
	RXR_TEST_ASSERT_EQ(rxr_proc_cpulist("1,1-2", &s), 2, "overlap");
	RXR_TEST_ASSERT_EQ(rxr_proc_cpulist("64-65", &s), 2, "past a word");
	RXR_TEST_ASSERT(CPU_ISSET(65, &s), "65");
	RXR_TEST_ASSERT_EQ(rxr_proc_cpulist("3-1", &s), -1, "backwards");
	RXR_TEST_ASSERT_EQ(rxr_proc_cpulist("1,", &s), -1, "trailing comma");
	RXR_TEST_ASSERT_EQ(rxr_proc_cpulist("a", &s), -1, "not a list");
	RXR_TEST_ASSERT_EQ(rxr_proc_cpulist("1 2", &s), -1, "blank inside");
	RXR_TEST_ASSERT_EQ(rxr_proc_cpulist("0-99999", &s), -1,
		"past CPU_SETSIZE");
	return 0;
}

/* One range, as EAL's --lcores sets take them: it stops at what follows. */
static int
test_cpu_range(void)
{
	const char *p = "2-3@(5)";
	cpu_set_t s;

	CPU_ZERO(&s);
	RXR_TEST_ASSERT_EQ(rxr_proc_cpu_range(&p, &s), 0, "range");
	RXR_TEST_ASSERT(*p == '@' && CPU_COUNT(&s) == 2 && CPU_ISSET(2, &s) &&
		CPU_ISSET(3, &s), "stops at '@'");
	p = "7,1";
	RXR_TEST_ASSERT_EQ(rxr_proc_cpu_range(&p, &s), 0, "one CPU");
	RXR_TEST_ASSERT(*p == ',' && CPU_ISSET(7, &s), "added to the set");
	p = " 1";
	RXR_TEST_ASSERT_EQ(rxr_proc_cpu_range(&p, &s), -1, "blank first");
	p = "1- 2";
	RXR_TEST_ASSERT_EQ(rxr_proc_cpu_range(&p, &s), -1, "blank after -");
	p = "1024";
	RXR_TEST_ASSERT_EQ(rxr_proc_cpu_range(&p, &s), -1,
		"past CPU_SETSIZE");
	return 0;
}

int
main(void)
{
	rxr_test_run("/proc/stat cpu lines", test_stat);
	rxr_test_run("status and sched fields", test_fields);
	rxr_test_run("schedstat", test_schedstat);
	rxr_test_run("/proc/<pid>/stat", test_pid_stat);
	rxr_test_run("cpu lists", test_cpulist);
	rxr_test_run("cpu ranges", test_cpu_range);
	return rxr_test_done();
}
