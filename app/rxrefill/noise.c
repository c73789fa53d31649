/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Noise accounting (doc/design.md): read from /proc and /sys by the main
 * lcore at the window's ends, never in a poll loop; the other processes
 * (a directory walk, a millisecond or more) before the repetition's poll
 * lcores start, and at the window's end, where a main lcore that polls is
 * done polling.
 */

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "rxrefill.h"
#include "rxr_proc_text.h"
#include "rxr_log.h"

/* Poll CPUs and busy tasks a report lists at most. */
#define NOISE_CPUS_SHOWN 64
#define NOISE_TASKS_SHOWN 8
/* The machine check's window: "steal in the last second". */
#define NOISE_MACHINE_WINDOW_S 1.0

/* A poll lcore's thread at one instant. */
struct noise_thread {
	bool ok, wait_ok;
	uint64_t nvcsw, migrations;
	uint64_t wait_ns;		/* runnable, waiting for a CPU */
	uint64_t run_ns;		/* running */
	uint64_t poll_cycles;		/* poller.cycles: launches ended */
};

/* /proc and /sys at one instant. */
struct noise_sample {
	struct timespec t;
	/* Per poll CPU: its /proc/stat line, steal and all ticks. */
	bool stat_ok[NOISE_CPUS_SHOWN];
	uint64_t steal[NOISE_CPUS_SHOWN], total[NOISE_CPUS_SHOWN];
	struct noise_thread lc[MAX_POLLERS];	/* per poller */
	struct timespec tasks_t;	/* when tasks were read */
	struct rxr_proc_task *tasks;	/* other processes, by pid */
	size_t nb_tasks, cap_tasks;
};

static struct {
	int tid[RTE_MAX_LCORE];
	unsigned int cpus[NOISE_CPUS_SHOWN];	/* poll CPUs */
	unsigned int nb_cpus;
	cpu_set_t cpuset;		/* the same, as a set */
	bool own_cpu[MAX_POLLERS];
	struct noise_sample s0, s1;
	bool begun, ended;
	/* --loops with the main lcore polling: its runnable time inside the
	 * loops, and their TSC cycles (it works on between them). */
	uint64_t main_runnable_ns, main_loop_cycles, main_loop_t0, main_ns0;
	bool main_loop_ok;
	/* What the last noise_fill() handed to the report. */
	struct rxr_report_noise_cpu rcpu[NOISE_CPUS_SHOWN];
	struct rxr_report_noise_lcore rlc[MAX_POLLERS];
	/* comm: s1's, read before the next sample (the report copies). */
	struct rxr_report_noise_task rtask[NOISE_TASKS_SHOWN];
	/* Repetitions measured, disturbed, and per cause. */
	unsigned int measured, disturbed;
	unsigned int causes[RXR_REPORT_DISTURBED_CAUSES];
} nz;

/* /proc/stat can be long on a large machine: one buffer for it. */
static char stat_buf[1 << 18];

/* Append to buf at *off, never past len (a long line is cut). */
static void __rte_format_printf(4, 5)
append(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*off + 1 >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *off, len - *off, fmt, ap);
	va_end(ap);
	if (n > 0)
		*off = RTE_MIN(*off + (size_t)n, len - 1);
}

/* What a counter grew by from a to b; 0 when it went back. */
static inline uint64_t
grown(uint64_t a, uint64_t b)
{
	return b - RTE_MIN(a, b);
}

