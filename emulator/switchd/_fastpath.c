/* emulator.switchd._fastpath: the C fast path of rocelab-switch's megaflow cache; this file is the CPython module
 * (argument conversion, the Cache type). The cache's constants, types, layout and per-frame code (hashing, lookup,
 * rewrite) are in fastpath_cache.h; its entries and subtables (insertion, clear) in fastpath_cache.c.
 *
 * The match and rewrite semantics of an entry, and the rules of poll(), are documented in
 * emulator/switchd/fastpath.py (its apply_entry is the pure-Python reference the tests compare this module with).
 *
 * Hot path (poll): recv into a per-cache buffer, hash, compare, check the entry's VERIFY checksums if it has any
 * (a failed one: the entry does not match, the search goes on), rewrite (then the entry's FIX checksums, if any,
 * into the new header; in place in the receive buffer when the new header fits in front of the payload), send. No Python object is made for a hit; a miss becomes bytes.
 * The GIL is held throughout (callers rely on it as a lock).
 */
#include "fastpath_cache.h"

#include <errno.h>
#include <sys/socket.h>
#include <sys/types.h>

/* ---------------------------------------------------------------- argument conversion */

static int get_int(PyObject *o, const char *fn, const char *name, long long lo, long long hi, long long *out)
{
    PyObject *i = PyNumber_Index(o);
    if (!i) {
        if (PyErr_ExceptionMatches(PyExc_TypeError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "%s(): %s must be an int, not %.100s", fn, name, Py_TYPE(o)->tp_name);
        }
        return -1;
    }
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(i, &overflow);
    Py_DECREF(i);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (overflow)
        PyErr_Format(PyExc_ValueError, "%s(): %s must be in [%lld, %lld], got a huge int", fn, name, lo, hi);
    else if (v < lo || v > hi)
        PyErr_Format(PyExc_ValueError, "%s(): %s must be in [%lld, %lld], got %lld", fn, name, lo, hi, v);
    *out = v;
    return PyErr_Occurred() ? -1 : 0;
}

static int get_bytes(PyObject *o, const char *fn, const char *name, Py_buffer *b)
{
    if (PyObject_GetBuffer(o, b, PyBUF_SIMPLE) == 0)
        return 0;
    if (PyErr_ExceptionMatches(PyExc_TypeError) || PyErr_ExceptionMatches(PyExc_BufferError)) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s(): %s must be bytes-like (contiguous), not %.100s", fn, name,
                     Py_TYPE(o)->tp_name);
    }
    return -1;
}

/* grow the port arrays so that port is an index */
static int ensure_port(Cache *c, size_t port)
{
    if (port < c->nports)
        return 0;
    size_t n = c->nports ? c->nports : 64;
    while (n <= port)
        n *= 2;
    int *fds = PyMem_Realloc(c->fds, n * sizeof *fds);
    if (fds)
        c->fds = fds;
    uint32_t *pm = fds ? PyMem_Realloc(c->passable, n * sizeof *pm) : NULL;
    if (!pm) {
        PyErr_NoMemory();
        return -1;
    }
    c->passable = pm;
    for (size_t p = c->nports; p < n; p++) {
        c->fds[p] = -1;
        c->passable[p] = 0;
    }
    c->nports = n;
    return 0;
}

#define BAD_ENTRY(...) return (PyErr_Format(PyExc_ValueError, "install(): " __VA_ARGS__), NULL)

