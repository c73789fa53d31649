/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Where the run's threads go: the CPUs EAL's lcore options name, tried
 * before EAL starts; then the consumer threads and the zeroing thread,
 * placed on the CPUs the process was given.
 *
 * EAL pins each lcore's thread to its CPUs; where the process may not run
 * there (a container's or a cgroup's cpuset) it fails with "Invalid
 * argument", or panics for a worker lcore. So each lcore's set is tried
 * first on the calling thread, as EAL will set it: a CPU outside a
 * taskset mask alone passes (EAL may widen the affinity to it).
 */

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "rxrefill.h"
#include "rxr_log.h"
#include "rxr_proc_text.h"

/* A range, or "(range,range,...)": --lcores' sets. */
static int
cpu_group(const char **s, cpu_set_t *set)
{
	if (**s != '(')
		return rxr_proc_cpu_range(s, set);
	(*s)++;
	for (;;) {
		if (rxr_proc_cpu_range(s, set) != 0)
			return -1;
		if (**s == ')')
			break;
		if (**s != ',')
			return -1;
		(*s)++;
	}
	(*s)++;
	return 0;
}

/* Whether EAL cannot pin an lcore to @p elem: then in @p bad. */
static bool
elem_outside(const cpu_set_t *elem, cpu_set_t *bad)
{
	if (sched_setaffinity(0, sizeof(*elem), elem) == 0)
		return false;
	*bad = *elem;
	return true;
}

/* The first CPU of @p set that this thread cannot run on alone, as the
 * lcores of -l or -c are pinned, in @p bad. */
static bool
each_outside(const cpu_set_t *set, cpu_set_t *bad)
{
	for (unsigned int c = 0; c < CPU_SETSIZE; c++) {
		CPU_ZERO(bad);
		CPU_SET(c, bad);
		if (CPU_ISSET(c, set) && elem_outside(bad, bad))
			return true;
	}
	return false;
}

/*
 * Each parser: 1 with the first lcore's CPUs EAL cannot pin it to in
 * @p bad, 0 when there is none, -1 when @p s does not parse (EAL's own
 * message says what is wrong then).
 */

/* -c "0x3": a hexadecimal mask of lcores, each on the CPU of its number. */
static int
parse_mask(const char *s, cpu_set_t *bad)
{
	cpu_set_t set;
	size_t len;

	CPU_ZERO(&set);
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	len = strlen(s);
	if (len == 0 || strspn(s, "0123456789abcdefABCDEF") != len)
		return -1;
	for (size_t i = 0; i < len; i++) {
		int c = tolower((unsigned char)s[len - 1 - i]);
		unsigned int v = isdigit(c) ? (unsigned int)(c - '0') :
			(unsigned int)(c - 'a' + 10);

		/* CPU_SETSIZE is a multiple of 4: the digit is inside or out. */
		if (v != 0 && i * 4 >= CPU_SETSIZE)
			return -1;
		for (unsigned int b = 0; b < 4; b++)
			if ((v & (1u << b)) != 0)
				CPU_SET(i * 4 + b, &set);
	}
	return each_outside(&set, bad);
}

/*
 * --lcores "(0,1)@0,2@1": lcore sets, each on the CPUs after '@'; with
 * none, a group "(0,6)" on the group's CPUs, a range "7-8" each lcore on
 * the CPU of its number, as EAL reads them. -l "0-3,5" is the last form.
 */
static int
parse_lcores(const char *s, cpu_set_t *bad)
{
	for (;;) {
		bool group = *s == '(';
		cpu_set_t lc, cpus;

		CPU_ZERO(&lc);
		CPU_ZERO(&cpus);
		if (cpu_group(&s, &lc) != 0)
			return -1;
		if (*s == '@') {
			s++;
			if (cpu_group(&s, &cpus) != 0)
				return -1;
			if (elem_outside(&cpus, bad))
				return 1;
		} else if (group ? elem_outside(&lc, bad) :
				each_outside(&lc, bad)) {
			return 1;
		}
		if (*s == '\0')
			return 0;
		if (*s++ != ',')
			return -1;
	}
}

/* "0-3,6": @p set as a list of ranges. */
static void
cpus_str(const rte_cpuset_t *set, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned int c = 0; c < CPU_SETSIZE && off < len; c++) {
		unsigned int e = c;

		if (!CPU_ISSET(c, set))
			continue;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
			e++;
		off += snprintf(buf + off, len - off, "%s%u", off ? "," : "", c);
		if (e > c && off < len)
			off += snprintf(buf + off, len - off, "-%u", e);
		c = e;
	}
}

/*
 * The value of EAL option @p i of argv ("-l 0-1", "-l0-1", "--lcores=..",
 * "--lcores .."), its name in *name; NULL when argv[i] is none of them.
 */
static const char *
lcore_option(int argc, char **argv, int *i, const char **name)
{
	static const char * const opts[] = { "-l", "-c", "--lcores" };
	const char *a = argv[*i];

	for (unsigned int k = 0; k < RTE_DIM(opts); k++) {
		size_t n = strlen(opts[k]);

		if (strncmp(a, opts[k], n) != 0)
			continue;
		*name = opts[k];
		if (a[n] == '\0')
			return *i + 1 < argc ? argv[++*i] : NULL;
		if (k == 2 && a[n] != '=')
			continue;
		return a + n + (k == 2);
	}
	return NULL;
}