static double
ts_diff(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) +
		(double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static int
task_cmp(const void *a, const void *b)
{
	const struct rxr_proc_task *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Every other process's /proc/<pid>/stat, sorted by pid. */
static void
tasks_scan(struct noise_sample *s)
{
	const pid_t self = getpid();
	DIR *d = opendir("/proc");
	struct dirent *e;

	s->nb_tasks = 0;
	clock_gettime(CLOCK_MONOTONIC, &s->tasks_t);
	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		struct rxr_proc_task t;
		char buf[1024], *end;
		long pid = strtol(e->d_name, &end, 10);

		if (*end != '\0' || pid <= 0 || pid == self)
			continue;
		if (read_file(buf, sizeof(buf), "/proc/%ld/stat", pid) <= 0 ||
				rxr_proc_pid_stat(buf, &t) != 0)
			continue;	/* gone meanwhile */
		if (s->nb_tasks == s->cap_tasks) {
			size_t cap = s->cap_tasks ? 2 * s->cap_tasks : 512;
			struct rxr_proc_task *n = realloc(s->tasks,
					cap * sizeof(*n));

			if (n == NULL)
				break;
			s->tasks = n;
			s->cap_tasks = cap;
		}
		s->tasks[s->nb_tasks++] = t;
	}
	closedir(d);
	qsort(s->tasks, s->nb_tasks, sizeof(*s->tasks), task_cmp);
}

/* The number after @p key in file @p f of thread @p tid's /proc directory. */
static bool
thread_u64(int tid, const char *f, const char *key, uint64_t *v)
{
	char buf[4096];

	return tid > 0 && read_file(buf, sizeof(buf), "/proc/self/task/%d/%s",
		tid, f) > 0 && rxr_proc_u64(buf, key, v) == 0;
}

/* A thread's run and runqueue wait time so far; false without schedstat. */
static bool
thread_runnable_ns(int tid, uint64_t *run, uint64_t *wait)
{
	char buf[256];

	return tid > 0 && read_file(buf, sizeof(buf),
		"/proc/self/task/%d/schedstat", tid) > 0 &&
		rxr_proc_schedstat(buf, run, wait) == 0;
}

/* /proc/stat and the poll lcores' threads; other processes with tasks. */
static void
sample_take(const struct app *a, struct noise_sample *s, bool tasks)
{
	clock_gettime(CLOCK_MONOTONIC, &s->t);
	memset(s->stat_ok, 0, sizeof(s->stat_ok));
	if (read_file(stat_buf, sizeof(stat_buf), "/proc/stat") > 0) {
		for (unsigned int i = 0; i < nz.nb_cpus; i++)
			s->stat_ok[i] = rxr_proc_stat_cpu(stat_buf, nz.cpus[i],
				&s->steal[i], &s->total[i]) == 0;
	}
	for (unsigned int k = 0; k < a->nb_pollers; k++) {
		int tid = nz.tid[a->pollers[k].lcore];
		struct noise_thread *l = &s->lc[k];

		l->ok = l->wait_ok = false;
		l->poll_cycles = RXR_STAT_READ(a->pollers[k].cycles);
		if (!thread_u64(tid, "status", "nonvoluntary_ctxt_switches",
				&l->nvcsw))
			continue;
		/* Migrations need schedstats (CONFIG_SCHED_DEBUG): else 0. */
		if (!thread_u64(tid, "sched", "se.nr_migrations", &l->migrations))
			l->migrations = 0;
		/* Needs CONFIG_SCHEDSTATS or CONFIG_SCHED_INFO. */
		l->wait_ok = thread_runnable_ns(tid, &l->run_ns, &l->wait_ns);
		l->ok = true;
	}
	if (tasks)
		tasks_scan(s);
}

/* The largest steal share of a poll CPU between s0 and s1 (NaN: none
 * known), its CPU in *cpu; each CPU's into nz.rcpu. */
static double
steal_max(const struct noise_sample *s0, const struct noise_sample *s1,
		unsigned int *cpu)
{
	double max = NAN;

	for (unsigned int i = 0; i < nz.nb_cpus; i++) {
		uint64_t total = s1->total[i] - s0->total[i];
		double sh = s0->stat_ok[i] && s1->stat_ok[i] && total != 0 &&
			s1->steal[i] >= s0->steal[i] ?
			(double)(s1->steal[i] - s0->steal[i]) / (double)total : NAN;

		nz.rcpu[i] = (struct rxr_report_noise_cpu){ nz.cpus[i], sh };
		if (!isnan(sh) && !(sh <= max)) {
			max = sh;
			*cpu = nz.cpus[i];
		}
	}
	return max;
}

/*
 * Other processes that last ran on a poll CPU and took at least
 * NOISE_BUSY_SHARE of a CPU between s0 and s1, the NOISE_TASKS_SHOWN
 * busiest first, into nz.rtask. @return how many.
 */
static unsigned int
busy_tasks(const struct noise_sample *s0, const struct noise_sample *s1)
{
	const double ticks = ts_diff(&s0->tasks_t, &s1->tasks_t) *
		sysconf(_SC_CLK_TCK);
	struct rxr_report_noise_task *top = nz.rtask;
	unsigned int n = 0, j;

	for (size_t i = 0; ticks > 0 && i < s1->nb_tasks; i++) {
		const struct rxr_proc_task *t = &s1->tasks[i], *t0;
		double share;

		if (!CPU_ISSET(t->cpu, &nz.cpuset))
			continue;
		t0 = bsearch(t, s0->tasks, s0->nb_tasks, sizeof(*t), task_cmp);
		/* A process born in the window: all of its time is new. */
		share = (double)grown(t0 != NULL ? t0->ticks : 0, t->ticks) /
			ticks;
		if (share < NOISE_BUSY_SHARE || (n == NOISE_TASKS_SHOWN &&
				share <= top[n - 1].cpu_share))
			continue;
		for (j = n < NOISE_TASKS_SHOWN ? n++ : n - 1;
				j > 0 && top[j - 1].cpu_share < share; j--)
			top[j] = top[j - 1];
		top[j] = (struct rxr_report_noise_task){ .pid = t->pid,
			.comm = t->comm, .cpu = (unsigned int)t->cpu,
			.cpu_share = share };
	}
	return n;
}

static int
tid_record(void *arg __rte_unused)
{
	nz.tid[rte_lcore_id()] = rte_gettid();
	return 0;
}

/*
 * Whether a poll lcore has its CPUs to itself: no other lcore of the run
 * on them, and no consumer or zeroing thread placed there by design.
 * Switches of an lcore that shares its CPU on purpose are no noise.
 */
static bool
own_cpu(const struct app *a, const struct poller *pl)
{
	rte_cpuset_t mine = rte_lcore_cpuset(pl->lcore);
	unsigned int lc;

	/* Consumer and zeroing threads, as cpus_place() put them. */
	for (unsigned int k = 0; k < a->nb_pollers; k++)
		if (a->pollers[k].consumer_cpu >= 0 &&
				CPU_ISSET(a->pollers[k].consumer_cpu, &mine))
			return false;
	if (a->opt.zero_policies & 1u << RXR_ZERO_POLICY_BACKGROUND &&
			a->zeroer_cpu >= 0 && CPU_ISSET(a->zeroer_cpu, &mine))
		return false;
	RTE_LCORE_FOREACH(lc) {
		rte_cpuset_t other, both;

		if (lc == pl->lcore)
			continue;
		other = rte_lcore_cpuset(lc);
		CPU_AND(&both, &mine, &other);
		if (CPU_COUNT(&both) != 0)
			return false;
	}
	return true;
}

void
noise_init(struct app *a)
{
	memset(&nz, 0, sizeof(nz));
	for (unsigned int k = 0; k < a->nb_pollers; k++) {
		rte_cpuset_t set = rte_lcore_cpuset(a->pollers[k].lcore);

		for (unsigned int c = 0; c < CPU_SETSIZE; c++) {
			if (!CPU_ISSET(c, &set) || CPU_ISSET(c, &nz.cpuset) ||
					nz.nb_cpus == NOISE_CPUS_SHOWN)
				continue;
			CPU_SET(c, &nz.cpuset);
			nz.cpus[nz.nb_cpus++] = c;
		}
		nz.own_cpu[k] = own_cpu(a, &a->pollers[k]);
	}
	/* Each lcore's thread id, from the thread itself. */
	rte_eal_mp_remote_launch(tid_record, NULL, SKIP_MAIN);
	rte_eal_mp_wait_lcore();
	nz.tid[rte_get_main_lcore()] = rte_gettid();
	sample_take(a, &nz.s0, true);
}

/* "0,1" or "none" for the poll CPUs in set, into buf. */
static void
cpus_in(const cpu_set_t *set, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < nz.nb_cpus; i++)
		if (CPU_ISSET(nz.cpus[i], set))
			append(buf, len, &off, "%s%u", off ? "," : "",
				nz.cpus[i]);
	if (off == 0)
		snprintf(buf, len, "none");
}

