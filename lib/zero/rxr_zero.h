/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_ZERO_H
#define RXR_ZERO_H

/**
 * @file
 * Hugepage zeroing core: clear an extent (a hugepage, a bulk of frames, any
 * address and length) with a chosen method, and keep frames' payload areas
 * zeroed under a policy. Methods (doc/zeroing.md has figures):
 * - narrow: 4 KiB subpages with ordinary stores, far ones first, the target
 *   subpage last so that it is cache-hot (Linux's process_huge_page()).
 * - contig: REP STOSB in chunks (the kernel's clear_contig_region()).
 * - nt: non-temporal stores in chunks (CLZERO, AVX-512, AVX2 or SSE2, chosen
 *   at run time), each chunk ended by an SFENCE.
 * - auto: contig or nt per size class, from the CPU and a start-up probe.
 *
 * The yield callback runs between two chunks of @c chunk bytes (counted
 * from the extent's start), never before the first nor after the last:
 * ceil(len / chunk) - 1 times; narrow yields after every max(1, chunk /
 * 4096) subpages but the last. At a yield every byte cleared so far is zero
 * and visible to other threads, and nothing outside the extent was written.
 * Subpages are the 4 KiB-aligned pages the extent overlaps, numbered from 0;
 * only their part inside the extent is cleared.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_common.h>

#include "rxr_common.h"
#include "rxr_zone.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Debug check: a supply handed out a frame whose payload is not zero. */
#define RXR_CHECK_DIRTY		"dirty-frame"
/** Debug check: streaming stores unfenced at a yield, return or publication. */
#define RXR_CHECK_UNFENCED	"unfenced-nt"

/** Subpage size of narrow: the base page. */
#define RXR_ZERO_SUBPAGE	4096u

/**
 * Default bytes between two yields (32 subpages for narrow): 3-6 us of
 * clearing over cold memory, under 50 us even with a timer tick inside;
 * larger chunks buy little rate (doc/zeroing.md has the sweep).
 */
#define RXR_ZERO_CHUNK_DEFAULT	(128u << 10)

/** Clear methods. */
enum rxr_zero_method {
	RXR_ZERO_AUTO = 0,	/**< contig or nt, picked per size class */
	RXR_ZERO_NARROW,	/**< 4 KiB at a time, converging on a target */
	RXR_ZERO_CONTIG,	/**< REP STOSB in chunks */
	RXR_ZERO_NT,		/**< non-temporal stores in chunks, fenced */
	RXR_ZERO_NR_METHODS
};

/** Instruction used by the nt method. */
enum rxr_zero_nt_isa {
	RXR_ZERO_NT_BEST = 0,	/**< the first the CPU has of CLZERO, AVX512, AVX2, SSE2 */
	RXR_ZERO_NT_SSE2,	/**< MOVNTDQ xmm */
	RXR_ZERO_NT_AVX2,	/**< VMOVNTDQ ymm */
	RXR_ZERO_NT_AVX512,	/**< VMOVNTDQ zmm */
	RXR_ZERO_NT_CLZERO,	/**< AMD CLZERO, one cache line per instruction */
	RXR_ZERO_NR_NT_ISAS
};

/** Called between two chunks of a clear (e.g. to poll an RX queue). */
typedef void (*rxr_zero_yield_t)(void *arg);

/**
 * How to clear an extent. An all-zero struct means: auto, default chunk, no
 * yield, target subpage 0, best nt instruction.
 */
struct rxr_zero_opts {
	enum rxr_zero_method method;
	/** Bytes per chunk between two yields; 0 means RXR_ZERO_CHUNK_DEFAULT. */
	size_t chunk;
	/** Called between chunks; NULL for none (then nothing is chunked). */
	rxr_zero_yield_t yield;
	/** Argument of @c yield. */
	void *yield_arg;
	/** narrow: an address whose subpage is cleared last; NULL: target_idx. */
	const void *target;
	/** narrow: index of the subpage cleared last, when @c target is NULL. */
	size_t target_idx;
	/** nt (and auto when it picks nt): instruction to use. */
	enum rxr_zero_nt_isa nt_isa;
};

/**
 * Clear @p len bytes at @p addr; nothing outside [addr, addr + len) is
 * written.
 *
 * @param opts  method and chunking; NULL means all defaults (auto).
 * @return 0; -EINVAL for an unknown method or nt instruction, an nt
 *   instruction this CPU lacks, a narrow target outside the extent, or a
 *   NULL @p addr with a non-zero @p len. Nothing is written on error.
 */