/* the checksum ops of install()'s csum bytes into ops (VERIFY first, then FIX, each in order); -1 with ValueError */
static int get_csum_ops(const Py_buffer *b, long long length, Py_ssize_t H, csum_op *ops, uint32_t *nverify,
                        uint32_t *nfix)
{
    const uint8_t *p = b->buf;
    if (b->len % 8)
        return PyErr_Format(PyExc_ValueError, "install(): csum is %zd bytes, not a whole number of 8-byte ops",
                            b->len), -1;
    if (b->len / 8 > MAX_CSUM_OPS)
        return PyErr_Format(PyExc_ValueError, "install(): csum has %zd ops, at most %d", b->len / 8,
                            MAX_CSUM_OPS), -1;
    uint32_t n = (uint32_t)(b->len / 8), nv = 0;
    for (uint32_t i = 0; i < n; i++, p += 8) {
        csum_op o = {p[0], p[1], (uint16_t)(p[2] | p[3] << 8), (uint16_t)(p[4] | p[5] << 8),
                     (uint16_t)(p[6] | p[7] << 8)};
        unsigned end = (unsigned)o.off + o.len;
        const char *bad = NULL;
        if (o.kind != CSUM_VERIFY && o.kind != CSUM_FIX)
            bad = "kind must be 1 (VERIFY) or 2 (FIX)";
        else if (o.expect > 1)
            bad = "expect must be 0 or 1";
        else if (o.len < 2 || o.len % 2)
            bad = "length must be even and at least 2";
        else if (o.ck % 2)
            bad = "ck must be even";
        else if (o.ck + 2 > o.len)
            bad = "ck + 2 is past length";
        else if (o.kind == CSUM_VERIFY && end > length)
            bad = "a VERIFY op's off + length is past the frame (the entry's length)";
        else if (o.kind == CSUM_FIX && (Py_ssize_t)end > H)
            bad = "a FIX op's off + length is past the output header (len(tmpl))";
        if (bad)
            return PyErr_Format(PyExc_ValueError, "install(): csum op %u (kind %u, expect %u, off %u, length %u, "
                                "ck %u): %s", i, o.kind, o.expect, o.off, o.len, o.ck, bad), -1;
        if (o.kind == CSUM_VERIFY)
            nv++;
        ops[i] = o;
    }
    /* stable partition: VERIFY ops first */
    csum_op tmp[MAX_CSUM_OPS];
    uint32_t v = 0, x = nv;
    for (uint32_t i = 0; i < n; i++)
        tmp[ops[i].kind == CSUM_VERIFY ? v++ : x++] = ops[i];
    memcpy(ops, tmp, n * sizeof *ops);
    *nverify = nv;
    *nfix = n - nv;
    return 0;
}

/* the entry of install()'s checked ints and buffers b = mask, key, src, copy, tmpl, csum (id not yet set); NULL
 * with ValueError or MemoryError */
static entry *make_entry(const Py_buffer *b, long long in_port, long long length, long long out_port,
                         long long prio, long long pf)
{
    const uint8_t *mask = b[0].buf, *key = b[1].buf, *src = b[2].buf, *copy = b[3].buf, *tmpl = b[4].buf;
    Py_ssize_t mlen = b[0].len, H = b[4].len;
    csum_op ops[MAX_CSUM_OPS];
    uint32_t nverify, nfix;
    if (mlen > MAX_MASK)
        BAD_ENTRY("mask is %zd bytes, at most %d", mlen, MAX_MASK);
    if (b[1].len != mlen)
        BAD_ENTRY("key is %zd bytes, mask %zd: they must be as long", b[1].len, mlen);
    for (Py_ssize_t i = 0; i < mlen; i++)
        if (key[i] & ~mask[i])
            BAD_ENTRY("key byte %zd has bits outside the mask (key & ~mask != 0)", i);
    if (pf > length)
        BAD_ENTRY("payload_from (%lld) is past length (%lld)", pf, length);
    if (b[3].len != H)
        BAD_ENTRY("copy is %zd bytes, tmpl %zd: they must be as long", b[3].len, H);
    if (b[2].len != 2 * H)
        BAD_ENTRY("src is %zd bytes, must be 2 * len(tmpl) = %zd", b[2].len, 2 * H);
    if (H + (length - pf) > MAX_OUT)
        BAD_ENTRY("the output frame (len(tmpl) + length - payload_from = %lld) is longer than %d bytes",
                  (long long)H + (length - pf), MAX_OUT);
    for (Py_ssize_t i = 0; i < H; i++) {
        unsigned off = src[2 * i] | (unsigned)src[2 * i + 1] << 8;
        if (tmpl[i] & copy[i])
            BAD_ENTRY("tmpl byte %zd has bits under copy (tmpl & copy != 0)", i);
        if (copy[i] && off >= length)
            BAD_ENTRY("src offset %zd is %u, past the frame (length %lld)", i, off, length);
    }
    if (get_csum_ops(&b[5], length, H, ops, &nverify, &nfix) < 0)
        return NULL;
    uint32_t nwords = (uint32_t)((mlen + 7) / 8), nops = nverify + nfix;
    entry *e = PyMem_Calloc(1, sizeof(entry) + nwords * 8 + nops * sizeof(csum_op) + (size_t)H * 4);
    if (!e)
        return (entry *)PyErr_NoMemory();
    memcpy(e->key, key, mlen);
    e->ops = (csum_op *)((unsigned char *)e->key + nwords * 8);
    memcpy(e->ops, ops, nops * sizeof(csum_op));
    e->nverify = nverify;
    e->nfix = nfix;
    e->src = (uint16_t *)(e->ops + nops);
    e->copy = (uint8_t *)(e->src + H);
    e->tmpl = e->copy + H;
    for (Py_ssize_t i = 0; i < H; i++)  /* src 0 where copy is 0: f[0] & 0, branch-free */
        e->src[i] = copy[i] ? (uint16_t)(src[2 * i] | src[2 * i + 1] << 8) : 0;
    memcpy(e->copy, copy, H);
    memcpy(e->tmpl, tmpl, H);
    e->in_port = (uint32_t)in_port;
    e->length = (uint32_t)length;
    e->out_port = (uint32_t)out_port;
    e->prio = (uint32_t)prio;
    e->hlen = (uint32_t)H;
    e->payload_from = (uint32_t)pf;
    e->dirty = -1;
    return e;
}