/* A /sys CPU list file into set; false when it is not there. */
static bool
sys_cpulist(const char *path, cpu_set_t *set, char *text,
		size_t len)
{
	if (read_file(text, len, "%s", path) < 0 ||
			rxr_proc_cpulist(text, set) < 0) {
		CPU_ZERO(set);
		text[0] = '\0';
		return false;
	}
	text[strcspn(text, "\n")] = '\0';
	return true;
}

/* The poll CPUs' governors: one name, "a/b" when they differ, "none". */
static json_t *
governors(char *buf, size_t len)
{
	json_t *per = json_array();
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < nz.nb_cpus; i++) {
		char gov[64];
		ssize_t n = read_file(gov, sizeof(gov), "/sys/devices/system/"
			"cpu/cpu%u/cpufreq/scaling_governor", nz.cpus[i]);

		gov[n > 0 ? strcspn(gov, "\n") : 0] = '\0';
		if (gov[0] == '\0')
			snprintf(gov, sizeof(gov), "none");
		json_array_append_new(per, json_pack("{s:i, s:s}", "cpu",
			(int)nz.cpus[i], "governor", gov));
		if (strstr(buf, gov) == NULL)
			append(buf, len, &off, "%s%s", off ? "/" : "", gov);
	}
	return per;
}

