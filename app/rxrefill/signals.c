/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Stops: which signals end a session cleanly, and the one line that says
 * why a session or a repetition ended early.
 */

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "rxrefill.h"
#include "rxr_log.h"

/* The first stop signal: the exit status and the report's cut_short
 * name the same one, whatever follows. 0: none yet. */
static atomic_int quit_signal;
atomic_bool force_quit;
atomic_bool run_stop;
atomic_bool listing_stop;

/* Lock-free atomics only: async-signal-safe, on whichever thread. */
static void
on_signal(int sig)
{
	int none = 0;

	atomic_compare_exchange_strong(&quit_signal, &none, sig);
	flag_set(&force_quit, true);
	flag_set(&run_stop, true);
	flag_set(&listing_stop, true);
}

static const char *
signal_name(int sig)
{
	static const char *const names[] = {
		[SIGINT] = "SIGINT", [SIGTERM] = "SIGTERM",
		[SIGHUP] = "SIGHUP", [SIGQUIT] = "SIGQUIT",
	};

	return sig > 0 && sig < (int)RTE_DIM(names) && names[sig] != NULL ?
		names[sig] : "a signal";
}

/*
 * SIGINT, SIGTERM, SIGHUP (the terminal or ssh session went away) and
 * SIGQUIT stop cleanly: the repetition in progress ends, is marked cut
 * short, the report is written. SIGPIPE is ignored: a closed stdout
 * (rxrefill ... | head) makes writes fail, never loses the run; and so is
 * SIGXFSZ: a report past ulimit -f fails to write (EFBIG) and says so.
 */
void
signals_install(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct sigaction ign = { .sa_handler = SIG_IGN };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);
	sigaction(SIGPIPE, &ign, NULL);
	sigaction(SIGXFSZ, &ign, NULL);
}

int
signals_caught(void)
{
	return atomic_load(&quit_signal);
}

const char *
signals_caught_name(void)
{
	return signal_name(atomic_load(&quit_signal));
}

/* Why the repetition that just ended did not run to its end; NULL: it did. */
const char *
run_cut_short(bool stopped, uint64_t cycles)
{
	if (stopped)
		return signal_name(atomic_load(&quit_signal));
	if (cycles == 0)
		return "ports did not start";
	return NULL;
}

/* The one line on how the session ended, when it ended early. */
void
stop_say(unsigned int done, unsigned int total)
{
	if (atomic_load(&quit_signal) == 0)
		return;
	/* With none done there is no report to mark anything in. */
	RXR_LOG(NOTICE, "stopped by %s after %u of %u repetitions%s",
		signal_name(atomic_load(&quit_signal)), done, total,
		done > 0 && done < total ? "; the one in progress, if any, is "
		"marked cut short in the report" : "");
}