int rxr_zero_extent(void *addr, size_t len, const struct rxr_zero_opts *opts);

/** "auto", "narrow", "contig", "nt"; "unknown" out of range. */
const char *rxr_zero_method_name(enum rxr_zero_method m);
/**
 * Parse a method name (exact, lower case).
 * @param err  when not NULL and the name is unknown, receives a message
 *   naming it and listing the valid names.
 * @return 0, or -EINVAL for an unknown (or NULL) name.
 */
int rxr_zero_method_parse(const char *name, enum rxr_zero_method *m,
		char *err, size_t errlen);
/** "best", "sse2", "avx2", "avx512", "clzero"; "unknown" out of range. */
const char *rxr_zero_nt_isa_name(enum rxr_zero_nt_isa isa);

/** True when this CPU can run nt with @p isa (BEST is always true). */
bool rxr_zero_nt_isa_supported(enum rxr_zero_nt_isa isa);

/** The instruction RXR_ZERO_NT_BEST stands for on this CPU. */
enum rxr_zero_nt_isa rxr_zero_nt_isa_best(void);

/**
 * @name auto
 * Size classes: up to 4 KiB, 64 KiB, 2 MiB, above. For each, contig and nt
 * are timed once per process (on first use or rxr_zero_auto_init(), other
 * threads wait). Up to 64 KiB auto leans to contig (with ERMS or FSRM),
 * above to nt; the other method must be measured 25% faster.
 * @{
 */
/** Number of auto size classes. */
#define RXR_ZERO_AUTO_NR_CLASSES 4

/** What auto measured and picked for one size class. */
struct rxr_zero_auto_class {
	size_t max_len;		/**< class holds lengths up to this (SIZE_MAX last) */
	size_t probe_len;	/**< extent size that was timed */
	double contig_gbps;	/**< measured rate of contig */
	double nt_gbps;		/**< measured rate of nt (best instruction) */
	enum rxr_zero_method pick; /**< RXR_ZERO_CONTIG or RXR_ZERO_NT */
};

/**
 * Run the auto measurement now (tens of milliseconds) unless done.
 * @return 0, or -ENOMEM without scratch memory (auto then goes by features
 *   alone: contig up to 64 KiB, nt above).
 */
int rxr_zero_auto_init(void);

/** The concrete method auto uses for @p len bytes (contig or nt). */
enum rxr_zero_method rxr_zero_auto_pick(size_t len);

/** Copy the measurement of class @p i (< RXR_ZERO_AUTO_NR_CLASSES). */
void rxr_zero_auto_class_get(unsigned int i, struct rxr_zero_auto_class *c);

/** Print the CPU features, nt instruction and auto table, '#'-prefixed. */
void rxr_zero_auto_dump(FILE *out);
/** @} */

/**
 * @name Zeroing of frames
 * A frame's payload area is (frame address + offset, len); nothing before
 * (the mbuf header) or after it is written.
 * @{
 */

/** When frames' payloads are cleared. */
enum rxr_zero_policy {
	RXR_ZERO_POLICY_NONE = 0,	/**< never */
	RXR_ZERO_POLICY_ALLOC,		/**< before handing out (__GFP_ZERO, init_on_alloc) */
	RXR_ZERO_POLICY_FREE,		/**< when freed (init_on_free) */
	RXR_ZERO_POLICY_BACKGROUND,	/**< a service keeps a supply of pre-zeroed frames */
	RXR_ZERO_NR_POLICIES
};

/** "none", "alloc", "free", "background"; "unknown" out of range. */
const char *rxr_zero_policy_name(enum rxr_zero_policy p);

/** Parse a policy name; as rxr_zero_method_parse(). */
int rxr_zero_policy_parse(const char *name, enum rxr_zero_policy *p,
		char *err, size_t errlen);

/** The payload area of frames and how it is cleared. */
struct rxr_zero_payload {
	uint32_t offset;	/**< payload start, bytes from the frame address */
	uint32_t len;		/**< payload bytes */
	enum rxr_zero_method method; /**< concrete: narrow, contig or nt */
	enum rxr_zero_nt_isa nt_isa; /**< concrete instruction when nt */
};

/**
 * Describe the payload of frames of @p frame_size bytes; auto and nt are
 * resolved here. @return 0, or -EINVAL (payload outside the frame, unknown
 * method).
 */