/* Pairs of poll CPUs that are SMT siblings of each other. */
static json_t *
smt_pairs(void)
{
	json_t *pairs = json_array();

	for (unsigned int i = 0; i < nz.nb_cpus; i++) {
		cpu_set_t sib;
		char path[112], text[256];

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/"
			"topology/thread_siblings_list", nz.cpus[i]);
		if (!sys_cpulist(path, &sib, text, sizeof(text)))
			continue;
		for (unsigned int j = i + 1; j < nz.nb_cpus; j++)
			if (CPU_ISSET(nz.cpus[j], &sib))
				json_array_append_new(pairs, json_pack("[i,i]",
					(int)nz.cpus[i], (int)nz.cpus[j]));
	}
	return pairs;
}

/* Machine checks: sleep in steps of this much until the window is over. */
#define NOISE_WAIT_STEP_S 0.05
/* Busy tasks named on the machine line (the report has them all). */
#define NOISE_TASKS_SAID 3

/* What the machine checks found, for the line and the report. */
struct machine {
	const char *model;
	char gov[128];
	char iso_t[256], nohz_t[256];	/* the kernel's CPU lists */
	char iso_p[128], nohz_p[128];	/* the poll CPUs among them */
	json_t *per_gov, *smt;
	unsigned int ntasks;
	double steal, waited;
	bool have_nohz;
};

/* The "rxrefill: machine:" line. */
static void
machine_say(const struct machine *mc)
{
	char line[1024];
	size_t off = 0;

	append(line, sizeof(line), &off, "%s; governor %s%s; SMT siblings "
		"among poll CPUs: %s; poll CPUs in isolcpus: %s, in nohz_full: "
		"%s", mc->model, mc->gov, strcmp(mc->gov, "none") == 0 ?
		" (no cpufreq: a VM?)" : "", json_array_size(mc->smt) == 0 ?
		"none" : "yes", mc->iso_p, mc->have_nohz ? mc->nohz_p : "none");
	if (isnan(mc->steal))
		append(line, sizeof(line), &off, "; steal unknown");
	else
		append(line, sizeof(line), &off, "; steal %.1f%% over the last "
			"%.1f s", 100 * mc->steal, mc->waited);
	if (mc->ntasks == 0)
		append(line, sizeof(line), &off, "; busy tasks on poll CPUs: "
			"none");
	for (unsigned int i = 0; i < mc->ntasks && i < NOISE_TASKS_SAID; i++)
		append(line, sizeof(line), &off, "%s %s (pid %d) %.0f%% of CPU "
			"%u", i ? "," : "; busy on poll CPUs:", nz.rtask[i].comm,
			nz.rtask[i].pid, 100 * nz.rtask[i].cpu_share,
			nz.rtask[i].cpu);
	say_wrapped(APP ": machine: ", line);
}

