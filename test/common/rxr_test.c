/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * The TAP harness, the abort catcher, EAL start for tests and the
 * benchmarks' run in both memories (rxr_test.h).
 */

#include <alloca.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>

#include "rxr_proc_text.h"
#include "rxr_test.h"

static unsigned int nr_tests;
static unsigned int nr_failed;

void
rxr_test_run(const char *name, int (*fn)(void))
{
	int ret;

	fflush(stdout);
	ret = fn();
	nr_tests++;
	if (ret != 0)
		nr_failed++;
	printf("%s %u - %s\n", ret == 0 ? "ok" : "not ok", nr_tests, name);
	fflush(stdout);
}

int
rxr_test_done(void)
{
	printf("1..%u\n", nr_tests);
	printf("# %u passed, %u failed\n", nr_tests - nr_failed, nr_failed);
	return nr_failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

int
rxr_test_expect_abort(void (*fn)(void *), void *arg, const char *needle)
{
	char out[8192];
	size_t len = 0;
	ssize_t n;
	int fds[2], status;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	if (pipe(fds) != 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		struct sigaction sa = { .sa_handler = SIG_DFL };

		/* The sanitizers and EAL may have hooked SIGABRT; undo it. */
		sigaction(SIGABRT, &sa, NULL);
		close(fds[0]);
		dup2(fds[1], STDERR_FILENO);
		fn(arg);
		_exit(0);
	}
	close(fds[1]);
	while (len < sizeof(out) - 1 &&
			(n = read(fds[0], out + len, sizeof(out) - 1 - len)) > 0)
		len += n;
	out[len] = '\0';
	close(fds[0]);
	waitpid(pid, &status, 0);

	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGABRT) {
		printf("# expected an abort with \"%s\", child %s %d; stderr: %s\n",
			needle, WIFSIGNALED(status) ? "got signal" : "exited",
			WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status),
			out);
		return -1;
	}
	if (strstr(out, needle) == NULL) {
		printf("# aborted, but stderr lacks \"%s\": %s\n", needle, out);
		return -1;
	}
	/* Show what fired: the line that holds the needle. */
	{
		char *line = strstr(out, needle), *end = strchr(line, '\n');

		printf("# caught: %.*s\n", end != NULL ? (int)(end - line) :
			(int)strlen(line), line);
	}
	return 0;
}

/* The memory mode a benchmark child runs in (rxr_bench_each_memory()). */
#define BENCH_MEMORY_ENV "RXR_BENCH_MEMORY"

const char *
rxr_bench_memory_tag(void)
{
	const char *m = getenv(BENCH_MEMORY_ENV);

	if (m == NULL)
		return "";
	return strcmp(m, "nohuge") == 0 ? ".nohuge" : ".huge";
}

