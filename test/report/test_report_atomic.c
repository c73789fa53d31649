/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rxr_report_write_atomic() under SIGKILL: a child rewrites a large report
 * in a loop and is killed at random moments and right after its temporary
 * file appears; the target must always load as a complete, valid report,
 * either the previous one or a newer one.
 */

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rxr_report.h"
#include "rxr_test.h"
#include "report_fixture.h"

/* Big enough that one write takes milliseconds: kills land inside it. */
#define BIG_REPS 100

static char dir[] = "/tmp/rxr_report_atomic.XXXXXX";
static char path[128];
/* Built once by the parent; every writer child inherits it. */
static struct rxr_report *big;

/* Temporary files a killed writer left behind; removed, and counted. */
static unsigned int
sweep_temps(void)
{
	struct dirent *de;
	unsigned int n = 0;
	char p[512];
	DIR *d = opendir(dir);

	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, ".r.json.tmp.", 12) != 0)
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		unlink(p);
		n++;
	}
	closedir(d);
	return n;
}

static bool
temp_exists(void)
{
	struct dirent *de;
	bool found = false;
	DIR *d = opendir(dir);

	if (d == NULL)
		return false;
	while (!found && (de = readdir(d)) != NULL)
		found = strncmp(de->d_name, ".r.json.tmp.", 12) == 0;
	closedir(d);
	return found;
}

/* The child: tell the parent it is ready, then rewrite forever. */
static void
writer(int ready_fd)
{
	struct rxr_report *r = big;
	char err[RXR_REPORT_ERR_LEN];
	int64_t gen;

	if (write(ready_fd, "r", 1) != 1)
		_exit(3);
	for (gen = 1; ; gen++) {
		rxr_report_set_option_int(r, "generation", gen);
		if (rxr_report_write_atomic(r, path, err, sizeof(err)) != 0) {
			fprintf(stderr, "writer: %s\n", err);
			_exit(2);
		}
	}
}

static pid_t
start_writer(void)
{
	int fds[2];
	char c;
	pid_t pid;

	if (pipe(fds) != 0)
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		writer(fds[1]);
	}
	close(fds[1]);
	if (pid > 0 && read(fds[0], &c, 1) != 1) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(fds[0]);
	return pid;
}

/* The target loads and validates; its generation is returned (0: seed). */
static int
check_target(int64_t *gen)
{
	char err[RXR_REPORT_ERR_LEN];
	struct rxr_report *r = rxr_report_load(path, err, sizeof(err));
	json_t *g;

	RXR_TEST_ASSERT(r != NULL, "target is not a valid report: %s", err);
	g = json_object_get(json_object_get(json_object_get(
		rxr_report_json(r), "env"), "options"), "generation");
	*gen = g != NULL ? json_integer_value(g) : 0;
	rxr_report_free(r);
	return 0;
}

static int
kill_and_check(pid_t pid, int64_t *gen)
{
	int status;

	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	RXR_TEST_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
		"writer ended by itself (status %d)", status);
	return check_target(gen);
}

static int
seed(void)
{
	struct fixture_conf conf = { .host = "seed", .scale = 1, .reps = 1 };
	struct rxr_report *r = fixture_report(&conf);
	char err[RXR_REPORT_ERR_LEN];
	int ret = rxr_report_write_atomic(r, path, err, sizeof(err));

	rxr_report_free(r);
	RXR_TEST_ASSERT(ret == 0, "seed: %s", err);
	return 0;
}

static int
test_kill_random(void)
{
	unsigned int i, leftovers = 0, newer = 0;
	int64_t gen, last = 0;
	pid_t pid;

	if (seed())
		return -1;
	srand((unsigned int)time(NULL) ^ (unsigned int)getpid());
	for (i = 0; i < 20; i++) {
		/* 0-60 ms: some kills before, inside or after a write. */
		struct timespec ts = { 0, (rand() % 60000) * 1000L };

		pid = start_writer();
		RXR_TEST_ASSERT(pid > 0, "fork");
		nanosleep(&ts, NULL);
		if (kill_and_check(pid, &gen))
			return -1;
		/* Generations only move forward within one writer. */
		newer += gen > 0;
		last = gen;
		leftovers += sweep_temps();
	}
	printf("# %u kills: target newer than the seed %u times, %u "
		"temporary files left by killed writers (last generation "
		"%lld)\n", i, newer, leftovers, (long long)last);
	return 0;
}

static int
test_kill_mid_write(void)
{
	unsigned int i, caught = 0;
	int64_t gen;
	pid_t pid;

	if (seed())
		return -1;
	for (i = 0; i < 10; i++) {
		struct timespec poll = { 0, 50000 };
		int waited;

		sweep_temps();
		pid = start_writer();
		RXR_TEST_ASSERT(pid > 0, "fork");
		/* Kill as soon as the temporary file exists: mid-write. */
		for (waited = 0; !temp_exists() && waited < 40000; waited++)
			nanosleep(&poll, NULL);
		if (kill_and_check(pid, &gen))
			return -1;
		caught += sweep_temps() > 0;
	}
	printf("# %u kills, %u of them with a temporary file still there "
		"(killed before the rename)\n", i, caught);
	/* Not one kill inside a write would mean the test tested nothing. */
	RXR_TEST_ASSERT(caught > 0, "no kill landed inside a write");
	return 0;
}

static int
test_old_survives(void)
{
	char err[RXR_REPORT_ERR_LEN];
	struct rxr_report *r;
	unsigned int i;
	int64_t gen;
	pid_t pid;

	/* Killed before its first rename, a writer changes nothing. */
	for (i = 0; i < 5; i++) {
		struct timespec poll = { 0, 20000 };
		int waited;

		if (seed())
			return -1;
		sweep_temps();
		pid = start_writer();
		RXR_TEST_ASSERT(pid > 0, "fork");
		for (waited = 0; !temp_exists() && waited < 100000; waited++)
			nanosleep(&poll, NULL);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		if (check_target(&gen))
			return -1;
		r = rxr_report_load(path, err, sizeof(err));
		RXR_TEST_ASSERT(r != NULL, "%s", err);
		/* Either still the seed, or a whole newer report. */
		RXR_TEST_ASSERT(gen == 0 || rxr_report_nb_runs(r) ==
			4 * BIG_REPS, "generation %lld with %u runs",
			(long long)gen, rxr_report_nb_runs(r));
		rxr_report_free(r);
	}
	sweep_temps();
	return 0;
}

int
main(void)
{
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return EXIT_FAILURE;
	}
	snprintf(path, sizeof(path), "%s/r.json", dir);
	big = fixture_report(&(struct fixture_conf){ .host = "big",
		.scale = 1, .reps = BIG_REPS, .with_recycle = true,
		.with_nobulk = true });
	rxr_test_run("kill_random", test_kill_random);
	rxr_test_run("kill_mid_write", test_kill_mid_write);
	rxr_test_run("old_survives", test_old_survives);
	sweep_temps();
	unlink(path);
	rmdir(dir);
	rxr_report_free(big);
	return rxr_test_done();
}
