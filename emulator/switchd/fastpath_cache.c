/* emulator/switchd/fastpath_cache.c: the entries and subtables of the C fast path's megaflow cache (install's
 * insertion, clear, hit retirement). Not per-frame: the per-frame code (hashing, lookup, rewrite) is static inline
 * in fastpath_cache.h, which also describes the layout; the CPython module around it is _fastpath.c.
 */
#include "fastpath_cache.h"

/* ---------------------------------------------------------------- entries and subtables */

/* e leaves the dirty list; its pending hits go to the retired list */
static void retire(Cache *c, entry *e)
{
    if (e->hits == 0)
        return;
    if (c->nretired == c->retired_cap) {
        size_t cap = c->retired_cap ? 2 * c->retired_cap : 64;
        retired_hits *r = PyMem_Realloc(c->retired, cap * sizeof *r);
        if (r) {
            c->retired = r;
            c->retired_cap = cap;
        }
    }
    if (c->nretired < c->retired_cap)  /* else out of memory: these hits are lost (no half-done install) */
        c->retired[c->nretired++] = (retired_hits){e->id, e->hits};
    c->dirty[e->dirty] = c->dirty[--c->ndirty];  /* swap-remove: the list never outgrows n_entries */
    c->dirty[e->dirty]->dirty = e->dirty;
    e->hits = 0;
    e->dirty = -1;
}

void fp_drop_all(Cache *c)
{
    for (size_t i = 0; i < c->nsubs; i++) {
        subtable *s = c->subs[i];
        for (size_t k = 0; k < s->cap; k++) {
            if (s->slots[k].e) {
                retire(c, s->slots[k].e);
                PyMem_Free(s->slots[k].e);
            }
        }
        PyMem_Free(s->slots);
        PyMem_Free(s);
    }
    c->nsubs = 0;
    c->n_entries = 0;
}

static subtable *new_subtable(Cache *c, uint32_t mlen, const uint64_t *maskw)
{
    if (c->nsubs == c->subs_cap) {
        size_t cap = c->subs_cap ? 2 * c->subs_cap : 8;
        subtable **ss = PyMem_Realloc(c->subs, cap * sizeof *ss);
        if (!ss)
            return NULL;
        c->subs = ss;
        c->subs_cap = cap;
    }
    subtable *s = PyMem_Calloc(1, sizeof *s);
    slot *slots = PyMem_Calloc(16, sizeof(slot));
    if (!s || !slots) {
        PyMem_Free(s);
        PyMem_Free(slots);
        return NULL;
    }
    s->mlen = mlen;
    s->nwords = (mlen + 7) / 8;
    memcpy(s->mask, maskw, sizeof s->mask);
    s->cap = 16;
    s->slots = slots;
    return c->subs[c->nsubs++] = s;
}

/* double s's slot array, rehashing from the stored hashes */
static int grow_subtable(subtable *s)
{
    size_t cap = 2 * s->cap;
    slot *ns = PyMem_Calloc(cap, sizeof(slot));
    if (!ns)
        return -1;
    for (size_t k = 0; k < s->cap; k++) {
        if (!s->slots[k].e)
            continue;
        size_t j = s->slots[k].hash & (cap - 1);
        while (ns[j].e)
            j = (j + 1) & (cap - 1);
        ns[j] = s->slots[k];
    }
    PyMem_Free(s->slots);
    s->slots = ns;
    s->cap = cap;
    return 0;
}

/* put the complete entry e (key set, id not yet) in its subtable: replacing an entry of the same key, else
 * dropping the whole cache first when it is full; -1 with MemoryError set (e not taken) */
int fp_insert_entry(Cache *c, entry *e, uint32_t mlen, const uint64_t *maskw)
{
    subtable *s = NULL;
    slot *sl;
    for (size_t i = 0; i < c->nsubs && !s; i++)
        if (c->subs[i]->mlen == mlen && memcmp(c->subs[i]->mask, maskw, sizeof c->subs[i]->mask) == 0)
            s = c->subs[i];
    if (s) {
        e->hash = fp_masked_hash(s, (const unsigned char *)e->key, e->in_port, e->length, e->key);
        sl = fp_find_slot(s, e->hash, e->in_port, e->length, e->key);
        if (sl->e) {  /* replace */
            retire(c, sl->e);
            PyMem_Free(sl->e);
            goto commit;
        }
    }
    if (c->n_entries >= c->max_entries) {
        fp_drop_all(c);
        s = NULL;
    }
    if ((size_t)c->n_entries + 1 > c->dirty_cap) {
        size_t cap = c->dirty_cap ? 2 * c->dirty_cap : 64;
        entry **d = PyMem_Realloc(c->dirty, cap * sizeof *d);
        if (!d)
            goto nomem;
        c->dirty = d;
        c->dirty_cap = cap;
    }
    if ((!s && !(s = new_subtable(c, mlen, maskw))) || (2 * (s->count + 1) > s->cap && grow_subtable(s) < 0))
        goto nomem;
    e->hash = fp_masked_hash(s, (const unsigned char *)e->key, e->in_port, e->length, e->key);
    sl = fp_find_slot(s, e->hash, e->in_port, e->length, e->key);
    s->count++;
    c->n_entries++;
commit:
    *sl = (slot){e->hash, e};
    e->id = c->next_id++;
    return 0;
nomem:
    PyErr_NoMemory();
    return -1;
}