bool
cpus_outside(int argc, char **argv, const rte_cpuset_t *own)
{
	char list[256], cpus[256];
	cpu_set_t bad, possible;
	bool found = false;

	for (int i = 1; i < argc && !found && strcmp(argv[i], "--") != 0;
			i++) {
		const char *name = NULL, *val = lcore_option(argc, argv, &i, &name);

		if (val == NULL)
			continue;
		found = (strcmp(name, "-c") == 0 ? parse_mask(val, &bad) :
			parse_lcores(val, &bad)) == 1;
		if (!found)
			continue;
		/* The CPUs this process can be pinned to, each tried alone. */
		CPU_ZERO(&possible);
		for (long c = 0; c < sysconf(_SC_NPROCESSORS_CONF) &&
				c < CPU_SETSIZE; c++) {
			cpu_set_t one, dummy;

			CPU_ZERO(&one);
			CPU_SET(c, &one);
			if (!elem_outside(&one, &dummy))
				CPU_SET(c, &possible);
		}
		cpus_str(&bad, cpus, sizeof(cpus));
		cpus_str(&possible, list, sizeof(list));
		RXR_LOG(ERR, "%s %s pins an lcore to CPU%s %s, where "
			"this process cannot run: it may run only on CPU%s %s "
			"(its cpuset: a container's, a cgroup's); name CPUs "
			"among those", name, val,
			strpbrk(cpus, ",-") != NULL ? "s" : "", cpus,
			strpbrk(list, ",-") != NULL ? "s" : "", list);
	}
	/* EAL sets each thread's affinity itself: the caller's, as given. */
	if (sched_setaffinity(0, sizeof(*own), own) != 0 && !found) {
		RXR_LOG(ERR, "cannot restore this thread's CPU affinity after "
			"trying the lcores' CPUs: %s", strerror(errno));
		return true;
	}
	return found;
}

/*
 * The first CPU an lcore runs on. rte_lcore_to_cpu_id() is the core id of
 * the CPU numbered like the lcore, which EAL's --lcores '(0,1)@0,2@1'
 * maps elsewhere.
 */
int
lcore_cpu(unsigned int lcore)
{
	rte_cpuset_t set = rte_lcore_cpuset(lcore);

	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set))
			return cpu;
	return -1;
}

/* Whether a poll lcore of the run may run on @p cpu. */
static bool
cpu_polled(const struct app *a, int cpu)
{
	for (unsigned int k = 0; cpu >= 0 && k < a->nb_pollers; k++) {
		rte_cpuset_t set = rte_lcore_cpuset(a->pollers[k].lcore);

		if (CPU_ISSET(cpu, &set))
			return true;
	}
	return false;
}

/*
 * The CPUs that threads which are no lcore (consumers, the zeroing
 * thread) take first: those the process was given that no poll lcore
 * runs on, the main lcore's first (it only reports). @return how many,
 * in @p cpus.
 */
static unsigned int
free_cpus(const struct app *a, int *cpus)
{
	int main_cpu = lcore_cpu(rte_get_main_lcore());
	unsigned int n = 0;

	if (main_cpu >= 0 && CPU_ISSET(main_cpu, &a->start_cpus) &&
			!cpu_polled(a, main_cpu))
		cpus[n++] = main_cpu;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (cpu != main_cpu && CPU_ISSET(cpu, &a->start_cpus) &&
				!cpu_polled(a, cpu))
			cpus[n++] = cpu;
	return n;
}

/*
 * Poll lcore @p k's other-cpu consumer CPU: one of the free CPUs in turn,
 * so that the consumers of many queues do not crowd one CPU; with none,
 * the next poll lcore's CPU (each CPU polls and frees another's packets),
 * else any other the process was given; -1 when there is none.
 */
static int
other_cpu(const struct app *a, unsigned int k, const int *spare,
		unsigned int nb_spare)
{
	int own = lcore_cpu(a->pollers[k].lcore);

	if (nb_spare != 0)
		return spare[k % nb_spare];
	for (unsigned int i = 1; i < a->nb_pollers; i++) {
		int cpu = lcore_cpu(a->pollers[(k + i) % a->nb_pollers].lcore);

		if (cpu >= 0 && cpu != own && CPU_ISSET(cpu, &a->start_cpus))
			return cpu;
	}
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (cpu != own && CPU_ISSET(cpu, &a->start_cpus))
			return cpu;
	return -1;
}

int
cpus_place(struct app *a)
{
	static int spare[CPU_SETSIZE];
	unsigned int nb_spare = free_cpus(a, spare);

	/* The zeroing thread: a free CPU, else beside the main lcore. */
	a->zeroer_cpu = nb_spare != 0 ? spare[0] :
		lcore_cpu(rte_get_main_lcore());
	for (unsigned int k = 0; k < a->nb_pollers; k++) {
		struct poller *pl = &a->pollers[k];
		int cpu = lcore_cpu(pl->lcore);

		pl->consumer_cpu = a->opt.consumer == CONSUMER_SAME_CPU ? cpu :
			a->opt.consumer == CONSUMER_OTHER_CPU ?
			other_cpu(a, k, spare, nb_spare) : -1;
		if (a->opt.consumer == CONSUMER_OTHER_CPU && pl->consumer_cpu < 0) {
			char list[256];

			cpus_str(&a->start_cpus, list, sizeof(list));
			RXR_LOG(ERR, "--consumer other-cpu: poll lcore %u runs "
				"on CPU %d and this process may run on no other "
				"(its CPUs at start: %s); give it two CPUs "
				"(taskset, its cpuset) or use --consumer same-cpu",
				pl->lcore, cpu, list[0] != '\0' ? list : "none");
			return -1;
		}
	}
	return 0;
}

void
cpus_pin_self(int cpu, const char *who)
{
	cpu_set_t set;
	int ret = EINVAL;

	CPU_ZERO(&set);
	if (cpu >= 0) {
		CPU_SET(cpu, &set);
		ret = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	if (ret != 0)
		RXR_LOG(ERR, "%s: cannot run on CPU %d: %s; it runs where the "
			"scheduler puts it", who, cpu, strerror(ret));
}
