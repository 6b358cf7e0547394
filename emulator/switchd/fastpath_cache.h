/* emulator/switchd/fastpath_cache.h: the megaflow cache of rocelab-switch's C fast path (emulator.switchd._fastpath),
 * shared by its two files:
 *   fastpath_cache.c  the entries and subtables: install's insertion (replace, overflow, growth), clear, hit retirement;
 *   _fastpath.c       the CPython module: argument conversion, the Cache type (poll, lookup, install, take_hits, ...).
 *
 * The match and rewrite semantics of an entry, and the rules of poll(), are documented in
 * emulator/switchd/fastpath.py (its apply_entry is the pure-Python reference the tests compare this module with).
 *
 * Layout. Entries are grouped by mask bytes into subtables (OVS's tuple space search); each subtable is a hash
 * table keyed by (in_port, length, frame bytes under the mask), searched in the order the subtables were created;
 * the first entry found decides. A subtable is open addressing with linear probing over a power-of-two array of
 * (hash, entry) slots at most half full: entries are never deleted one by one (only replaced in place, or all
 * dropped at once by clear()), so no tombstones are needed, and a probe walks adjacent memory, comparing the
 * stored 64-bit hash before touching the entry. The hash works on 64-bit words of the masked bytes (the mask is
 * kept zero-padded to whole words), one xor-multiply-xorshift step per word, seeded with in_port and length, and
 * a final multiply-xorshift so that the low bits (the slot index) depend on every input bit.
 *
 * Hit counts: an entry's first hit since take_hits() puts it on a "dirty" list, so take_hits() costs nothing
 * when nothing hit. Entries dropped by clear(), by a replacing install() or by the max_entries overflow keep
 * their pending (id, hits) in a "retired" list, which the next take_hits() reports too: no hit is lost.
 *
 * Names: what this header declares or defines as a function is fp_-prefixed (it lands in both files' namespace).
 */
#ifndef ROCELAB_FASTPATH_CACHE_H
#define ROCELAB_FASTPATH_CACHE_H

#ifndef PY_SSIZE_T_CLEAN
#define PY_SSIZE_T_CLEAN
#endif
#include <Python.h>

#include <stdint.h>
#include <string.h>

/* ---------------------------------------------------------------- constants */
/* here, not in one .c file: the module checks install()'s and poll()'s arguments against the same limits the
 * cache's code and buffers are sized by (MAX_MASK: the mask words and the receive buffer's slack; MAX_LENGTH: the
 * longest frame that can hit) */

#define MAX_MASK 256                 /* bytes */
#define MASK_WORDS (MAX_MASK / 8)
#define MAX_PORT 65535
#define MAX_LENGTH 65535             /* a 65536-byte read may be truncated: never a hit */
#define MAX_OUT 65535
#define MAX_PRIO 31                  /* passable masks are 32 bits */
#define RX_SIZE 65536
#define MAX_ENTRIES_LIMIT (1 << 24)
#define ETHERTYPE_MAC_CONTROL 0x8808
#define MAX_CSUM_OPS 8
#define CSUM_VERIFY 1
#define CSUM_FIX 2

/* ---------------------------------------------------------------- types */
/* here: the module builds entries (install), walks the dirty and retired lists (take_hits) and owns Cache (a
 * Python object); the cache code stores and finds them */

/* a checksum op (install()'s csum: 8 bytes each, little-endian <BBHHH): the RFC 1071 checksum of the 16-bit
 * words at [off, off + len) but the one at off + ck; VERIFY: of the frame, whose word at off + ck must hold it
 * (expect 1) or not (expect 0), else the entry does not match; FIX: of the output header, stored at off + ck */
typedef struct { uint8_t kind, expect; uint16_t off, len, ck; } csum_op;

typedef struct entry {
    uint64_t id, hits, hash;
    uint32_t in_port, length, out_port, prio, hlen, payload_from;
    Py_ssize_t dirty;                /* index in Cache.dirty while hits > 0, else -1 */
    uint32_t nverify, nfix;
    csum_op *ops;                    /* the nverify VERIFY ops, then the nfix FIX ops in their given order */
    uint16_t *src;                   /* hlen source offsets (0 where copy is 0) */
    uint8_t *copy, *tmpl;            /* hlen bytes each */
    uint64_t key[];                  /* the subtable's nwords masked words */
} entry;

typedef struct { uint64_t hash; entry *e; } slot;  /* e NULL: empty */

typedef struct {
    uint32_t mlen, nwords;
    uint64_t mask[MASK_WORDS];       /* zero past mlen */
    size_t count, cap;               /* cap: a power of two, count <= cap / 2 */
    slot *slots;
} subtable;

typedef struct { uint64_t id, hits; } retired_hits;

typedef struct {
    PyObject_HEAD
    Py_ssize_t max_entries, n_entries;
    uint64_t next_id;
    subtable **subs;
    size_t nsubs, subs_cap;
    entry **dirty;
    size_t ndirty, dirty_cap;        /* dirty_cap >= n_entries (ensured by install: a hit never allocates) */
    retired_hits *retired;
    size_t nretired, retired_cap;
    int *fds;                        /* indexed by port number; -1: no fd */
    uint32_t *passable;
    size_t nports;
    uint64_t rx, hits, misses, tx, tx_drops;
    unsigned char *rxbuf, *txbuf;
} Cache;