/* env.machine of the report (takes per_gov and smt), or NULL. */
static json_t *
machine_json(const struct machine *mc)
{
	json_t *m = json_pack("{s:s, s:o, s:s, s:o, s:o, s:o, s:s, s:o, s:b, "
		"s:b, s:o, s:f, s:o}",
		"cpu_model", mc->model,
		"poll_cpus", json_array(),
		"governor", mc->gov,
		"governors", mc->per_gov,
		"smt_sibling_pairs", mc->smt,
		"isolated", json_string(mc->iso_t),
		"isolated_poll_cpus", mc->iso_p,
		"nohz_full", mc->have_nohz ? json_string(mc->nohz_t) :
			json_null(),
		"poll_cpus_isolated", strcmp(mc->iso_p, "none") != 0,
		"poll_cpus_nohz_full", mc->have_nohz &&
			strcmp(mc->nohz_p, "none") != 0,
		"steal_share", isnan(mc->steal) ? json_null() :
			json_real(mc->steal),
		"window_s", mc->waited,
		"busy_tasks", json_array());

	for (unsigned int i = 0; m != NULL && i < mc->ntasks; i++)
		json_array_append_new(json_object_get(m, "busy_tasks"),
			json_pack("{s:i, s:s, s:i, s:f}", "pid", nz.rtask[i].pid,
			"comm", nz.rtask[i].comm, "cpu", (int)nz.rtask[i].cpu,
			"cpu_share", nz.rtask[i].cpu_share));
	for (unsigned int i = 0; m != NULL && i < nz.nb_cpus; i++)
		json_array_append_new(json_object_get(m, "poll_cpus"),
			json_integer(nz.cpus[i]));
	return m;
}

/*
 * The rest of the machine check's second, unless asked to stop, then the
 * second sample: the largest steal share of a poll CPU and the busy tasks;
 * the CPU model (the report's, else this machine's), governors, SMT
 * siblings, isolcpus and nohz_full. Said on a line and into env.machine.
 */
int
noise_env(struct app *a, struct rxr_report *rep)
{
	json_t *env = json_object_get(rxr_report_json(rep), "env");
	struct noise_sample *s0 = &nz.s0, *s1 = &nz.s1;
	cpu_set_t iso, nohz;
	struct machine mc;
	unsigned int cpu;
	json_t *m;
	int ret = 0;

	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &s1->t);
		mc.waited = ts_diff(&s0->t, &s1->t);
		if (flag_get(&force_quit) || mc.waited >= NOISE_MACHINE_WINDOW_S)
			break;
		rte_delay_us_sleep((unsigned int)(RTE_MIN(NOISE_WAIT_STEP_S,
			NOISE_MACHINE_WINDOW_S - mc.waited) * 1e6) + 1);
	}
	sample_take(a, s1, true);
	mc.waited = ts_diff(&s0->t, &s1->t);
	mc.steal = steal_max(s0, s1, &cpu);
	mc.ntasks = busy_tasks(s0, s1);
	/* rxr_report_set_env() read it. */
	mc.model = json_string_value(json_object_get(env, "cpu_model")) ?:
		RXR_CPU_MODEL_UNKNOWN;
	mc.per_gov = governors(mc.gov, sizeof(mc.gov));
	mc.smt = smt_pairs();
	sys_cpulist("/sys/devices/system/cpu/isolated", &iso, mc.iso_t,
		sizeof(mc.iso_t));
	mc.have_nohz = sys_cpulist("/sys/devices/system/cpu/nohz_full",
		&nohz, mc.nohz_t, sizeof(mc.nohz_t));
	cpus_in(&iso, mc.iso_p, sizeof(mc.iso_p));
	cpus_in(&nohz, mc.nohz_p, sizeof(mc.nohz_p));
	machine_say(&mc);
	m = machine_json(&mc);
	ret |= m == NULL || rxr_report_env_set(rep, "machine", m) != 0;
	ret |= rxr_report_env_set(rep, "noise_limits", json_pack(
		"{s:f, s:f, s:i, s:f, s:f, s:f}",
		"duration_excess", NOISE_DURATION_EXCESS,
		"steal_share", NOISE_STEAL_SHARE,
		"switches_per_s", NOISE_SWITCHES_PER_S,
		"runqueue_wait_share", NOISE_WAIT_SHARE,
		"stopped_share", NOISE_STOPPED_SHARE,
		"busy_share", NOISE_BUSY_SHARE)) != 0;
	ret |= rxr_report_set_option_str(rep, "disturbed",
		a->opt.disturbed_exclude ? "exclude" : "count") != 0;
	if (ret != 0) {
		RXR_LOG(ERR, "report: machine checks: out of memory");
		return -ENOMEM;
	}
	return 0;
}

