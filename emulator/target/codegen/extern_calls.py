"""Code generation of v1model extern functions and extern object methods (hash, checksum, registers, ...)."""
from __future__ import annotations

from emulator.p4 import ast as A
from emulator.p4 import types as T
from emulator.target import hashing
from emulator.target.classes import pyattr
from emulator.target.codegen.base import Unsupported, _bits, _mask, strip
from emulator.target.codegen.runtime import _anno_ints

# extern object types v1model.p4 and core.p4 declare (built in: a plugin cannot replace them)
_V1MODEL_OBJECTS = frozenset({"packet_in", "packet_out", "register", "counter", "direct_counter", "meter",
                              "direct_meter", "action_profile", "action_selector", "Checksum16", "Hash",
                              "Random"})


# a traced build brackets each checksum's computation with these comment lines: the fields read between them are
# read by the checksum only (megaflow.program_facts leaves them out of a flow's key; the recorder checks them)
CSUM_BEGIN = "# checksum {"
CSUM_END = "# checksum }"

class ExternGen:
    """Extern functions and methods (a mixin of CodeGen)."""

    # ------------------------------------------------------------------------------------------ externs
    def extern_function(self, name: str, callee, c, stmt: bool):
        o = self.out
        args = list(callee.args)
        if name == "static_assert":
            # core.p4's compile-time check: the checker evaluated it (a false one is refused there); as a
            # statement (p4c's issue3531) nothing is left to run, as a value it is true
            return None if stmt else "True"
        if name == "mark_to_drop":
            sm = self.expr(args[0]) if args and args[0] is not None else "_rt.cur.sm"
            o(f"{sm}.egress_spec = _DROP_PORT")  # the switch's drop port (simple_switch --drop-port), 511
            o(f"{sm}.mcast_grp = 0")
            if self.tr:
                self.trace("extern", "mark_to_drop", "", c)
            return None
        if name == "verify":
            if self.tr:
                o(f"if not {self.expr(args[0])}:")
                self.out.ind += 1
                self.trace("extern", "verify", f"({A.to_source(args[0])}) failed: {A.to_source(args[1])}", c)
                o(f"raise ParserReject({self.expr(args[1])})")
                self.out.ind -= 1
                return None
            o(f"if not {self.expr(args[0])}: raise ParserReject({self.expr(args[1])})")
            return None
        if name == "hash":
            res, algo, base, data, mx = (args + [None] * 5)[:5]
            h = f"{self.hash_fn(algo)}({self.packed(data)})"
            b, m = self.expr(base), self.expr(mx)
            val = f"({b} + {h} % {m})"
            mc = getattr(mx, "const_value", None)
            if not isinstance(mc, int) or mc < 1:
                val = f"(({b} + {h} % {m}) if {m} >= 1 else {b})"
            rb = _bits(res.type)
            self.store(res, f"({val} & {_mask(rb[0])})" if rb else val)
            if self.tr:
                self.trace("extern", "hash", f"({self.algo_name(algo)}) -> {A.to_source(res)} = {{}}", c,
                           self.expr(res))
            return None
        if name == "random":
            res, lo, hi = args
            rb = _bits(res.type)
            self.store(res, f"(_randint({self.expr(lo)}, {self.expr(hi)}) & {_mask(rb[0]) if rb else -1})")
            return None
        if name in ("verify_checksum", "verify_checksum_with_payload", "update_checksum",
                    "update_checksum_with_payload"):
            cond, data, ck, algo = args
            payload = " + _rt.cur.payload" if name.endswith("payload") else ""
            ckw = (_bits(ck.type) or (16, False))[0]
            fast = None if payload or self.algo_name(algo) != "csum16" else self.csum16_expr(data)
            if fast is not None:
                val = f"({fast} & {_mask(ckw)})"
            else:
                val = f"({self.hash_fn(algo)}({self.packed(data)}{payload}) & {_mask(ckw)})"
            cv = getattr(cond, "const_value", None)
            if name.startswith("verify"):
                cnd = "" if cv is True else f"{self.expr(cond)} and "
                if self.tr:
                    self._traced_verify(name, cond, cv, val, ck, algo, data, c, self._plain_checksum(data, ck, algo))
                    return None
                o(f"if {cnd}{val} != {self.expr(ck)}: _rt.cur.sm.checksum_error = 1")
            else:
                if cv is not True:
                    o(f"if {self.expr(cond)}:")
                    o.ind += 1
                plain = self.tr and self._plain_checksum(data, ck, algo)
                if plain:
                    o(CSUM_BEGIN)
                self.store(ck, val)
                if self.tr:
                    self.trace("extern", name, f"{A.to_source(ck)} = {{}}", c, self.expr(ck))
                if plain:
                    self._trace_checksum(name, algo, "None", ck, data)
                    o(CSUM_END)
                if cv is not True:
                    o.ind -= 1
            return None
        if name == "digest":
            data = args[1]
            dname = getattr(strip(data.type), "name", None) or "digest"
            o(f"_rt.cur.digest(({dname!r}, {self.values_of(data)}))")
            if self.tr:
                self.trace("extern", "digest", f"{dname} {{}}", c, "_rt.cur.digests[-1][1]")
            return None
        if name == "clone":
            o(f"_rt.cur.clone = ({self.expr(args[0])}, {self.expr(args[1])}, None)")
            if self.tr:
                self._trace_clone(name, c)
            return None
        if name in ("clone3", "clone_preserving_field_list"):
            cp = self.preserve_copier(args[2] if len(args) > 2 else None, name == "clone3")
            o(f"_rt.cur.clone = ({self.expr(args[0])}, {self.expr(args[1])}, {cp})")
            if self.tr:
                self._trace_clone(name, c)
            return None
        if name in ("resubmit", "resubmit_preserving_field_list", "recirculate",
                    "recirculate_preserving_field_list"):
            what = "resubmit" if name.startswith("resubmit") else "recirculate"
            cp = self.preserve_copier(args[0] if args else None, "preserving" not in name)
            o(f"_rt.cur.{what} = {cp or '_NOCOPY'}")
            if self.tr:
                self.trace("extern", name, "", c)
            return None
        if name == "truncate":
            # BMv2 Packet::truncate: the smallest length of all the calls wins
            o(f"_rt.cur.truncate = min({self.expr(args[0])}, _rt.cur.truncate if _rt.cur.truncate is not None "
              f"else 1 << 64)")
            if self.tr:
                self.trace("extern", "truncate", "to {} bytes", c, f"str({self.expr(args[0])})")
            return None
        if name in ("assert", "assume"):
            # simple_switch logs the file and line of a failed assert/assume and exits (v1model.p4); a
            # clock-free target cannot exit: the packet is abandoned and V1Switch reports the failure
            where = f"{c.loc.file}:{c.loc.line}" if c.loc is not None else "?"
            if self.tr:
                o(f"if not {self.expr(args[0])}:")
                o.ind += 1
                self.trace("extern", name, f"({A.to_source(args[0])}) failed", c)
                o(f"raise P4AssertionFailed({name!r}, {where!r})")
                o.ind -= 1
                return None
            o(f"if not {self.expr(args[0])}: raise P4AssertionFailed({name!r}, {where!r})")
            return None
        if name == "log_msg":
            if self.tr and args:
                vals = self.values_of(args[1]) if len(args) > 1 and args[1] is not None else "()"
                o(f"_T.log_msg({self.expr(args[0])}, {vals}, {self.where(c)!r})")
            return None
        src, done = self.plugin_function_call(name, callee, c, stmt)
        if done:
            return src
        raise Unsupported(f"extern function {name} is not implemented: it is not a v1model extern, and no extern "
                          f"plugin registers it (--extern-plugin MODULE, see docs/p4.md)", c.loc)

    def _trace_clone(self, name: str, c) -> None:
        args = list(c.callee.args)
        self.trace("extern", name, "{} session {}", c, f"('E2E' if {self.expr(args[0])} else 'I2E')",
                   f"str({self.expr(args[1])})")

    def hash_fn(self, algo) -> str:
        """Source calling a v1model hash algorithm; custom CRCs are looked up per use (the control plane may
        change their parameters), the others bound once."""
        name = self.algo_name(algo)
        if name.endswith("_custom"):
            return f"_hash_get({name!r})"
        try:
            return self.bind("H_" + name, hashing.get(name))
        except Exception as exc:
            raise Unsupported(str(exc), algo.loc) from None

    def algo_name(self, e) -> str:
        if isinstance(e, (A.Member, A.PathExpression)):
            return e.name
        raise Unsupported("hash algorithm must be a HashAlgorithm member", e.loc)

    def _traced_verify(self, name: str, cond, cv, val: str, ck, algo, data, c, plain: bool) -> None:
        """verify_checksum in a traced build: the same test; a plain one (_plain_checksum) also tells the tracer
        its outcome (megaflow.py)."""
        o = self.out
        if cv is not True:
            o(f"if {self.expr(cond)}:")
            o.ind += 1
        if plain:
            o(CSUM_BEGIN)
        cs = self.uniq("cs")
        o(f"{cs} = {val}")
        if plain:
            self._trace_checksum(name, algo, f"{cs} == {self.expr(ck)}", ck, data)
        o(f"if {cs} != {self.expr(ck)}:")
        o.ind += 1
        o("_rt.cur.sm.checksum_error = 1")
        self.trace("extern", name, f"{A.to_source(ck)}: mismatch, checksum_error = 1", c)
        o.ind -= 1
        if plain:
            o(CSUM_END)
        if cv is not True:
            o.ind -= 1

    def _plain_checksum(self, data, ck, algo) -> bool:
        """An Internet checksum (csum16) over every field of one header, in order, but its 16-bit checksum field
        at a 16-bit offset (IPv4's): what a flow cache can verify and compute per frame itself."""
        if self.algo_name(algo) != "csum16" or not isinstance(ck, A.Member):
            return False
        ht = strip(getattr(ck.expr, "type", None))
        if not isinstance(ht, T.Header):
            return False
        where = A.to_source(ck.expr)
        leaves = self._leaves(data)
        if not all(isinstance(e, A.Member) and A.to_source(e.expr) == where for e in leaves):
            return False
        off = 0
        for f in ht.fields:
            if f.name == ck.name:
                break
            off += T.width_of(f.type)
        return ([e.name for e in leaves] == [f.name for f in ht.fields if f.name != ck.name]
                and off % 16 == 0 and T.width_of(strip(ck.type)) == 16)

    def _trace_checksum(self, name: str, algo, ok: str, ck, data) -> None:
        """`_T.checksum(name, algorithm, ok, (header, field), ((header, field), ...))`: the objects a checksum
        covers, or None for a field list that is not plain header fields (the recorder then refuses the run)."""
        def field(e) -> str | None:
            return f"({self.expr(e.expr)}, {pyattr(e.name)!r})" if isinstance(e, A.Member) else None

        leaves = [field(e) for e in self._leaves(data)]
        covered = "None" if None in leaves else "(" + "".join(x + ", " for x in leaves) + ")"
        self.out(f"_T.checksum({name!r}, {self.algo_name(algo)!r}, {ok}, {field(ck) or 'None'}, {covered})")

    def _leaves(self, data) -> list:
        """Scalar leaves of a list/struct expression or of a struct/header value, in order."""
        if isinstance(data, A.ListExpression):
            return [x for c in data.components for x in self._leaves(c)]
        if isinstance(data, A.StructExpression):
            return [x for c in data.components for x in self._leaves(c.expr)]
        t = strip(getattr(data, "type", None))
        if isinstance(t, (T.Struct, T.Header)):
            out = []
            for f in t.fields:
                m = A.Member(data, f.name, loc=data.loc)
                m.type = f.type
                out += self._leaves(m)
            return out
        if isinstance(t, T.HeaderStack) and not t.of_headers:  # an array: its elements in index order
            out = []
            for k in range(t.size):
                i = A.IntLiteral(k, loc=data.loc)
                i.const_value, i.type = k, T.INFINT
                x = A.ArrayIndex(data, i, loc=data.loc)
                x.type = t.elem
                out += self._leaves(x)
            return out
        return [data]

    def _field_groups(self, data) -> list[tuple[str | None, list[tuple[str, int]]]]:
        """Runs of (value source, width) sharing one validity guard (fields of invalid headers are skipped)."""
        groups: list[tuple[str | None, list[tuple[str, int]]]] = []
        leaves = self._leaves(data)
        for e, v in zip(leaves, self._ordered_n([(e, None) for e in leaves])):
            t = strip(e.type)
            b = _bits(t)
            if b is not None:
                w = b[0]
                if b[1]:
                    v = f"({v} & {_mask(w)})"
            elif isinstance(t, T.Bool):
                w, v = 1, f"int({v})"
            else:
                w = T.width_of(t)
            guard = None
            if isinstance(e, A.Member) and isinstance(strip(e.expr.type), T.Header):
                guard = f"{self.expr(e.expr)}._valid"
            if groups and groups[-1][0] == guard:
                groups[-1][1].append((v, w))
            else:
                groups.append((guard, [(v, w)]))
        return groups

    def field_list(self, data) -> str:
        """Source of a tuple of (value, width) pairs for hashing.pack."""
        parts = []
        for guard, items in self._field_groups(data):
            tup = "(" + "".join(f"({v}, {w}), " for v, w in items) + ")"
            parts.append(f"({tup} if {guard} else ())" if guard else tup)
        return " + ".join(parts) if parts else "()"

    def packed(self, data) -> str:
        """Source of the packed bytes of a field list (BMv2 packing): straight-line shifts when every run of
        fields is byte-aligned, else hashing.pack."""
        groups = self._field_groups(data)
        if not groups:
            return "b''"
        if any(sum(w for _, w in items) % 8 for _, items in groups):
            return f"_pack({self.field_list(data)})"
        parts = []
        for guard, items in groups:
            total = sum(w for _, w in items)
            terms = []
            off = total
            for v, w in items:
                off -= w
                terms.append(f"({v} << {off})" if off else v)
            b = f"({' | '.join(terms)}).to_bytes({total // 8}, 'big')"
            parts.append(f"({b} if {guard} else b'')" if guard else b)
        return " + ".join(parts)

    def csum16_expr(self, data) -> str | None:
        """csum16 of a field list without packing the fields into bytes (the IPv4 checksum of every packet):
        hashing.csum16_of_sum of an int S congruent to the packed data mod 0xFFFF. 2**16 == 1 (mod 0xFFFF), so a
        field at bit offset `off` counts as `v << (off % 16)`, provided every run of fields sharing a validity
        guard is a whole number of 16-bit words (then skipping a run moves the others by whole words only).
        Else None: pack the bytes."""
        groups = self._field_groups(data)
        if not groups or any(sum(w for _, w in items) % 16 for _, items in groups):
            return None
        parts = []
        for guard, items in groups:
            terms = []
            off = sum(w for _, w in items)
            for v, w in items:
                off -= w
                terms.append(f"({v} << {off % 16})" if off % 16 else v)
            s = f"({' + '.join(terms)})"
            parts.append(f"({s} if {guard} else 0)" if guard else s)
        return f"{self.bind('H_csum16_of_sum', hashing.csum16_of_sum)}({' + '.join(parts)})"

    def values_of(self, data) -> str:
        return "(" + "".join(self.expr(x) + ", " for x in self._leaves(data)) + ")"

    def preserve_copier(self, arg, old_style: bool) -> str | None:
        """Name of a function copying preserved metadata from one packet's (meta, sm) to another's."""
        if arg is None:
            return None
        if not old_style:
            return self.bind("FL", self._field_list_copier(self.const(arg)))
        paths = [p for p in (self._meta_path(e) for e in self._leaves(arg)) if p is not None]
        if not paths:
            return None
        lines = ["def _fl(s_meta, s_sm, d_meta, d_sm):"]
        for root, attrs in paths:
            tail = "".join("." + x for x in attrs)
            lines.append(f"    d_{root}{tail} = s_{root}{tail}")
        ns: dict = {}
        exec("\n".join(lines) + "\n", ns)
        return self.bind("FLX", ns["_fl"])

    def _meta_path(self, e):
        attrs = []
        while isinstance(e, A.Member):
            attrs.append(e.name)
            e = e.expr
        if not isinstance(e, A.PathExpression) or not isinstance(e.decl, A.Parameter):
            return None
        for role in ("ingress", "egress"):
            blk = self.info.blocks.get(role)
            if blk is not None:
                for i, p in enumerate(blk.params):
                    if p is e.decl and i in (1, 2):
                        return ("meta" if i == 1 else "sm"), list(reversed(attrs))
        return None

    def _field_list_copier(self, idx: int):
        got = self.field_list_copiers.get(idx)
        if got is not None:
            return got
        paths: list[list[str]] = []

        def walk(t, prefix):
            t = strip(t)
            if not isinstance(t, T.Struct):
                return
            annos = {f.name: f.annotations for f in t.decl.fields} if t.decl is not None else {}
            for f in t.fields:
                if isinstance(strip(f.type), T.Struct):
                    walk(f.type, prefix + [f.name])
                    continue
                for a in annos.get(f.name, []):
                    if a.name == "field_list" and idx in _anno_ints(a):
                        paths.append(prefix + [f.name])
        ing = self.info.blocks.get("ingress")
        if ing is not None and len(ing.params) > 1:
            walk(ing.params[1].param_type.resolved, [])
        lines = ["def _fl(s_meta, s_sm, d_meta, d_sm):", "    pass"]
        lines += [f"    d_meta.{'.'.join(map(pyattr, p))} = s_meta.{'.'.join(map(pyattr, p))}" for p in paths]
        ns: dict = {}
        exec("\n".join(lines) + "\n", ns)
        self.field_list_copiers[idx] = ns["_fl"]
        return ns["_fl"]

    def extern_method(self, callee, c, stmt: bool):
        o = self.out
        m = callee.name
        args = list(callee.args)
        ext = callee.extern
        tname = ext.name if ext is not None else "?"
        x = self.expr(callee.receiver)
        if tname == "packet_in":
            if m == "extract":
                h = args[0]
                vl = f", {self.expr(args[1])}" if len(args) > 1 and args[1] is not None else ""
                if isinstance(h, A.Member) and h.name == "next" and isinstance(strip(h.expr.type), T.HeaderStack):
                    o(f"{x}.cur = {self.expr(h.expr)}.extract_next({x}.data, {x}.cur{vl})")
                    if self.tr:  # the element's index: the stack's nextIndex moved past it
                        st = self.expr(h.expr)
                        o(f"_T.extracted({A.to_source(h.expr) + '[{}]'!r}, {self.where(c)!r}, "
                          f"{st}.nextIndex - 1, {x}.cur, {st}.elems[{st}.nextIndex - 1])")
                    return None
                hn = h.expr if isinstance(h, A.Member) else None
                if isinstance(hn, A.Member) and hn.name == "next" and isinstance(strip(hn.expr.type), T.HeaderStack):
                    # `extract(stack.next.member)` on a stack of header unions
                    o(f"{x}.cur = {self.expr(hn.expr)}.extract_next_member({pyattr(h.name)!r}, {x}.data, {x}.cur{vl})")
                    if self.tr:
                        st = self.expr(hn.expr)
                        o(f"_T.extracted({A.to_source(hn.expr) + '[{}].' + h.name!r}, {self.where(c)!r}, "
                          f"{st}.nextIndex - 1, {x}.cur, {st}.elems[{st}.nextIndex - 1].{pyattr(h.name)})")
                    return None
                if isinstance(h, A.DontCare):  # `extract<T>(_)`: skip a T (a throwaway instance checks the length)
                    ht = (getattr(callee, "type_args", None) or {}).get("T") or getattr(h, "type", None)
                    o(f"{x}.cur = {self.cls_name(ht)}()._extract({x}.data, {x}.cur{vl})")
                    return None
                o(f"{x}.cur = {self.expr(h)}._extract({x}.data, {x}.cur{vl})")
                if isinstance(h, A.Member) and isinstance(strip(h.expr.type), T.HeaderUnion):
                    o(f"{self.expr(h.expr)}._only({pyattr(h.name)!r})")
                if self.tr:
                    o(f"_T.extracted({A.to_source(h).replace('{', '{{').replace('}', '}}')!r}, {self.where(c)!r}, "
                      f"None, {x}.cur, {self.expr(h)})")
                return None
            if m == "lookahead":
                rt = strip(callee.ret)
                tmp = self.uniq("la")
                if isinstance(rt, T.Header):
                    w = T.width_of(rt)
                    o(f"if {x}.cur + {w} > len({x}.data) << 3: raise ParserError({self.err('PacketTooShort', 1)})")
                    o(f"{tmp} = {self.cls_name(rt)}()")
                    o(f"{tmp}._unpack(_extract_bits({x}.data, {x}.cur, {w}))")
                    o(f"{tmp}._valid = True")
                    return tmp
                if isinstance(rt, T.Struct):  # the struct's fields, in order, from the next bits
                    w = T.width_of(rt)
                    o(f"if {x}.cur + {w} > len({x}.data) << 3: raise ParserError({self.err('PacketTooShort', 1)})")
                    raw = self.uniq("lab")
                    o(f"{raw} = _extract_bits({x}.data, {x}.cur, {w})")
                    o(f"{tmp} = {self.cls_name(rt)}()")
                    for line in _fill_from_bits(tmp, rt, raw, w):
                        o(line)
                    return tmp
                b = _bits(rt)
                w = b[0] if b else T.width_of(rt)
                o(f"if {x}.cur + {w} > len({x}.data) << 3: raise ParserError({self.err('PacketTooShort', 1)})")
                v = f"_extract_bits({x}.data, {x}.cur, {w})"
                if isinstance(rt, T.Bool):
                    v = f"({v} != 0)"
                elif b and b[1]:
                    v = f"(({v} ^ {1 << (w - 1)}) - {1 << (w - 1)})"
                o(f"{tmp} = {v}")
                return tmp
            if m == "advance":
                n = self.expr(args[0])
                o(f"if {x}.cur + {n} > len({x}.data) << 3: raise ParserError({self.err('PacketTooShort', 1)})")
                o(f"{x}.cur += {n}")
                return None
            if m == "length":
                return f"len({x}.data)"
        if tname == "packet_out" and m == "emit":
            self.emit(x, args[0])
            return None
        if tname == "register":
            if isinstance(strip(args[0 if m == "read" else 1].type), T.Struct):
                return self._struct_register(x, m, args, c)
            if m == "read":
                # BMv2 register_read out of range: an error log, "Dest field was not updated"
                self._indexed_store(x, args[1], args[0], lambda i: f"{x}.values.set.get({i}, 0)", "register_read", c)
                return None
            if m == "write":
                val = self.expr(args[1])
                b = _bits(args[1].type)
                if b and b[1]:
                    val = f"({val} & {_mask(b[0])})"
                if self.tr:
                    o(f"{x}.write({self.expr(args[0])}, {val})")
                    self.trace("extern", "register_write", f"{self._xname(x)}[{{}}] <- {{}}", c,
                               f"str({self.expr(args[0])})", val)
                    return None
                # Register.write in place (one call fewer per packet): in range, the cell gets the value cut to
                # the register's width; out of range, nothing but the count (BMv2 logs it)
                i = self._index_value(args[0])
                o(f"if {i} < {self._extern_const(x, 'size')}: {x}.values.set[{i}] = {val} & "
                  f"{self._extern_const(x, 'mask')}")
                o(f"else: {x}.out_of_range += 1")
                return None
        if tname == "counter" and m == "count":
            if self.tr:
                o(f"{x}.count({self.expr(args[0])}, _rt.cur.length)")
                self.trace("extern", "count", f"{self._xname(x)}[{{}}]", c, f"str({self.expr(args[0])})")
                return None
            # Counter.count in place
            i, cells = self._index_value(args[0]), self.uniq("xc")
            o(f"if {i} < {self._extern_const(x, 'size')}:")
            o(f"    {cells} = {x}.packets.set")
            o(f"    {cells}[{i}] = {cells}.get({i}, 0) + 1")
            o(f"    {cells} = {x}.bytes.set")
            o(f"    {cells}[{i}] = {cells}.get({i}, 0) + _rt.cur.length")
            o(f"else: {x}.out_of_range += 1")
            return None
        if tname == "direct_counter" and m == "count":
            return None  # the table counts its hits
        if tname == "meter" and m == "execute_meter":
            # BMv2 execute_meter out of range: "No meters were updated, and neither was dest field"
            self._indexed_store(x, args[0], args[1], lambda i: f"{x}.execute({i}, _rt.cur.length, _rt.cur.now_us)",
                                "execute_meter", c)
            return None
        if tname == "direct_meter" and m == "read":
            c = self.uniq("dm")
            o(f"{c} = {x}.read()")
            o(f"if {c} is not None:")
            o.ind += 1
            self.store(args[0], c)
            o.ind -= 1
            if self.tr:
                self.trace("extern", "direct_meter_read", f"{self._xname(x)} -> {{}}", callee.receiver, c)
            return None
        if tname == "Checksum16" and m == "get":
            return f"({self.bind('H_csum16', hashing.get('csum16'))}({self.packed(args[0])}) & 65535)"
        src, done = self.plugin_method_call(x, tname, callee, c, stmt)
        if done:
            return src
        if tname in self.plugins.origin or tname in _V1MODEL_OBJECTS:
            raise Unsupported(f"extern method {tname}.{m} is not supported by the v1model target", c.loc)
        raise Unsupported(f"extern {tname} is not implemented: it is not a v1model extern, and no extern plugin "
                          f"registers it (--extern-plugin MODULE, see docs/p4.md)", c.loc)

    def _xname(self, x: str) -> str:
        """The control-plane name of a bound extern object (for trace text)."""
        return getattr(self.ns.get(x), "name", None) or x


    def _struct_register(self, x: str, m: str, args, c) -> None:
        """`register<S>` of a struct of bit<W>/int<W>/bool fields (p4c's issue907-bmv2): a cell holds the struct's
        fields packed into one integer, first field highest, as a P4Runtime bitstring carries it; the first packet
        writing one crashed the switch (the struct itself was masked as an integer)."""
        o = self.out
        t = strip(args[0 if m == "read" else 1].type)
        w = T.width_of(t)
        i = self._index_value(args[0 if m == "write" else 1])
        o(f"if {i} < {self._extern_const(x, 'size')}:")
        o.ind += 1
        if m == "read":
            raw = self.uniq("rg")
            o(f"{raw} = {x}.values.set.get({i}, 0)")
            for line in _fill_from_bits(self.expr(args[0]), t, raw, w):
                o(line)
        else:
            o(f"{x}.values.set[{i}] = {_pack_expr(self.expr(args[1]), t)}")
        if self.tr:
            self.trace("extern", f"register_{m}", f"{self._xname(x)}[{{}}] = {{}}", c, f"str({i})",
                       f"str({x}.values.set.get({i}, 0))")
        o.ind -= 1
        o(f"else: {x}.out_of_range += 1")
        return None


