/* SPDX-License-Identifier: BSD-3-Clause */

#ifndef RXR_ZERO_H
#define RXR_ZERO_H

/**
 * @file
 * Hugepage zeroing core: clear an extent with a chosen method, and keep
 * frames' payload areas zeroed under a policy. Chunks, yields and narrow's
 * subpages: doc/zeroing.md.
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

/** Default bytes between two yields: 3-6 us of clearing cold memory. */
#define RXR_ZERO_CHUNK_DEFAULT	(128u << 10)

/** Clear methods. */
enum rxr_zero_method {
	RXR_ZERO_AUTO = 0,	/**< contig or nt, picked per size class */
	RXR_ZERO_NARROW,	/**< 4 KiB subpages, the target last (process_huge_page) */
	RXR_ZERO_CONTIG,	/**< REP STOSB in chunks (clear_contig_region) */
	RXR_ZERO_NT,		/**< non-temporal stores in chunks, fenced */
	RXR_ZERO_NR_METHODS
};

/** Instruction used by the nt method. */
enum rxr_zero_nt_isa {
	RXR_ZERO_NT_BEST = 0,	/**< the first the CPU has of CLZERO, AVX512, AVX2, SSE2 */
	RXR_ZERO_NT_SSE2,
	RXR_ZERO_NT_AVX2,
	RXR_ZERO_NT_AVX512,
	RXR_ZERO_NT_CLZERO,
	RXR_ZERO_NR_NT_ISAS
};

/** Called between two chunks of a clear (e.g. to poll an RX queue). */
typedef void (*rxr_zero_yield_t)(void *arg);

/** How to clear an extent; all zero: auto, default chunk, no yield. */
struct rxr_zero_opts {
	enum rxr_zero_method method;
	size_t chunk;		/**< bytes between yields; 0: the default */
	rxr_zero_yield_t yield;	/**< NULL: nothing is chunked */
	void *yield_arg;
	const void *target;	/**< narrow: its subpage last; NULL: the first */
	enum rxr_zero_nt_isa nt_isa;
};

/**
 * Clear @p len bytes at @p addr and nothing else (@p opts NULL: defaults).
 * @return 0, or -EINVAL (unknown or unsupported method or instruction,
 *   target outside the extent, NULL addr) with nothing written.
 */
int rxr_zero_extent(void *addr, size_t len, const struct rxr_zero_opts *opts);

/** "auto", "narrow", "contig", "nt"; "unknown" out of range. */
const char *rxr_zero_method_name(enum rxr_zero_method m);
/** Parse a method name; 0, or -EINVAL with @p err naming the valid ones. */
int rxr_zero_method_parse(const char *name, enum rxr_zero_method *m,
		char *err, size_t errlen);

/**
 * @name auto
 * Per size class (4 KiB, 64 KiB, 2 MiB, above) contig and nt are timed
 * once per process; the method not favoured must be 25% faster.
 * @{
 */
/** The concrete method auto uses for @p len bytes (contig or nt). */
enum rxr_zero_method rxr_zero_auto_pick(size_t len);

/** Print the CPU features, nt instruction and each class's measured rates
 * and pick, '#'-prefixed (measuring now unless done). */
void rxr_zero_auto_dump(FILE *out);
/** @} */

/** @name Zeroing of frames' payload areas (frame + offset, len). @{ */

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

/** As rxr_zero_method_parse(). */
int rxr_zero_policy_parse(const char *name, enum rxr_zero_policy *p,
		char *err, size_t errlen);

/** The payload area of frames and how it is cleared. */
struct rxr_zero_payload {
	uint32_t offset;
	uint32_t len;
	enum rxr_zero_method method; /**< resolved: narrow, contig or nt */
	enum rxr_zero_nt_isa nt_isa; /**< resolved */
};

/** Describe frames' payloads, resolving auto and nt; 0 or -EINVAL. */
int rxr_zero_payload_init(struct rxr_zero_payload *p, uint32_t frame_size,
		uint32_t offset, uint32_t len, enum rxr_zero_method method);

/** Clear the payload of @p n frames; nt fences once, after the last. */
void rxr_zero_payload_bulk(const struct rxr_zero_payload *p,
		void * const *frames, unsigned int n);

/** Testing: @p cycles added per frame cleared with @p method; 0 or -EINVAL. */
int rxr_zero_test_delay(enum rxr_zero_method method, uint32_t cycles);

/** Testing: steps of rxr_zero_test_work() taking about @p cycles TSC. */
uint64_t rxr_zero_test_steps(uint32_t cycles);

/** Testing: @p steps of dependent work, the same CPU time under any load. */
void rxr_zero_test_work(uint64_t steps);

/** @} */

/**
 * @name Background supply
 * A bounded single-producer (rxr_zero_supply_service()), single-consumer
 * (rxr_zero_supply_get_bulk()) supply of zeroed frames, without locks.
 * @{
 */

struct rxr_zero_supply;

/** How a supply is created. */
struct rxr_zero_supply_conf {
	const char *name;
	struct rxr_zone *zone;		/**< where frames come from and go back */
	uint32_t capacity;		/**< most frames held ready (>= 1) */
	uint32_t payload_offset;
	uint32_t payload_len;
	enum rxr_zero_method method;
	int socket_id;
};

/** Supply counters (snapshot; each written by one side only). */
struct rxr_zero_supply_stats {
	uint64_t bytes_cleared;
	uint64_t clear_cycles;		/**< TSC cycles the service spent */
	uint64_t frames_supplied;
	uint64_t service_calls;
	uint64_t zone_empty;		/**< service calls that found it empty */
	uint64_t get_calls;
	uint64_t get_frames;
	uint64_t get_empty;		/**< gets that found no frame ready */
	uint64_t get_short;		/**< gets that got fewer than asked */
	uint64_t drained;		/**< frames returned to the zone */
	uint32_t ready;
	uint32_t capacity;
};

/** Create an empty supply; NULL with rte_errno EINVAL or ENOMEM. */
struct rxr_zero_supply *rxr_zero_supply_create(
		const struct rxr_zero_supply_conf *conf);

/** Drain and free a supply. Neither side may run any more. */
void rxr_zero_supply_destroy(struct rxr_zero_supply *s);

/** Producer: up to @p budget frames from the zone cleared; how many. */
unsigned int rxr_zero_supply_service(struct rxr_zero_supply *s,
		unsigned int budget);

/** A service call's budget: frames supplied at most per call. */
#define RXR_ZERO_SUPPLY_SERVICE_BUDGET 32u

/** Consumer: up to @p n ready frames, oldest first; how many. */
unsigned int rxr_zero_supply_get_bulk(struct rxr_zero_supply *s, void **objs,
		unsigned int n);

/** Consumer: every ready frame back to the zone (stop the service first
 * to get them all); how many. */
unsigned int rxr_zero_supply_drain(struct rxr_zero_supply *s);

/** Snapshot of the counters; safe from any thread. */
void rxr_zero_supply_stats(const struct rxr_zero_supply *s,
		struct rxr_zero_supply_stats *st);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* RXR_ZERO_H */