void
noise_run_start(void)
{
	tasks_scan(&nz.s0);
}

void
noise_begin(const struct app *a)
{
	sample_take(a, &nz.s0, false);
	nz.begun = true;
	nz.ended = false;
	nz.main_runnable_ns = nz.main_loop_cycles = 0;
	nz.main_loop_ok = true;
}

/*
 * The main lcore's thread, by itself: running (its own CPU clock, exact;
 * schedstat's run time of a running thread lags up to a tick) or runnable
 * ns so far, or false.
 */
static bool
main_runnable(uint64_t *ns)
{
	uint64_t run, wait;
	struct timespec t;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0 ||
			!thread_runnable_ns(nz.tid[rte_get_main_lcore()], &run,
				&wait))
		return false;
	*ns = (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec + wait;
	return true;
}

void
noise_loop_begin(void)
{
	nz.main_loop_ok = nz.main_loop_ok && main_runnable(&nz.main_ns0);
	nz.main_loop_t0 = rte_rdtsc();
}

void
noise_loop_end(void)
{
	uint64_t ns;

	nz.main_loop_cycles += rte_rdtsc() - nz.main_loop_t0;
	nz.main_loop_ok = nz.main_loop_ok && main_runnable(&ns);
	if (nz.main_loop_ok)
		nz.main_runnable_ns += grown(nz.main_ns0, ns);
}

void
noise_end(const struct app *a)
{
	if (!nz.begun)
		return;
	sample_take(a, &nz.s1, true);
	nz.ended = true;
}

/* What disturbed a repetition the most, for its line. */
struct noise_worst {
	double steal;			/* largest steal share, or NaN */
	unsigned int steal_cpu;
	bool preempted;			/* an lcore past a switch limit */
	uint64_t switches;		/* that lcore's, switched out */
	unsigned int lcore;
	double wait;			/* its runqueue wait share, or NaN */
	double runnable;		/* least runnable share, or NaN */
	unsigned int stopped_lcore;	/* whose */
};

/*
 * Share of the time lcore k polled that its thread ran or waited for a
 * CPU: the whole window, or with --loops a worker's poll loops' own time
 * (it sleeps between loops; the main lcore works on), in *polled. Short
 * of 1 by what it was stopped (SIGSTOP, a freezer), which neither the
 * switch count nor the runqueue wait sees. NaN without schedstat.
 */
static double
runnable_share(const struct app *a, unsigned int k, double window,
		double *polled)
{
	const struct noise_thread *s0 = &nz.s0.lc[k], *s1 = &nz.s1.lc[k];
	const double hz = rte_get_tsc_hz();

	*polled = a->opt.loops == 0 ? window :
		(double)(s1->poll_cycles - s0->poll_cycles) / hz;
	if (a->opt.loops != 0 && a->pollers[k].lcore == rte_get_main_lcore()) {
		*polled = nz.main_loop_cycles / hz;
		return nz.main_loop_ok && *polled > 0 ?
			nz.main_runnable_ns / (*polled * 1e9) : NAN;
	}
	if (!s0->wait_ok || !s1->wait_ok || !(*polled > 0))
		return NAN;
	return (double)(grown(s0->run_ns, s1->run_ns) +
		grown(s0->wait_ns, s1->wait_ns)) / (*polled * 1e9);
}

