/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * What a report needs to be reproduced and compared: versions, build,
 * kernel and its CPU isolation, the poll CPUs' frequency governors, the
 * page size, and each port's link, firmware and NUMA node.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_memory.h>

#include "rxrefill.h"
#include "rxr_version.h"
#include "rxr_log.h"

#if defined(__clang__)
#define RXR_COMPILER "clang " __clang_version__
#elif defined(__GNUC__)
#define RXR_COMPILER "gcc " __VERSION__
#else
#define RXR_COMPILER "unknown"
#endif

ssize_t
read_file(char *buf, size_t len, const char *fmt, ...)
{
	char path[PATH_MAX];
	size_t got = 0;
	va_list ap;
	int fd;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while (got + 1 < len) {
		ssize_t n = read(fd, buf + got, len - 1 - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	return (ssize_t)got;
}

bool
read_first_line(const char *path, char *buf, size_t len)
{
	ssize_t n = read_file(buf, len, "%s", path);

	buf[n > 0 ? strcspn(buf, "\n") : 0] = '\0';
	return n > 0;
}

bool
read_link_name(const char *path, char *buf, size_t len)
{
	char link[PATH_MAX];
	ssize_t n = readlink(path, link, sizeof(link) - 1);
	const char *base;

	if (n <= 0)
		return false;
	link[n] = '\0';
	base = strrchr(link, '/');
	snprintf(buf, len, "%s", base != NULL ? base + 1 : link);
	return true;
}

/* The value of key=... on the kernel command line, or JSON null. */
static json_t *
cmdline_param(const char *cmdline, const char *key)
{
	size_t klen = strlen(key);
	const char *p = cmdline;

	while ((p = strstr(p, key)) != NULL) {
		bool word = p == cmdline || p[-1] == ' ';

		if (word && p[klen] == '=') {
			const char *v = p + klen + 1;

			return json_stringn(v, strcspn(v, " "));
		}
		p += klen;
	}
	return json_null();
}

static json_t *
kernel_json(void)
{
	struct utsname u;
	char cmdline[4096] = "", buf[1024];

	if (uname(&u) != 0)
		return json_null();
	snprintf(buf, sizeof(buf), "%s %s %s %s", u.sysname, u.release,
		u.version, u.machine);
	read_first_line("/proc/cmdline", cmdline, sizeof(cmdline));
	return json_pack("{s:s, s:s, s:o, s:o}", "uname", buf,
		"release", u.release,
		"isolcpus", cmdline_param(cmdline, "isolcpus"),
		"nohz_full", cmdline_param(cmdline, "nohz_full"));
}

/* One lcore: its CPU, node, role and the CPU's frequency governor. */
static json_t *
lcore_json(unsigned int lcore, const char *role)
{
	int cpu = lcore_cpu(lcore);
	char gov[64];
	json_t *g = json_null();

	if (cpu >= 0 && read_file(gov, sizeof(gov), "/sys/devices/system/"
			"cpu/cpu%d/cpufreq/scaling_governor", cpu) > 0)
		g = json_stringn(gov, strcspn(gov, "\n"));
	return json_pack("{s:i, s:i, s:i, s:s, s:o}", "lcore", (int)lcore,
		"cpu", cpu, "node", (int)rte_lcore_to_socket_id(lcore),
		"role", role, "governor", g);
}

static int
page_size_cb(const struct rte_memseg_list *msl, void *arg)
{
	uint64_t *sz = arg;

	if (msl->page_sz != 0 && msl->memseg_arr.count != 0) {
		*sz = msl->page_sz;
		return 1;
	}
	return 0;
}

/*
 * Into env.ports[]: each port's link, firmware, node; warn when a poll
 * lcore is elsewhere.
 */
static int
ports_env(struct app *a, struct rxr_report *rep)
{
	/* env.ports[], which rxr_report_set_env() made in the same order. */
	json_t *ports = json_object_get(json_object_get(rxr_report_json(rep),
		"env"), "ports");
	int ret = 0;

	for (unsigned int i = 0; i < a->nb_ports; i++) {
		const struct port *p = &a->ports[i];
		struct rte_eth_link link = { 0 };
		char fw[128];
		json_t *remote = json_array();
		int node = rte_eth_dev_socket_id(p->id);

		rte_eth_link_get_nowait(p->id, &link);
		for (unsigned int k = 0; remote != NULL && k < a->nb_pollers; k++) {
			const struct poller *pl = &a->pollers[k];
			unsigned int lnode = rte_lcore_to_socket_id(pl->lcore);
			bool polls = false;

			for (unsigned int q = 0; q < pl->nb_q; q++)
				polls |= pl->q[q].port == p->id;
			if (!polls || node < 0 || (unsigned int)node == lnode)
				continue;
			RXR_LOG(WARNING, "warning: port %u (%s) is on NUMA "
				"node %d but poll lcore %u is on node %u: every "
				"packet crosses the interconnect", p->id, p->name,
				node, pl->lcore, lnode);
			json_array_append_new(remote, json_integer(pl->lcore));
		}
		ret |= json_object_update_new(json_array_get(ports, i), json_pack(
			"{s:i, s:b, s:s, s:o, s:o, s:o}",
			"link_speed_mbps", (int)link.link_speed,
			"link_up", link.link_status == RTE_ETH_LINK_UP,
			"link_duplex", link.link_duplex ? "full" : "half",
			/* null: the PMD does not say */
			"fw_version", rte_eth_dev_fw_version_get(p->id, fw,
				sizeof(fw)) == 0 ? json_string(fw) : json_null(),
			"numa_node", node >= 0 ? json_integer(node) : json_null(),
			"remote_poll_lcores", remote));
	}
	return ret;
}

/*
 * A port's link as seen while receiving: before the first run a stopped
 * port says "down" (and some PMDs no speed), so the env is corrected from
 * samples taken during the measurements.
 */
static struct rte_eth_link link_seen[MAX_PORTS];

void
env_link_sample(struct app *a)
{
	for (unsigned int i = 0; i < a->nb_ports; i++) {
		struct rte_eth_link l = { 0 };

		if (!a->ports[i].started ||
				rte_eth_link_get_nowait(a->ports[i].id, &l) != 0 ||
				l.link_status != RTE_ETH_LINK_UP)
			continue;
		link_seen[i] = l;
	}
}

int
env_link_commit(struct app *a, struct rxr_report *rep)
{
	json_t *ports = json_object_get(json_object_get(rxr_report_json(rep),
		"env"), "ports");
	int ret = 0;

	for (unsigned int i = 0; i < a->nb_ports; i++) {
		json_t *p = json_array_get(ports, i);

		if (p == NULL || link_seen[i].link_status != RTE_ETH_LINK_UP)
			continue;
		ret |= json_object_update_new(p, json_pack("{s:b, s:I, s:s}",
			"link_up", true, "link_speed_mbps",
			(json_int_t)link_seen[i].link_speed, "link_duplex",
			link_seen[i].link_duplex ? "full" : "half"));
	}
	return ret != 0 ? -ENOMEM : 0;
}

int
env_collect(struct app *a, struct rxr_report *rep)
{
	json_t *lcores = json_array();
	uint64_t page_sz = 0;
	int ret = 0;

	if (RXR_DEBUG)
		RXR_LOG(WARNING, "warning: built with debug checks: not for "
			"comparison (-Ddebug_checks=false for measurements)");
	memset(link_seen, 0, sizeof(link_seen));
	json_array_append_new(lcores, lcore_json(rte_get_main_lcore(), "main"));
	for (unsigned int k = 0; k < a->nb_pollers; k++)
		json_array_append_new(lcores, lcore_json(a->pollers[k].lcore,
			"poll"));
	rte_memseg_list_walk(page_size_cb, &page_sz);
	ret |= rxr_report_env_set(rep, "rxrefill_version",
		json_string(rxr_version()));
	ret |= rxr_report_env_set(rep, "build", json_pack("{s:s, s:b, s:s}",
		"type", RXR_BUILD_TYPE, "debug_checks", RXR_DEBUG != 0,
		"compiler", RXR_COMPILER));
	ret |= rxr_report_env_set(rep, "kernel", kernel_json());
	ret |= rxr_report_env_set(rep, "lcore_cpus", lcores);
	ret |= rxr_report_env_set(rep, "page_size_kb", page_sz != 0 ?
		json_integer((json_int_t)(page_sz / 1024)) : json_null());
	ret |= rxr_report_env_set(rep, "hugepage_size_kb",
		a->backing != RXR_MEM_NO_HUGE && page_sz != 0 ?
		json_integer((json_int_t)(page_sz / 1024)) : json_null());
	ret |= ports_env(a, rep);
	if (ret != 0) {
		RXR_LOG(ERR, "report: environment: out of memory");
		return -ENOMEM;
	}
	return 0;
}