/* ---------------------------------------------------------------- the type */

static PyObject *Cache_new(PyTypeObject *type, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"max_entries", NULL};
    PyObject *max_obj = NULL;
    long long max_entries = 65536;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:Cache", kwlist, &max_obj)
        || (max_obj && get_int(max_obj, "Cache", "max_entries", 1, MAX_ENTRIES_LIMIT, &max_entries) < 0))
        return NULL;
    Cache *c = (Cache *)type->tp_alloc(type, 0);
    if (!c)
        return NULL;
    c->max_entries = (Py_ssize_t)max_entries;
    c->rxbuf = PyMem_Calloc(1, RX_SIZE + MAX_MASK);  /* slack: masks are read in whole words */
    c->txbuf = PyMem_Calloc(1, MAX_OUT + 1);
    if (!c->rxbuf || !c->txbuf) {
        Py_DECREF(c);
        return PyErr_NoMemory();
    }
    return (PyObject *)c;
}

static void Cache_dealloc(Cache *c)
{
    fp_drop_all(c);
    PyMem_Free(c->subs);
    PyMem_Free(c->dirty);
    PyMem_Free(c->retired);
    PyMem_Free(c->fds);
    PyMem_Free(c->passable);
    PyMem_Free(c->rxbuf);
    PyMem_Free(c->txbuf);
    Py_TYPE(c)->tp_free((PyObject *)c);
}

static PyObject *Cache_add_port(Cache *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"port", "fd", NULL};
    PyObject *po, *fo;
    long long port, fd;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO:add_port", kwlist, &po, &fo)
        || get_int(po, "add_port", "port", 0, MAX_PORT, &port) < 0
        || get_int(fo, "add_port", "fd", -1, INT_MAX, &fd) < 0 || ensure_port(c, (size_t)port) < 0)
        return NULL;
    c->fds[port] = (int)fd;
    Py_RETURN_NONE;
}

static PyObject *Cache_set_passable(Cache *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"port", "prio_mask", NULL};
    PyObject *po, *mo;
    long long port, mask;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO:set_passable", kwlist, &po, &mo)
        || get_int(po, "set_passable", "port", 0, MAX_PORT, &port) < 0
        || get_int(mo, "set_passable", "prio_mask", 0, UINT32_MAX, &mask) < 0 || ensure_port(c, (size_t)port) < 0)
        return NULL;
    c->passable[port] = (uint32_t)mask;
    Py_RETURN_NONE;
}

#define INSTALL_BUFS 6