/*
 * Switches, migrations, runqueue wait and the runnable share per poll
 * lcore into the report; into w the lcore on a CPU of its own switched
 * out most often, or waiting longest, past a limit, and the lcore
 * stopped longest.
 */
static void
noise_fill_lcores(const struct app *a, struct rxr_report_noise *n,
		double window, struct noise_worst *w)
{
	for (unsigned int k = 0; k < a->nb_pollers; k++) {
		const struct noise_thread *s0 = &nz.s0.lc[k], *s1 = &nz.s1.lc[k];
		struct rxr_report_noise_lcore *l = &nz.rlc[n->nb_lcores];
		double polled;

		if (!s0->ok || !s1->ok)
			continue;
		*l = (struct rxr_report_noise_lcore){
			.lcore = a->pollers[k].lcore,
			.tid = nz.tid[a->pollers[k].lcore],
			.own_cpu = nz.own_cpu[k],
			.nonvoluntary_ctxt_switches = grown(s0->nvcsw,
				s1->nvcsw),
			.migrations = grown(s0->migrations, s1->migrations),
			.runqueue_wait_share = s0->wait_ok && s1->wait_ok ?
				grown(s0->wait_ns, s1->wait_ns) / (window * 1e9) :
				NAN,
			.runnable_share = runnable_share(a, k, window, &polled),
		};
		n->nb_lcores++;
		/* A worker's schedstat run time lags up to a tick at either
		 * end: stops shorter than NOISE_STOPPED_MIN_S are not told
		 * from that. */
		if (l->runnable_share < 1 - NOISE_STOPPED_SHARE &&
				(1 - l->runnable_share) * polled >
				NOISE_STOPPED_MIN_S &&
				!(l->runnable_share >= w->runnable)) {
			w->runnable = l->runnable_share;
			w->stopped_lcore = l->lcore;
		}
		if (!l->own_cpu)
			continue;
		if (l->nonvoluntary_ctxt_switches / window <=
				NOISE_SWITCHES_PER_S &&
				!(l->runqueue_wait_share > NOISE_WAIT_SHARE))
			continue;
		if (!w->preempted || l->runqueue_wait_share > w->wait ||
				(isnan(w->wait) &&
				l->nonvoluntary_ctxt_switches > w->switches)) {
			w->switches = l->nonvoluntary_ctxt_switches;
			w->lcore = l->lcore;
			w->wait = l->runqueue_wait_share;
		}
		w->preempted = true;
	}
	n->lcores = nz.rlc;
}

/* The line of a disturbed repetition: each cause, the busiest task. */
static void
noise_disturbed_say(const struct app *a, const struct rxr_report_run *r,
		const char *tag, double excess, double window,
		const struct noise_worst *w)
{
	const struct rxr_report_noise *n = &r->noise;
	char prefix[160], line[512];
	size_t off = 0;

	snprintf(prefix, sizeof(prefix), "%s disturbed%s: ", tag,
		a->opt.disturbed_exclude ? ", left out of the figures" : "");
	line[0] = '\0';
	if (n->disturbed & RXR_REPORT_DISTURBED_DURATION)
		append(line, sizeof(line), &off, "measured %.3f s of %.3f s "
			"asked (+%.0f%%); ", r->duration_s, n->asked_s,
			100 * excess);
	if (n->disturbed & RXR_REPORT_DISTURBED_STEAL)
		append(line, sizeof(line), &off, "steal %.1f%% of CPU %u; ",
			100 * w->steal, w->steal_cpu);
	if (n->disturbed & RXR_REPORT_DISTURBED_SWITCHES) {
		append(line, sizeof(line), &off, "lcore %u switched out %"
			PRIu64 " times (%.0f/s)", w->lcore, w->switches,
			w->switches / window);
		if (!isnan(w->wait))
			append(line, sizeof(line), &off, ", waiting for its "
				"CPU %.1f%% of the window", 100 * w->wait);
		append(line, sizeof(line), &off, "; ");
	}
	if (n->disturbed & RXR_REPORT_DISTURBED_STOPPED)
		append(line, sizeof(line), &off, "lcore %u stopped %.0f%% of "
			"the time it polled; ", w->stopped_lcore,
			100 * (1 - w->runnable));
	if (n->nb_busy_tasks != 0)
		append(line, sizeof(line), &off, "busiest other task on a poll "
			"CPU: %s (pid %d) %.0f%%", nz.rtask[0].comm,
			nz.rtask[0].pid, 100 * nz.rtask[0].cpu_share);
	/* No busy task: the last cause's "; " goes. */
	if (off >= 2 && line[off - 2] == ';')
		line[off - 2] = '\0';
	say_wrapped(prefix, line);
}