int
rxr_bench_each_memory(int argc, char **argv)
{
	static const char * const modes[] = { "huge", "nohuge" };
	struct rxr_hugepage_info hp;
	char model[256];
	int rc = EXIT_SUCCESS;

	RTE_SET_USED(argc);
	/* Whole lines: EAL's log lines on stderr go between them, not into
	 * them, when both go to one file. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (getenv(BENCH_MEMORY_ENV) != NULL)
		return -1;
	rxr_cpu_model(model, sizeof(model));
	printf("# cpu: %s (%ld online)\n", model, sysconf(_SC_NPROCESSORS_ONLN));
	printf("# every figure twice, in a process of its own: on hugepages "
		"(names end .huge) and on ordinary memory (--no-huge, .nohuge)\n");
	for (unsigned int i = 0; i < RTE_DIM(modes); i++) {
		int status;
		pid_t pid;

		if (!rxr_hugepage_probe(&hp) && i == 0) {
			printf("# memory huge: no usable hugepages here, not "
				"measured\n");
			continue;
		}
		printf("# memory %s: %s\n", modes[i], i == 0 ? "hugepages" :
			"ordinary memory (--no-huge)");
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			return EXIT_FAILURE;
		if (pid == 0) {
			setenv(BENCH_MEMORY_ENV, modes[i], 1);
			execv("/proc/self/exe", argv);
			_exit(127);
		}
		if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
				WEXITSTATUS(status) != 0) {
			printf("# memory %s: the run failed\n", modes[i]);
			rc = EXIT_FAILURE;
		}
	}
	return rc;
}

/* One job per worker lcore, and a word whose read-modify-writes order
 * each hand-off in both directions (a release sequence). */
static struct {
	int (*fn)(void *);
	void *arg;
} launch_job[RTE_MAX_LCORE];
static unsigned long launch_sync;

static int
launch_trampoline(void *arg)
{
	unsigned int lcore = (unsigned int)(uintptr_t)arg;
	int ret;

	__atomic_fetch_add(&launch_sync, 1, __ATOMIC_ACQ_REL);
	ret = launch_job[lcore].fn(launch_job[lcore].arg);
	__atomic_fetch_add(&launch_sync, 1, __ATOMIC_ACQ_REL);
	return ret;
}

int
rxr_bench_on_stack(unsigned int trial, int (*fn)(void *), void *arg)
{
	uintptr_t sp = (uintptr_t)__builtin_frame_address(0);
	unsigned int offset = RTE_CACHE_LINE_SIZE * (trial * 26u % 64u);
	char *pad = alloca((sp - offset) % 4096 + 1);

	asm volatile("" : : "r"(pad) : "memory");	/* kept where it is */
	return fn(arg);
}

int
rxr_test_remote_launch(int (*fn)(void *), void *arg, unsigned int lcore)
{
	if (lcore >= RTE_MAX_LCORE)
		return -EINVAL;
	launch_job[lcore].fn = fn;
	launch_job[lcore].arg = arg;
	__atomic_fetch_add(&launch_sync, 1, __ATOMIC_ACQ_REL);
	return rte_eal_remote_launch(launch_trampoline,
			(void *)(uintptr_t)lcore, lcore);
}

int
rxr_test_wait_lcore(unsigned int lcore)
{
	int ret = rte_eal_wait_lcore(lcore);

	__atomic_fetch_add(&launch_sync, 1, __ATOMIC_ACQ_REL);
	return ret;
}

static pid_t eal_pid;
static char eal_run_dir[PATH_MAX];

/* Remove a runtime directory and the files EAL keeps in it. */
static void
remove_run_dir(const char *path)
{
	struct dirent *e;
	DIR *d = opendir(path);

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			unlinkat(dirfd(d), e->d_name, 0);
	closedir(d);
	rmdir(path);
}

/*
 * At exit of the process that started EAL: its runtime directory
 * (/run/dpdk/rxrt_<pid>), which DPDK 22.11 keeps even after
 * rte_eal_cleanup(). The prefix is this process's own; with --huge-unlink
 * no hugepage file is left either. No rte_eal_cleanup() here: an exit
 * handler runs after the libraries' destructors, where EAL's teardown is
 * not safe.
 */
static void
eal_exit_cleanup(void)
{
	if (getpid() == eal_pid)
		remove_run_dir(eal_run_dir);
}

/*
 * A test that dies by a signal, an abort or a sanitizer's halt runs no
 * exit handler: beside this process's runtime directory @p run_dir, remove
 * those of test prefixes whose process is gone (rxrt_<pid>, no such pid).
 * A live process of that pid, ours or not, keeps its directory.
 */
static void
sweep_dead_prefixes(const char *run_dir)
{
	char base[PATH_MAX], path[PATH_MAX];
	struct dirent *e;
	char *slash;
	DIR *d;

	if (snprintf(base, sizeof(base), "%s", run_dir) >= (int)sizeof(base))
		return;
	slash = strrchr(base, '/');
	if (slash == NULL)
		return;
	*slash = '\0';
	d = opendir(base);
	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		char *end;
		long pid;

		if (strncmp(e->d_name, "rxrt_", 5) != 0)
			continue;
		errno = 0;
		pid = strtol(e->d_name + 5, &end, 10);
		if (*end != '\0' || end == e->d_name + 5 || pid <= 0 ||
				pid > INT_MAX || kill((pid_t)pid, 0) == 0 ||
				errno != ESRCH)
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", base,
				e->d_name) < sizeof(path))
			remove_run_dir(path);
	}
	closedir(d);
}

