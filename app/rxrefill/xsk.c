/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * NIC-side drops of net_af_xdp ports: the kernel's statistics of each XDP
 * socket (getsockopt XDP_STATISTICS). DPDK 22.11's net_af_xdp folds only
 * rx_dropped into imissed and has no xstats, and keeps its sockets private:
 * the sockets a port's queue setup opened are found among the process's
 * descriptors (new AF_XDP sockets after the setup), and read directly.
 */

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/if_xdp.h>

#include <rte_common.h>

#include "rxrefill.h"
#include "rxr_log.h"

#ifndef AF_XDP
#define AF_XDP 44
#endif
#ifndef SOL_XDP
#define SOL_XDP 283
#endif

static ino_t
fd_inode(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode) ? st.st_ino : 0;
}

/* The process's AF_XDP sockets; returns how many (at most max). */
static unsigned int
xsk_scan(struct xsk_sock *out, unsigned int max)
{
	unsigned int n = 0;
	struct dirent *de;
	DIR *d = opendir("/proc/self/fd");

	if (d == NULL)
		return 0;
	while ((de = readdir(d)) != NULL && n < max) {
		int fd, dom;
		socklen_t len = sizeof(dom);

		if (de->d_name[0] == '.')
			continue;
		/* Its own descriptor, a directory, is no socket. */
		fd = atoi(de->d_name);
		if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &len) != 0 ||
				dom != AF_XDP)
			continue;
		out[n].fd = fd;
		out[n].ino = fd_inode(fd);
		n++;
	}
	closedir(d);
	return n;
}

static bool
xsk_known(const struct xsk_sock *set, unsigned int n, const struct xsk_sock *s)
{
	for (unsigned int i = 0; i < n; i++)
		if (set[i].fd == s->fd && set[i].ino == s->ino)
			return true;
	return false;
}

/* Before a port's queues are set up: remember the sockets already open. */
void
xsk_setup_begin(struct port *p)
{
	if (p->xsk)
		p->nb_xsk = xsk_scan(p->xsk_socks, RTE_DIM(p->xsk_socks));
}

/* After (done: it worked): the port's sockets are the new ones. */
void
xsk_setup_end(struct port *p, bool done)
{
	struct xsk_sock now[RTE_DIM(p->xsk_socks)];
	unsigned int n, k = 0;

	if (!p->xsk)
		return;
	n = xsk_scan(now, RTE_DIM(now));
	for (unsigned int i = 0; i < n; i++)
		if (!xsk_known(p->xsk_socks, p->nb_xsk, &now[i]))
			now[k++] = now[i];
	memcpy(p->xsk_socks, now, k * sizeof(now[0]));
	p->nb_xsk = k;
	if (k == 0 && done)
		RXR_LOG(WARNING, "port %u (%s): no XDP socket found after "
			"its setup: XDP socket drops will read 0", p->id,
			p->driver);
}

/*
 * The kernel's statistics of the port's XDP sockets, summed. net_af_xdp
 * counts an mbuf it could not allocate in rx_nombuf and leaves the packet
 * in the socket's RX ring (not a drop), and counts the sockets'
 * rx_dropped in imissed: both taken out.
 */
void
xsk_stats_read(const struct port *p, struct port_counters *c)
{
	c->rx_nombuf = 0;
	for (unsigned int i = 0; i < p->nb_xsk; i++) {
		struct xdp_statistics st;
		socklen_t len = sizeof(st);

		if (fd_inode(p->xsk_socks[i].fd) != p->xsk_socks[i].ino ||
				getsockopt(p->xsk_socks[i].fd, SOL_XDP,
					XDP_STATISTICS, &st, &len) != 0)
			continue;
		c->xdp_rx_dropped += st.rx_dropped;
		c->xdp_rx_ring_full += st.rx_ring_full;
		c->xdp_fill_ring_empty += st.rx_fill_ring_empty_descs;
	}
	c->imissed -= RTE_MIN(c->imissed, c->xdp_rx_dropped);
}

/*
 * net_af_xdp of DPDK 22.11 with libxdp leaves open the socket that carries
 * the UMEM when the port closes (the UMEM is not deleted): it stays bound
 * to its queue, and no new socket can bind there (EBUSY). Once the port is
 * closed nothing uses it: close the port's sockets that are still open.
 * Returns how many were.
 */
unsigned int
xsk_close_stale(struct port *p)
{
	unsigned int closed = 0;

	for (unsigned int i = 0; i < p->nb_xsk; i++)
		if (fd_inode(p->xsk_socks[i].fd) == p->xsk_socks[i].ino) {
			close(p->xsk_socks[i].fd);
			closed++;
		}
	p->nb_xsk = 0;
	return closed;
}
