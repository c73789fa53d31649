/* SPDX-License-Identifier: BSD-3-Clause */

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>

#include "rxr_hugepage.h"

#define HP_SYSFS "/sys/kernel/mm/hugepages"

/* The number @p fmt scans on the first line of @p path it fits; 0: none. */
static unsigned long
scan_file(const char *path, const char *fmt)
{
	unsigned long v = 0;
	char line[128];
	FILE *f = fopen(path, "r");

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, fmt, &v) == 1)
			break;
	fclose(f);
	return v;
}

/*
 * Page size of a hugetlbfs mount, kB: its pagesize= option ("2M",
 * "1024M"), else the default size, as EAL reads it; 0 when unknown.
 */
static unsigned long
mount_page_kb(const char *opts, unsigned long default_kb)
{
	const char *p = strstr(opts, "pagesize=");
	unsigned long v;
	char *end;

	if (p == NULL || (p != opts && p[-1] != ','))
		return default_kb;
	v = strtoul(p + 9, &end, 10);
	switch (tolower((unsigned char)*end)) {
	case 'g':
		return v << 20;
	case 'm':
		return v << 10;
	case 'k':
		return v;
	default:
		return v >> 10;
	}
}

/* Free pages of one size less those reserved by mappings not yet
 * faulted in (resv_hugepages), as EAL counts them. */
static unsigned int
free_unreserved(const char *dir)
{
	unsigned long free_pages, resv;
	char path[128];

	snprintf(path, sizeof(path), HP_SYSFS "/%s/free_hugepages", dir);
	free_pages = scan_file(path, "%lu");
	snprintf(path, sizeof(path), HP_SYSFS "/%s/resv_hugepages", dir);
	resv = scan_file(path, "%lu");
	return free_pages > resv ? (unsigned int)(free_pages - resv) : 0;
}

bool
rxr_hugepage_probe(struct rxr_hugepage_info *info)
{
	/* The system's default size: Hugepagesize of /proc/meminfo. */
	unsigned long def_kb = scan_file("/proc/meminfo",
		"Hugepagesize: %lu kB");
	char line[1024];
	FILE *f;

	memset(info, 0, sizeof(*info));
	info->free_2m = free_unreserved("hugepages-2048kB");
	info->free_1g = free_unreserved("hugepages-1048576kB");

	f = fopen("/proc/mounts", "r");
	if (f == NULL)
		return false;
	while (fgets(line, sizeof(line), f) != NULL) {
		char dev[128], dir[256], type[64], opts[512];
		unsigned long kb;

		if (sscanf(line, "%127s %255s %63s %511s", dev, dir, type,
				opts) != 4 || strcmp(type, "hugetlbfs") != 0)
			continue;
		info->mounted = true;
		kb = mount_page_kb(opts, def_kb);
		info->mounted_2m |= kb == 2048;
		info->mounted_1g |= kb == 1048576;
	}
	fclose(f);
	return (info->mounted_2m && info->free_2m > 0) ||
		(info->mounted_1g && info->free_1g > 0);
}

const char *
rxr_mem_backing_name(enum rxr_mem_backing b)
{
	return b == RXR_MEM_HUGEPAGES ? "hugepages" : "no-huge";
}

/* Whether arg is option opt ("-m", "-m=..."). */
static bool
opt_is(const char *arg, const char *opt)
{
	size_t len = strlen(opt);

	return strncmp(arg, opt, len) == 0 &&
		(arg[len] == '\0' || arg[len] == '=');
}

/* EAL options only: stop at "--" so that app options are not mistaken. */
static bool
eal_has_opt(int argc, char **argv, const char *opt)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (opt_is(argv[i], opt))
			return true;
	return false;
}

int
rxr_eal_init(int argc, char **argv, unsigned int fallback_mib, FILE *log,
		enum rxr_mem_backing *backing)
{
	/* Which hugetlbfs mounts there are, for the fallback's line. */
	static const char *const mounts[] = {
		"other page sizes", "2 MiB pages", "1 GiB pages",
		"2 MiB and 1 GiB pages",
	};
	struct rxr_hugepage_info hp;
	char **av = argv;
	char mib[16];
	int ac = argc, ret, extra = 0, dropped = 0, i;
	bool eal_args = true, in_memory = false;

	if (!rxr_hugepage_probe(&hp) && !eal_has_opt(argc, argv, "--no-huge")) {
		bool has_mem = eal_has_opt(argc, argv, "-m") ||
			eal_has_opt(argc, argv, "--socket-mem");

		av = calloc(argc + 4, sizeof(*av));
		if (av == NULL)
			return -1;
		ac = 0;
		av[ac++] = argv[0];
		av[ac++] = (char *)(uintptr_t)"--no-huge";
		if (!has_mem) {
			snprintf(mib, sizeof(mib), "%u", fallback_mib);
			av[ac++] = (char *)(uintptr_t)"-m";
			av[ac++] = mib;
		}
		extra = ac - 1;
		/*
		 * EAL refuses --huge-unlink beside --no-huge (no files then),
		 * and --in-memory (it turns --legacy-mem on): the latter's
		 * other half, no shared files, is --no-shconf.
		 */
		for (i = 1; i < argc; i++) {
			eal_args = eal_args && strcmp(argv[i], "--") != 0;
			if (eal_args && opt_is(argv[i], "--huge-unlink")) {
				dropped++;
			} else if (eal_args &&
					strcmp(argv[i], "--in-memory") == 0) {
				av[ac++] = (char *)(uintptr_t)"--no-shconf";
				in_memory = true;
			} else {
				av[ac++] = argv[i];
			}
		}
		fprintf(log, "memory: no usable hugepages (%s%s, %u x 2 MiB and %u x 1 GiB free): "
			"falling back to --no-huge%s%s MiB%s%s\n",
			hp.mounted ? "hugetlbfs mounted for " : "",
			hp.mounted ? mounts[hp.mounted_2m | hp.mounted_1g << 1] :
			"no hugetlbfs mounted",
			hp.free_2m, hp.free_1g,
			has_mem ? "" : " -m ", has_mem ? "" : mib,
			dropped != 0 ? " (--huge-unlink left out)" : "",
			in_memory ? " (--in-memory as --no-shconf)" : "");
	}

	ret = rte_eal_init(ac, av);
	if (av != argv)
		free(av);
	if (ret < 0)
		return ret;
	ret += dropped - extra;
	/* As EAL does on its own argv: the app's argv[0] is the program. */
	if (extra != 0)
		argv[ret] = argv[0];
	/* Report what EAL really did, not what we asked for. */
	*backing = rte_eal_has_hugepages() ? RXR_MEM_HUGEPAGES : RXR_MEM_NO_HUGE;
	fprintf(log, "memory: %s\n", *backing == RXR_MEM_HUGEPAGES ?
		"hugepages" : "ordinary memory (--no-huge)");
	return ret;
}