int rxr_zero_payload_init(struct rxr_zero_payload *p, uint32_t frame_size,
		uint32_t offset, uint32_t len, enum rxr_zero_method method);

/** Clear the payload of @p n frames; nt fences once, after the last. */
void rxr_zero_payload_bulk(const struct rxr_zero_payload *p,
		void * const *frames, unsigned int n);

/**
 * Testing: about @p cycles (TSC) of work added per frame that
 * rxr_zero_payload_bulk() clears with @p method (narrow, contig or nt), a
 * known cost for the tests of the statistics; 0 takes it away.
 * @return 0, or -EINVAL for auto or an unknown method.
 */
int rxr_zero_test_delay(enum rxr_zero_method method, uint32_t cycles);

/** Testing: steps of rxr_zero_test_work() taking about @p cycles TSC. */
uint64_t rxr_zero_test_steps(uint32_t cycles);

/** Testing: @p steps of dependent work, the same CPU time under any load. */
void rxr_zero_test_work(uint64_t steps);

/** @} */

/**
 * @name Background supply
 * A bounded single-producer, single-consumer supply of frames whose payload
 * is zero. The producer, rxr_zero_supply_service(), run by one thread at a
 * time, takes frames from the zone, clears and publishes them; the consumer
 * is one poll lcore's alloc path (rxr_zero_supply_get_bulk()). No lock, no
 * atomic read-modify-write: one acquire load and one release store.
 * @{
 */

struct rxr_zero_supply;

/** How a supply is created. */
struct rxr_zero_supply_conf {
	const char *name;		/**< for messages */
	struct rxr_zone *zone;		/**< where frames come from and go back */
	uint32_t capacity;		/**< most frames held ready (>= 1) */
	uint32_t payload_offset;	/**< see struct rxr_zero_payload */
	uint32_t payload_len;
	enum rxr_zero_method method;	/**< how payloads are cleared */
	int socket_id;			/**< memory of the supply itself */
};

/** Supply counters (snapshot; each written by one side only). */
struct rxr_zero_supply_stats {
	uint64_t bytes_cleared;		/**< payload bytes cleared by the service */
	uint64_t clear_cycles;		/**< TSC cycles the service spent clearing */
	uint64_t frames_supplied;	/**< frames cleared and made available */
	uint64_t service_calls;		/**< calls of rxr_zero_supply_service() */
	uint64_t zone_empty;		/**< service calls that found the zone empty */
	uint64_t get_calls;		/**< calls of rxr_zero_supply_get_bulk() */
	uint64_t get_frames;		/**< frames handed out */
	uint64_t get_empty;		/**< gets that found no frame ready */
	uint64_t get_short;		/**< gets that got fewer frames than asked */
	uint64_t drained;		/**< frames returned to the zone by drains */
	uint32_t ready;			/**< frames ready now */
	uint32_t capacity;		/**< as configured */
};

/**
 * Create an empty supply; it fills on the first service calls.
 * @return the supply, or NULL with rte_errno set (EINVAL: no zone, zero
 *   capacity or a payload outside the zone's frame size; ENOMEM).
 */
struct rxr_zero_supply *rxr_zero_supply_create(
		const struct rxr_zero_supply_conf *conf);

/** Drain and free a supply. Neither side may run any more. */
void rxr_zero_supply_destroy(struct rxr_zero_supply *s);

/**
 * Producer: take up to @p budget frames from the zone (never more than the
 * room left), clear their payload and make them available.
 * @return frames made available by this call.
 */
unsigned int rxr_zero_supply_service(struct rxr_zero_supply *s,
		unsigned int budget);

/** A service call's budget: frames supplied at most per call. */
#define RXR_ZERO_SUPPLY_SERVICE_BUDGET 32u

/**
 * Consumer: take up to @p n ready frames (payload zero), oldest first.
 * The caller gets the rest elsewhere (and clears them itself).
 * @return frames stored in objs[], 0 to n.
 */
unsigned int rxr_zero_supply_get_bulk(struct rxr_zero_supply *s, void **objs,
		unsigned int n);

/**
 * Return every ready frame to the zone (consumer side). Frames the service
 * is clearing are published when it returns: stop it first to get them all.
 * @return frames returned.
 */
unsigned int rxr_zero_supply_drain(struct rxr_zero_supply *s);

/** Snapshot of the counters; safe from any thread. */
void rxr_zero_supply_stats(const struct rxr_zero_supply *s,
		struct rxr_zero_supply_stats *st);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* RXR_ZERO_H */