enum rxr_mem_backing
rxr_test_eal_init(const char *prog, const char *lcores, unsigned int mib, ...)
{
	char prefix[64], lc[64], mem[16];
	char *argv[32];
	enum rxr_mem_backing backing;
	const char *extra, *run_dir, *name;
	va_list ap;
	int argc = 0;

	snprintf(prefix, sizeof(prefix), "--file-prefix=rxrt_%d", (int)getpid());
	snprintf(lc, sizeof(lc), "-l%s", lcores);
	snprintf(mem, sizeof(mem), "%u", mib);
	argv[argc++] = (char *)(uintptr_t)prog;
	argv[argc++] = lc;
	argv[argc++] = (char *)(uintptr_t)"--no-pci";
	argv[argc++] = prefix;
	argv[argc++] = (char *)(uintptr_t)"--log-level=lib.eal:error";
	argv[argc++] = (char *)(uintptr_t)"--no-telemetry";
	/* A benchmark child on ordinary memory; on hugepages it needs them. */
	if (getenv(BENCH_MEMORY_ENV) != NULL &&
			strcmp(getenv(BENCH_MEMORY_ENV), "nohuge") == 0) {
		argv[argc++] = (char *)(uintptr_t)"--no-huge";
		argv[argc++] = (char *)(uintptr_t)"-m";
		argv[argc++] = mem;
	} else {
		/* No hugepage file outlives the test, however it ends (no
		 * test runs a secondary process); rxr_eal_init() leaves it
		 * out where it falls back to ordinary memory. */
		argv[argc++] = (char *)(uintptr_t)"--huge-unlink";
	}
	va_start(ap, mib);
	while ((extra = va_arg(ap, const char *)) != NULL && argc < 30)
		argv[argc++] = (char *)(uintptr_t)extra;
	va_end(ap);
	argv[argc] = NULL;

	if (rxr_eal_init(argc, argv, mib, stderr, &backing) < 0) {
		fprintf(stderr, "%s: cannot start EAL: %s\n", prog,
			rte_strerror(rte_errno));
		exit(EXIT_FAILURE);
	}
	/* Only the directory of this process's own prefix is removed. */
	run_dir = rte_eal_get_runtime_dir();
	sweep_dead_prefixes(run_dir);
	name = strrchr(run_dir, '/');
	if (strlen(run_dir) < sizeof(eal_run_dir) && name != NULL &&
			strcmp(name + 1, prefix + strlen("--file-prefix=")) == 0) {
		strcpy(eal_run_dir, run_dir);
		eal_pid = getpid();
		atexit(eal_exit_cleanup);
	}
	printf("# memory: %s\n", rxr_mem_backing_name(backing));
	if (getenv(BENCH_MEMORY_ENV) != NULL &&
			strcmp(getenv(BENCH_MEMORY_ENV), "huge") == 0 &&
			backing != RXR_MEM_HUGEPAGES) {
		printf("# hugepages asked for, not had: not measured\n");
		exit(EXIT_FAILURE);
	}
	return backing;
}

char *
rxr_test_unwrap(char *text)
{
	char *w = text;

	if (text == NULL)
		return NULL;
	for (const char *r = text; *r != '\0'; r++) {
		if (r[0] == '\n' && strncmp(r + 1, "    ", 4) == 0 &&
				r[5] != ' ') {
			*w++ = ' ';
			r += 4;
			continue;
		}
		*w++ = *r;
	}
	*w = '\0';
	return text;
}