static PyObject *Cache_install(Cache *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"in_port", "length", "mask", "key", "out_port", "prio", "src", "copy", "tmpl",
                             "payload_from", "csum", NULL};
    static const char *bufnames[INSTALL_BUFS] = {"mask", "key", "src", "copy", "tmpl", "csum"};
    PyObject *in_o, *len_o, *out_o, *prio_o, *pf_o, *bo[INSTALL_BUFS] = {NULL}, *result = NULL;
    Py_buffer b[INSTALL_BUFS];
    long long in_port, length, out_port, prio, pf;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOOOOOOOO|O:install", kwlist, &in_o, &len_o, &bo[0], &bo[1],
                                     &out_o, &prio_o, &bo[2], &bo[3], &bo[4], &pf_o, &bo[5]))
        return NULL;
    /* the ints first: __index__ may run Python code, which must not see buffers held or the cache half-changed */
    if (get_int(in_o, "install", "in_port", 0, MAX_PORT, &in_port) < 0
        || get_int(len_o, "install", "length", 0, MAX_LENGTH, &length) < 0
        || get_int(out_o, "install", "out_port", 0, MAX_PORT, &out_port) < 0
        || get_int(prio_o, "install", "prio", 0, MAX_PRIO, &prio) < 0
        || get_int(pf_o, "install", "payload_from", 0, MAX_LENGTH, &pf) < 0)
        return NULL;
    int nb = 0;
    while (nb < INSTALL_BUFS && (bo[nb] ? get_bytes(bo[nb], "install", bufnames[nb], &b[nb])
                                        : PyBuffer_FillInfo(&b[nb], NULL, (void *)"", 0, 1, PyBUF_SIMPLE)) == 0)
        nb++;
    entry *e = nb == INSTALL_BUFS ? make_entry(b, in_port, length, out_port, prio, pf) : NULL;
    if (e) {
        uint64_t maskw[MASK_WORDS] = {0};
        memcpy(maskw, b[0].buf, b[0].len);
        if (fp_insert_entry(c, e, (uint32_t)b[0].len, maskw) < 0)
            PyMem_Free(e);
        else
            result = PyLong_FromUnsignedLongLong(e->id);
    }
    while (nb > 0)
        PyBuffer_Release(&b[--nb]);
    return result;
}

static PyObject *Cache_poll(Cache *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"port", "limit", NULL};
    PyObject *po, *lo = NULL;
    long long port, limit = 64;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:poll", kwlist, &po, &lo)
        || get_int(po, "poll", "port", 0, MAX_PORT, &port) < 0
        || (lo && get_int(lo, "poll", "limit", 0, PY_SSIZE_T_MAX, &limit) < 0))
        return NULL;
    if ((size_t)port >= c->nports || c->fds[port] < 0)
        return PyErr_Format(PyExc_ValueError, "poll(): port %lld has no fd (add_port first)", port);
    unsigned char *f = c->rxbuf;
    for (long long done = 0; done < limit; done++) {
        ssize_t n = recv(c->fds[port], f, RX_SIZE, MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR) {  /* run the signal handlers, which may take the port away */
                if (PyErr_CheckSignals() < 0)
                    return NULL;
                if (c->fds[port] < 0)
                    Py_RETURN_NONE;
                done--;
                continue;
            }
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENETDOWN || errno == ENXIO)
                Py_RETURN_NONE;
            return PyErr_SetFromErrno(PyExc_OSError);
        }
        c->rx++;
        entry *e = NULL;
        if (n < 14 || (f[12] << 8 | f[13]) != ETHERTYPE_MAC_CONTROL)
            e = fp_lookup(c, (uint32_t)port, f, (size_t)n);
        int ofd = -1;
        if (e && e->out_port < c->nports && (c->passable[e->out_port] >> e->prio & 1))
            ofd = c->fds[e->out_port];
        if (ofd < 0) {
            c->misses++;
            return PyBytes_FromStringAndSize((const char *)f, n);
        }
        size_t olen;
        const unsigned char *out = fp_rewrite(c, e, f, &olen);
        c->hits++;
        if (e->hits++ == 0) {
            e->dirty = (Py_ssize_t)c->ndirty;
            c->dirty[c->ndirty++] = e;
        }
        ssize_t r;
        do
            r = send(ofd, out, olen, MSG_DONTWAIT | MSG_NOSIGNAL);
        while (r < 0 && errno == EINTR);
        if (r < 0)
            c->tx_drops++;  /* a full buffer or a downed link: lost, as on a wire */
        else
            c->tx++;
    }
    Py_RETURN_NONE;
}

static PyObject *Cache_lookup(Cache *c, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"in_port", "frame", NULL};
    PyObject *po, *fo;
    long long port;
    Py_buffer b;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO:lookup", kwlist, &po, &fo)
        || get_int(po, "lookup", "in_port", 0, MAX_PORT, &port) < 0 || get_bytes(fo, "lookup", "frame", &b) < 0)
        return NULL;
    entry *e = NULL;
    if (b.len <= MAX_LENGTH) {
        memcpy(c->rxbuf, b.buf, b.len);  /* the padded buffer: masks are read in whole words */
        e = fp_lookup(c, (uint32_t)port, c->rxbuf, (size_t)b.len);
    }
    PyBuffer_Release(&b);
    if (!e)
        Py_RETURN_NONE;
    size_t olen;
    const unsigned char *out = fp_rewrite(c, e, c->rxbuf, &olen);
    return Py_BuildValue("(KIIy#)", (unsigned long long)e->id, e->out_port, e->prio, out, (Py_ssize_t)olen);
}

