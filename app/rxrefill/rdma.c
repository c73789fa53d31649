/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * Device discovery through rdma-core: which RDMA NICs (mlx5) this machine
 * has, their ports and link state, PCI address and NUMA node, so that the
 * user knows what to give EAL with -a.
 */

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "rxrefill.h"

int
rdma_list(FILE *out)
{
	struct ibv_device **list;
	int n = 0;

	list = ibv_get_device_list(&n);
	if (list == NULL || n == 0) {
		fprintf(out, "No RDMA device found (rdma-core sees none): this "
			"machine has no mlx5 NIC for -a. Use --vdev or --replay.\n");
		if (list != NULL)
			ibv_free_device_list(list);
		return 0;
	}
	fprintf(out, "%-12s %-14s %-5s %-6s %-10s %-12s %s\n", "device", "pci",
		"numa", "port", "state", "link", "driver");
	for (int i = 0; i < n; i++) {
		const char *name = ibv_get_device_name(list[i]);
		struct ibv_context *ctx = ibv_open_device(list[i]);
		struct ibv_device_attr attr;
		char dev[PATH_MAX], path[PATH_MAX + 16];
		char pci[64] = "?", numa[16], drv[PATH_MAX] = "?";

		snprintf(dev, sizeof(dev), "/sys/class/infiniband/%s/device",
			name);
		read_link_name(dev, pci, sizeof(pci));
		snprintf(path, sizeof(path), "%s/numa_node", dev);
		read_first_line(path, numa, sizeof(numa));
		snprintf(path, sizeof(path), "%s/driver", dev);
		read_link_name(path, drv, sizeof(drv));
		if (ctx == NULL || ibv_query_device(ctx, &attr) != 0) {
			fprintf(out, "%-12s %-14s %-5s %-6s %-10s %-12s %s\n", name,
				pci, numa[0] ? numa : "?", "-", "unopened", "-", drv);
			if (ctx != NULL)
				ibv_close_device(ctx);
			continue;
		}
		for (uint8_t port = 1; port <= attr.phys_port_cnt; port++) {
			struct ibv_port_attr pa;

			if (ibv_query_port(ctx, port, &pa) != 0)
				continue;
			fprintf(out, "%-12s %-14s %-5s %-6u %-10s %-12s %s\n", name, pci,
				numa[0] ? numa : "?", port,
				ibv_port_state_str(pa.state),
				pa.link_layer == IBV_LINK_LAYER_ETHERNET ? "ethernet" :
				pa.link_layer == IBV_LINK_LAYER_INFINIBAND ?
				"infiniband" : "unknown", drv);
		}
		ibv_close_device(ctx);
	}
	fprintf(out, "Run on a device with: " APP " -l <lcores on its NUMA node> "
		"-a <pci> -- [options]\n");
	ibv_free_device_list(list);
	return 0;
}