unsigned int
noise_disturbed(void)
{
	return nz.disturbed;
}

void
noise_fill(const struct app *a, struct rxr_report_run *r, const char *tag)
{
	struct rxr_report_noise *n = &r->noise;
	const double window = nz.ended ? ts_diff(&nz.s0.t, &nz.s1.t) : 0;
	struct noise_worst w = { .steal = NAN, .wait = NAN, .runnable = NAN };
	double excess;

	if (!nz.begun || !nz.ended || window <= 0)
		return;
	nz.begun = nz.ended = false;
	memset(n, 0, sizeof(*n));
	r->has_noise = true;
	n->asked_s = a->opt.loops != 0 ? NAN : a->opt.duration_s;
	w.steal = steal_max(&nz.s0, &nz.s1, &w.steal_cpu);
	n->cpus = nz.rcpu;
	n->nb_cpus = nz.nb_cpus;
	noise_fill_lcores(a, n, window, &w);
	n->nb_busy_tasks = busy_tasks(&nz.s0, &nz.s1);
	n->busy_tasks = nz.rtask;

	excess = n->asked_s > 0 ? r->duration_s / n->asked_s - 1 : NAN;
	if (excess > NOISE_DURATION_EXCESS)
		n->disturbed |= RXR_REPORT_DISTURBED_DURATION;
	if (w.steal > NOISE_STEAL_SHARE)
		n->disturbed |= RXR_REPORT_DISTURBED_STEAL;
	if (w.preempted)
		n->disturbed |= RXR_REPORT_DISTURBED_SWITCHES;
	if (!isnan(w.runnable))
		n->disturbed |= RXR_REPORT_DISTURBED_STOPPED;
	nz.measured++;
	if (n->disturbed == 0)
		return;
	nz.disturbed++;
	for (unsigned int i = 0; i < RXR_REPORT_DISTURBED_CAUSES; i++)
		nz.causes[i] += (n->disturbed >> i) & 1;
	/* --progress rounds: counted in the round's line, not one each. */
	if (a->opt.progress != PROGRESS_ROUNDS)
		noise_disturbed_say(a, r, tag, excess, window, &w);
}

void
noise_say(const struct app *a)
{
	char line[512];
	size_t off = 0;

	if (nz.measured == 0)
		return;
	append(line, sizeof(line), &off, "%u of %u repetitions disturbed",
		nz.disturbed, nz.measured);
	/* The causes in parentheses, the first opening them. */
	for (unsigned int i = 0; i < RXR_REPORT_DISTURBED_CAUSES; i++)
		if (nz.causes[i] != 0)
			append(line, sizeof(line), &off, "%s%s %u",
				strchr(line, '(') == NULL ? " (" : ", ",
				rxr_report_disturbance_name(i), nz.causes[i]);
	append(line, sizeof(line), &off, "%s; %s", nz.disturbed != 0 ? ")" : "",
		a->opt.disturbed_exclude ? "disturbed repetitions are left out "
		"of the figures (--disturbed exclude)" : "disturbed repetitions "
		"count in the figures (--disturbed count)");
	say_wrapped(APP ": noise: ", line);
}

void
noise_free(void)
{
	free(nz.s0.tasks);
	free(nz.s1.tasks);
	nz.s0.tasks = nz.s1.tasks = NULL;
	nz.s0.cap_tasks = nz.s1.cap_tasks = 0;
}