static PyObject *Cache_take_hits(Cache *c, PyObject *Py_UNUSED(ignored))
{
    size_t n = c->nretired + c->ndirty;
    PyObject *list = PyList_New((Py_ssize_t)n);
    if (!list || n == 0)
        return list;
    for (size_t i = 0; i < n; i++) {
        const entry *e = i < c->nretired ? NULL : c->dirty[i - c->nretired];
        retired_hits h = e ? (retired_hits){e->id, e->hits} : c->retired[i];
        PyObject *t = Py_BuildValue("(KK)", (unsigned long long)h.id, (unsigned long long)h.hits);
        if (!t) {
            Py_DECREF(list);
            return NULL;  /* nothing zeroed: the next call reports these hits */
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, t);
    }
    for (size_t i = 0; i < c->ndirty; i++) {
        c->dirty[i]->hits = 0;
        c->dirty[i]->dirty = -1;
    }
    c->ndirty = c->nretired = 0;
    return list;
}

static PyObject *Cache_clear(Cache *c, PyObject *Py_UNUSED(ignored))
{
    fp_drop_all(c);  /* ids are not reused: next_id stays */
    Py_RETURN_NONE;
}

static PyObject *Cache_stats(Cache *c, PyObject *Py_UNUSED(ignored))
{
    return Py_BuildValue("{snsnsKsKsKsKsK}", "entries", c->n_entries, "subtables", (Py_ssize_t)c->nsubs,
                         "hits", (unsigned long long)c->hits, "misses", (unsigned long long)c->misses,
                         "tx", (unsigned long long)c->tx, "tx_drops", (unsigned long long)c->tx_drops,
                         "rx", (unsigned long long)c->rx);
}

static Py_ssize_t Cache_len(Cache *c)
{
    return c->n_entries;
}

#define KW_METHOD(name) #name, (PyCFunction)(void (*)(void))Cache_##name, METH_VARARGS | METH_KEYWORDS

static PyMethodDef Cache_methods[] = {
    {KW_METHOD(add_port), "add_port(port, fd): a switch port's socket (fd -1: none); never closed by the cache."},
    {KW_METHOD(set_passable), "set_passable(port, prio_mask): bit q set: priority q may leave on port now."},
    {KW_METHOD(install), "install(in_port, length, mask, key, out_port, prio, src, copy, tmpl, payload_from, "
                         "csum=b'') -> id"},
    {KW_METHOD(poll), "poll(port, limit=64) -> bytes | None: forward hits; return the first miss."},
    {KW_METHOD(lookup), "lookup(in_port, frame) -> (id, out_port, prio, output) | None: no sockets or counting."},
    {"take_hits", (PyCFunction)Cache_take_hits, METH_NOARGS, "take_hits() -> [(id, hits)] since the last call."},
    {"clear", (PyCFunction)Cache_clear, METH_NOARGS, "clear(): drop every entry and subtable (ids not reused)."},
    {"stats", (PyCFunction)Cache_stats, METH_NOARGS, "stats() -> {entries, subtables, hits, misses, tx, ...}."},
    {NULL, NULL, 0, NULL},
};

static PySequenceMethods Cache_as_sequence = {.sq_length = (lenfunc)Cache_len};

static PyTypeObject CacheType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "emulator.switchd._fastpath.Cache",
    .tp_basicsize = sizeof(Cache),
    .tp_dealloc = (destructor)Cache_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Cache(max_entries=65536): rocelab-switch's megaflow cache (see emulator/switchd/fastpath.py).",
    .tp_methods = Cache_methods,
    .tp_as_sequence = &Cache_as_sequence,
    .tp_new = Cache_new,
};

static struct PyModuleDef fastpath_module = {
    PyModuleDef_HEAD_INIT, .m_name = "emulator.switchd._fastpath",
    .m_doc = "The C fast path of rocelab-switch's megaflow cache (see emulator/switchd/fastpath.py).",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__fastpath(void)
{
    if (PyType_Ready(&CacheType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&fastpath_module);
    if (!m)
        return NULL;
    Py_INCREF(&CacheType);
    if (PyModule_AddObject(m, "Cache", (PyObject *)&CacheType) < 0) {
        Py_DECREF(&CacheType);
        Py_CLEAR(m);
    }
    return m;
}