def _fill_from_bits(target: str, t, raw: str, end: int) -> list[str]:
    """Statements setting `target` (of type `t`) from the bits of `raw` just below bit `end` (counted from the least
    significant bit): `lookahead<S>()` of a struct, whose value was an integer the first field access crashed on
    (p4c's issue2465-bmv2). Headers in it, alone or in a stack, are valid, as a looked-ahead header is."""
    t = strip(t)
    w = T.width_of(t)
    piece = f"(({raw} >> {end - w}) & {_mask(w)})"
    if isinstance(t, T.Struct):
        lines, pos = [], end
        for f in t.fields:
            lines += _fill_from_bits(f"{target}.{pyattr(f.name)}", f.type, raw, pos)
            pos -= T.width_of(strip(f.type))
        return lines
    if isinstance(t, T.Header):
        return [f"{target}._unpack({piece})", f"{target}._valid = True"]
    if isinstance(t, T.HeaderStack):
        ew = T.width_of(strip(t.elem))
        return [line for k in range(t.size) for line in _fill_from_bits(f"{target}.elems[{k}]", t.elem, raw, end - k * ew)]
    if isinstance(t, T.Bool):
        return [f"{target} = {piece} != 0"]
    b = _bits(t)
    if b is None:
        raise Unsupported(f"lookahead of a struct with a field of type {t}")
    if b[1]:
        return [f"{target} = ({piece} ^ {1 << (w - 1)}) - {1 << (w - 1)}"]
    return [f"{target} = {piece}"]


def _pack_expr(value: str, t) -> str:
    """The fields of struct `value` (of bit<W>, int<W>, bool or serializable-enum fields, nested structs too) packed
    into one integer, first field in the highest bits: the inverse of _fill_from_bits."""
    parts, pos = [], T.width_of(t)
    for path, ft in _leaves(value, strip(t)):
        w = T.width_of(ft)
        pos -= w
        v = f"int({path})" if isinstance(ft, T.Bool) else f"({path} & {_mask(w)})"
        parts.append(f"({v} << {pos})" if pos else v)
    return "(" + " | ".join(parts) + ")" if parts else "0"


def _leaves(path: str, t) -> list:
    out = []
    for f in t.fields:
        ft = strip(f.type)
        sub = f"{path}.{pyattr(f.name)}"
        out += _leaves(sub, ft) if isinstance(ft, T.Struct) else [(sub, ft)]
    return out