/* ---------------------------------------------------------------- hashing, lookup, rewrite */
/* here, static inline: poll() runs fp_lookup and fp_rewrite on every frame, and fp_insert_entry hashes with the
 * same fp_masked_hash and fp_find_slot; they need only the types above, so as header functions they stay in
 * poll()'s file, inlinable as when the extension was one file (no call across files per frame) */

static inline uint64_t fp_load64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static inline uint64_t fp_mix(uint64_t h, uint64_t w)
{
    h = (h ^ w) * 0x9E3779B97F4A7C15ULL;
    return h ^ (h >> 29);
}

/* the masked words of f under s into w (f readable for s->nwords * 8 bytes), and their hash */
static inline uint64_t fp_masked_hash(const subtable *s, const unsigned char *f, uint32_t in_port,
                                      uint32_t length, uint64_t *w)
{
    uint64_t h = fp_mix(0x243F6A8885A308D3ULL, ((uint64_t)in_port << 32) | length);
    for (uint32_t j = 0; j < s->nwords; j++) {
        w[j] = fp_load64(f + 8 * j) & s->mask[j];
        h = fp_mix(h, w[j]);
    }
    h *= 0xD6E8FEB86659FD93ULL;
    return h ^ (h >> 32);
}

/* the slot holding (in_port, length, w) in s, or the empty slot where it would go */
static inline slot *fp_find_slot(const subtable *s, uint64_t h, uint32_t in_port, uint32_t length,
                                 const uint64_t *w)
{
    size_t m = s->cap - 1;
    for (size_t k = h & m;; k = (k + 1) & m) {
        slot *sl = &s->slots[k];
        entry *e = sl->e;
        if (!e || (sl->hash == h && e->in_port == in_port && e->length == length
                   && memcmp(e->key, w, (size_t)s->nwords * 8) == 0))
            return sl;
    }
}

/* the RFC 1071 checksum of p[o.off : o.off + o.len] without the word at o.off + o.ck (hashing.csum16's: 0xFFFF
 * when every word is zero, since a non-zero sum folds to 1..0xFFFF, never 0) */
static inline uint16_t fp_csum_of(const unsigned char *p, const csum_op *o)
{
    const unsigned char *d = p + o->off;
    uint64_t s = 0;
    for (uint32_t i = 0; i < o->ck; i += 2)
        s += (uint32_t)d[i] << 8 | d[i + 1];
    for (uint32_t i = (uint32_t)o->ck + 2; i < o->len; i += 2)
        s += (uint32_t)d[i] << 8 | d[i + 1];
    while (s >> 16)
        s = (s & 0xFFFF) + (s >> 16);
    return (uint16_t)~s;
}

/* whether the frame f passes e's VERIFY ops */
static inline int fp_verified(const entry *e, const unsigned char *f)
{
    for (uint32_t i = 0; i < e->nverify; i++) {
        const csum_op *o = &e->ops[i];
        const unsigned char *c = f + o->off + o->ck;
        if ((fp_csum_of(f, o) == (c[0] << 8 | c[1])) != o->expect)
            return 0;
    }
    return 1;
}

/* f: a frame of len bytes in a buffer readable for at least MAX_MASK bytes. An entry whose VERIFY ops fail does
 * not match: the search goes on */
static inline entry *fp_lookup(const Cache *c, uint32_t in_port, const unsigned char *f, size_t len)
{
    uint64_t w[MASK_WORDS];
    for (size_t i = 0; i < c->nsubs && len <= MAX_LENGTH; i++) {
        const subtable *s = c->subs[i];
        if (len < s->mlen)
            continue;
        uint64_t h = fp_masked_hash(s, f, in_port, (uint32_t)len, w);
        slot *sl = fp_find_slot(s, h, in_port, (uint32_t)len, w);
        if (sl->e && (!sl->e->nverify || fp_verified(sl->e, f)))
            return sl->e;
    }
    return NULL;
}

/* the output frame of e for f (f may be changed: the header is written in front of the payload when it fits) */
static inline const unsigned char *fp_rewrite(const Cache *c, const entry *e, unsigned char *f, size_t *outlen)
{
    uint32_t H = e->hlen, pf = e->payload_from, plen = e->length - pf;
    *outlen = (size_t)H + plen;
    if (H == 0)
        return f + pf;
    unsigned char *out = c->txbuf;
    for (uint32_t i = 0; i < H; i++)
        out[i] = (uint8_t)((f[e->src[i]] & e->copy[i]) | e->tmpl[i]);
    for (uint32_t i = 0; i < e->nfix; i++) {
        const csum_op *o = &e->ops[e->nverify + i];
        uint16_t v = fp_csum_of(out, o);
        out[o->off + o->ck] = (uint8_t)(v >> 8);
        out[o->off + o->ck + 1] = (uint8_t)v;
    }
    if (H <= pf)
        return memcpy(f + pf - H, out, H);
    memcpy(out + H, f + pf, plen);
    return out;
}

/* ---------------------------------------------------------------- entries and subtables (fastpath_cache.c) */
/* declared here: the module's clear(), dealloc and install() call them */

/* drop every entry and subtable (their pending hits retired); ids are not reused: next_id stays */
void fp_drop_all(Cache *c);

/* put the complete entry e (key set, id not yet) in its subtable: replacing an entry of the same key, else
 * dropping the whole cache first when it is full; -1 with MemoryError set (e not taken) */
int fp_insert_entry(Cache *c, entry *e, uint32_t mlen, const uint64_t *maskw);

#endif /* ROCELAB_FASTPATH_CACHE_H */
