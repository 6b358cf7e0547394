"""Type resolution (type references -> types.py types) and constant and variable declarations."""
from __future__ import annotations

from emulator.p4 import ast
from emulator.p4 import types as T
from emulator.p4.checker.scope import Overloads, Scope, _Ctx, _dirn, _err, _header_field_type_ok, _width_ok

# structs, headers, unions and stacks inside one another (docs/p4.md, "Limits")
MAX_TYPE_NESTING = 100


class TypeResolver:
    """Types of declarations and type references; constants (a mixin of Checker)."""

    # ------------------------------------------------------------------------------------------------ types

    def declare_earlier_member(self, mscope: Scope, m, underlying, ut: T.P4Type) -> None:
        """A serializable enum's later member values may name an earlier member by its bare name, as a
        constant of the underlying type (`enum bit<4> e { a = 0, c = (bit<4>)a, d = a }`: p4c's issue3616)."""
        c = ast.ConstDecl(decl_type=underlying, name=m.name, value=m.value, loc=m.loc)
        self.decl_types[c] = ut
        mscope.names[m.name] = c

    def type_params_scope(self, tps, scope: Scope) -> Scope:
        if not tps:
            return scope
        s = Scope(scope)
        for tp in tps:
            self.declare(s, tp.name, tp)
            self.decl_types[tp] = T.TypeVar(tp.name)
        return s

    def check_type_nesting(self, d, fields: list[T.FieldT]) -> None:
        """Structs, headers and unions inside one another at most MAX_TYPE_NESTING levels deep: the target builds
        and copies a value a Python call per level, and 500 levels compiled cleanly, then were a RecursionError in
        the first packet. A declared type's depth is kept by its declaration, so each is computed once."""
        depths = self.__dict__.setdefault("_type_depths", {})

        def depth(t: T.P4Type) -> int:
            t = T.strip_newtype(t)
            if isinstance(t, (T.Struct, T.Header, T.HeaderUnion)):
                return depths.get(t.decl, 1) if t.decl is not None else 1
            if isinstance(t, T.HeaderStack):
                return 1 + depth(t.elem)
            if isinstance(t, (T.Tuple, T.List)):
                return 1 + max((depth(e) for e in t.elements), default=0)
            return 0

        levels = [(depth(f.type), f) for f in fields]
        deepest, field = max(levels, key=lambda x: x[0], default=(0, None))
        if deepest + 1 > MAX_TYPE_NESTING:
            at = next(f for f in d.fields if f.name == field.name)
            raise _err(f"{d.name} nests {deepest + 1} levels of structs, headers and stacks inside one another, more "
                       f"than the {MAX_TYPE_NESTING} supported", at)
        depths[d] = deepest + 1

    def type_of_decl(self, d, scope: Scope) -> T.P4Type:
        t = self.decl_types.get(d)
        if t is not None:
            return t
        if isinstance(d, (ast.HeaderDecl, ast.StructDecl, ast.HeaderUnionDecl)):
            # a generic one (`struct S<T>`) is resolved with its type parameters as type variables: a template
            # that `specialize_type` instantiates where `S<bit<8>>` is written
            scope = self.type_params_scope(d.type_params, scope)
            seen = set()
            fs = []
            for f in d.fields:
                if f.name in seen:
                    raise _err(f"duplicate field '{f.name}' in {d.name}", f)
                if f.name == "_":
                    raise _err(f"'_' is the don't-care: it cannot name a field of {d.name}", f)
                seen.add(f.name)
                ft = self.resolve_type(f.field_type, scope)
                for a in f.annotations or ():
                    if a.name == "match" and a.body.strip() not in self.match_kind_decls:
                        # a value_set's struct field says how it matches (P4-16 12.11): a match_kind member
                        raise _err(f"@match needs a match_kind (exact, ternary, ...), not '{a.body.strip()}'", a)
                    if a.name == "field_list" and a.args:  # ids may be named constants (p4c folds them)
                        for x in a.args:
                            self.const_int(x, scope, _Ctx("top"), "a @field_list argument")
                if isinstance(d, ast.HeaderDecl) and not T.contains_typevar(ft) and not _header_field_type_ok(ft):
                    raise _err(f"header field '{f.name}' has type {ft}; header fields must be bit<W>, int<W>, "
                               "varbit<W>, bool, a serializable enum, or a struct or array of fixed-width fields", f)
                if isinstance(d, ast.HeaderDecl) and isinstance(ft, T.VarBits) \
                        and any(isinstance(x.type, T.VarBits) for x in fs):
                    # BMv2's header types have one variable-length field at most
                    raise _err(f"header {d.name} has a second varbit field '{f.name}': v1model headers have at "
                               "most one", f)
                # a generic union's member may be a type variable (checked where specialized) or a generic
                # header; `tuple<T, T>` is never a header, whatever T is
                if isinstance(d, ast.HeaderUnionDecl) and not isinstance(T.strip_newtype(ft), (T.Header, T.TypeVar)):
                    raise _err(f"header_union member '{f.name}' has type {ft}; the members of a header_union are "
                               "headers", f)
                self.check_field_type(ft, f)
                if isinstance(d, ast.StructDecl):
                    _no_block_inside(ft, f"field '{f.name}' of struct {d.name}", f)
                    if isinstance(T.strip_newtype(ft), T.String):
                        raise _err(f"field '{f.name}' of struct {d.name} cannot have type string: strings are "
                                   "compile-time values only", f)
                fs.append(T.FieldT(f.name, ft))
            cls = {ast.HeaderDecl: T.Header, ast.StructDecl: T.Struct, ast.HeaderUnionDecl: T.HeaderUnion}[type(d)]
            t = cls(d.name, tuple(fs), d)
            self.check_type_nesting(d, fs)
        elif isinstance(d, ast.EnumDecl):
            if d.underlying is None:
                names = []
                for m in d.members:
                    if m.name in names:
                        raise _err(f"duplicate enum member '{m.name}'", m)
                    names.append(m.name)
                t = T.Enum(d.name, tuple(names), d)
            else:
                ut = self.resolve_type(d.underlying, scope)
                if not isinstance(ut, T.Bits):
                    raise _err(f"enum underlying type must be bit<W> or int<W>, not {ut}", d.underlying)
                ms = []
                mscope = Scope(scope)
                for m in d.members:
                    if m.value is None:
                        raise _err(f"member '{m.name}' of serializable enum {d.name} needs a value", m)
                    self.check_expr(m.value, mscope, _Ctx("top"))
                    self.coerce(m.value, ut)
                    if m.value.const_value is None:
                        raise _err("enum member value must be a compile-time constant", m.value)
                    ms.append((m.name, m.value.const_value))
                    self.declare_earlier_member(mscope, m, d.underlying, ut)
                self.check_serenum_members(d)
                t = T.SerEnum(d.name, ut, tuple(ms), d)
            for m in d.members:
                self.decl_types[m] = t
        elif isinstance(d, ast.TypedefDecl):
            t = self.resolve_type(d.aliased, scope)
        elif isinstance(d, ast.NewTypeDecl):
            base = self.resolve_type(d.aliased, scope)
            if not isinstance(base, (T.Bits, T.Bool, T.NewType)):
                # P4-16 7.6: a new type is made from bit<W>, int<W>, bool or another new type (p4c agrees)
                raise _err(f"'type' can only make a new type from bit<W>, int<W>, bool or another 'type', not "
                           f"{base}", d)
            t = T.NewType(d.name, base)
        elif isinstance(d, ast.ExternDecl):
            tps = tuple(tp.name for tp in d.type_params)
            t = T.Extern(d.name, tps, (), d)
            self.decl_types[d] = t
            s = self.type_params_scope(d.type_params, scope)
            d._scope = s
            for m in d.methods:
                if m.name == d.name:
                    # `void X();` in extern X: a constructor has no return type (P4-16 7.2.10)
                    raise _err(f"the constructor of extern {d.name} cannot have a return type", m)
                if m.return_type is None:
                    raise _err(f"method '{m.name}' of extern {d.name} needs a return type", m)
                self.method_of(m, s)
            for c in d.constructors:
                self.check_extern_ctor_params(c, self.method_of(c, s))
            return t
        elif isinstance(d, (ast.ParserTypeDecl, ast.ControlTypeDecl, ast.PackageTypeDecl,
                            ast.ParserDecl, ast.ControlDecl)):
            s = self.type_params_scope(d.type_params, scope)
            self.check_param_list(d.params)
            params = tuple(self.param_of(p, s) for p in d.params)
            self.check_param_defaults(d.params, params, s, d.type_params)
            cls = T.ParserT if isinstance(d, (ast.ParserTypeDecl, ast.ParserDecl)) else \
                T.ControlT if isinstance(d, (ast.ControlTypeDecl, ast.ControlDecl)) else T.PackageT
            t = cls(d.name, params, tuple(tp.name for tp in d.type_params), d)
        elif isinstance(d, ast.TypeParameter):
            t = T.TypeVar(d.name)
        else:
            raise _err(f"'{getattr(d, 'name', d)}' is not a type", d)
        self.decl_types[d] = t
        return t

    def specialize_type(self, template, d, args: tuple, node) -> T.P4Type:
        """`S<args>` for a generic header, union or struct `S` (P4-16 7.2.12): its fields with the type
        parameters replaced; a header's fields must then be of the types a header allows."""
        kind = type(d).__name__[:-4].lower().replace("headerunion", "header_union")
        if not args:
            raise _err(f"generic {kind} {d.name} needs type arguments: {d.name}<...>", node)
        if len(args) != len(d.type_params):
            raise _err(f"{kind} {d.name} takes {len(d.type_params)} type arguments, {len(args)} given", node)
        self.check_not_own_arg(d, f"{kind} {d.name}", args, node)
        env = {tp.name: a for tp, a in zip(d.type_params, args)}
        fields = tuple(T.FieldT(f.name, T.substitute(f.type, env)) for f in template.fields)
        if isinstance(template, T.Header):
            for f in fields:
                if not T.contains_typevar(f.type) and not _header_field_type_ok(f.type):
                    raise _err(f"header field '{f.name}' of {d.name}<...> would have type {f.type}; header "
                               "fields must be bit<W>, int<W>, varbit<W>, bool, a serializable enum or a struct "
                               "of fixed-width fields", node)
        for f in fields:
            if isinstance(template, T.HeaderUnion) and not T.contains_typevar(f.type) \
                    and not isinstance(T.strip_newtype(f.type), T.Header):
                raise _err(f"header_union member '{f.name}' of {d.name}<...> would have type {f.type}; the members "
                           "of a header_union are headers", node)
            if isinstance(template, T.Struct):
                _no_block_inside(f.type, f"field '{f.name}' of {d.name}<...>", node)
        return T.specialized(d, type(template), args, fields)

    def param_of(self, p: ast.Parameter, scope: Scope) -> T.Param:
        t = self.resolve_type(p.param_type, scope)
        if p.direction and isinstance(T.strip_newtype(t), T.Extern):
            # an extern instance is a reference to one object, never copied in or out (P4-16 6.8)
            raise _err(f"parameter '{p.name}' of extern type {t} cannot have a direction ({p.direction})", p)
        self.check_string_param(p, t)
        self.decl_types[p] = t
        opt = ast.find_annotation(p.annotations, "optional") is not None
        return T.Param(p.name, t, _dirn(p), p.default is not None, opt)

    def check_param_list(self, params) -> None:
        """The rules a declaration's parameter list obeys whether or not it has a body (P4-16 6.8)."""
        seen = set()
        for p in params:
            if p.name in seen:
                raise _err(f"duplicate parameter '{p.name}'", p)
            seen.add(p.name)
            # an out parameter has no value to default to; an inout one may have one (p4c accepts it in a control
            # type, default-control-argument.p4: an implementation may leave such a parameter out)
            if p.default is not None and p.direction == "out":
                raise _err(f"out parameter '{p.name}' cannot have a default value (it is only written)", p)
            if p.default is not None and ast.find_annotation(p.annotations, "optional") is not None:
                raise _err(f"@optional parameter '{p.name}' cannot have a default value (give one or the other)",
                           p)

    def method_of(self, m, scope: Scope) -> T.Method:
        t = self.decl_types.get(m)
        if t is not None:
            return t
        s = self.type_params_scope(m.type_params, scope)
        m._scope = s
        self.check_param_list(m.params)
        params = tuple(self.param_of(p, s) for p in m.params)
        self.check_param_defaults(m.params, params, s, m.type_params)
        ret = self.resolve_type(m.return_type, s) if m.return_type is not None else T.VOID
        t = T.Method(m.name, tuple(tp.name for tp in m.type_params), params, ret, m,
                     getattr(m, "abstract", False))
        self.decl_types[m] = t
        return t

    def resolve_type(self, t: ast.Type, scope: Scope) -> T.P4Type:
        r = self._resolve_type(t, scope)
        t.resolved = r
        return r

    def _resolve_type(self, t: ast.Type, scope: Scope) -> T.P4Type:
        if isinstance(t, ast.InferredType):
            return t.fixed
        if isinstance(t, ast.BitType):
            w = self.const_int(t.width, scope, _Ctx("top"), "width")
            if w < 0 or (t.signed and w == 0):
                raise _err(f"invalid width {w}", t)
            return T.Bits(_width_ok(w, t), t.signed)
        if isinstance(t, ast.BoolType):
            return T.BOOL
        if isinstance(t, ast.TypeName):
            d = self.top.lookup(t.path) if t.absolute else scope.lookup(t.path)
            if d is None:
                raise _err(f"undeclared type '{t.path}'", t)
            if isinstance(d, Overloads):
                raise _err(f"'{t.path}' is not a type", t)
            t.decl = d
            if isinstance(d, ast.TypeParameter):
                return self.decl_types.get(d) or T.TypeVar(d.name)
            base = self.type_of_decl(d, scope)
            args = tuple(self.resolve_type(a, scope) for a in t.type_args)
            if isinstance(base, T.Extern):
                if args and base.type_args:
                    # a typedef of `E<bit<16>>` names a specialized extern: it takes no type arguments again
                    raise _err(f"type {t.path} is not generic: it is {base}, whose type arguments are given", t)
                if args:
                    if len(args) != len(base.type_params):
                        raise _err(f"extern {base.name} takes {len(base.type_params)} type arguments, "
                                   f"{len(args)} given", t)
                    return T.Extern(base.name, base.type_params, args, base.decl)
                return base
            if isinstance(base, (T.ParserT, T.ControlT, T.PackageT)) and args:
                if len(args) != len(base.type_params):
                    raise _err(f"{base.name} takes {len(base.type_params)} type arguments, {len(args)} given", t)
                # `_` leaves the parameter free, its own for each `_` (`Switch(Ingress<T, _, _> i, Egress<T, _, _>
                # e)`: the headers of the two pipelines need not be the same type)
                env = {k: T.TypeVar(f"{k}_{id(t)}") if isinstance(v, T.DontCare) else v
                       for k, v in zip(base.type_params, args)}
                return T.substitute(base, env)
            if isinstance(base, (T.Header, T.HeaderUnion, T.Struct)) and getattr(d, "type_params", None):
                return self.specialize_type(base, d, args, t)
            if args:
                raise _err(f"type {t.path} is not generic", t)
            return base
        if isinstance(t, ast.ErrorTypeRef):
            return self.error_type
        if isinstance(t, ast.MatchKindType):
            return self.matchkind_type
        if isinstance(t, ast.StringType):
            return T.STRING
        if isinstance(t, ast.VoidType):
            return T.VOID
        if isinstance(t, ast.InfIntType):
            return T.INFINT
        if isinstance(t, ast.VarbitType):
            w = self.const_int(t.width, scope, _Ctx("top"), "width")
            self.check_varbit_width(w, t)
            return T.VarBits(_width_ok(w, t))
        if isinstance(t, ast.TupleType):
            elems = tuple(self.resolve_type(e, scope) for e in t.elements)
            for et in elems:
                _no_block_inside(et, "a tuple element", t)
                self.check_tuple_element(et, t)
            return T.Tuple(elems)
        if isinstance(t, ast.ListType):
            return T.List((self.resolve_type(t.element, scope),))
        if isinstance(t, ast.HeaderStackType):
            et = self.resolve_type(t.element, scope)
            _array_element_ok(et, t.element if getattr(t.element, "loc", None) is not None else t)
            n = self.const_int(t.size, scope, _Ctx("top"), "array size")
            if n <= 0:
                raise _err(f"array size must be positive, not {n}", t.size)
            return T.HeaderStack(et, n)
        if isinstance(t, ast.DontCareType):
            return T.DONTCARE
        raise _err(f"unsupported type {type(t).__name__}", t)

    # ------------------------------------------------------------------------------------------ constants

    def const_int(self, e: ast.Expression, scope: Scope, ctx: _Ctx, what: str) -> int:
        if e.type is None:
            self.check_expr(e, scope, ctx)
        v = e.const_value
        if v is None or isinstance(v, (bool, str, tuple)):
            raise _err(f"{what} must be a compile-time integer constant", e)
        return v

    def check_const(self, d: ast.ConstDecl, scope: Scope, ctx: _Ctx) -> None:
        t = self.resolve_type(d.decl_type, scope)
        _no_dont_care(t, d, "constant")
        self.check_expr(d.value, scope, ctx)
        self.coerce(d.value, t)
        if d.value.const_value is None:
            raise _err(f"value of constant '{d.name}' is not a compile-time constant", d.value)
        self.decl_types[d] = t
        self.declare(scope, d.name, d)

    def check_var(self, d: ast.VarDecl, scope: Scope, ctx: _Ctx) -> None:
        t = self.resolve_type(d.decl_type, scope)
        _no_dont_care(t, d, "variable")
        if isinstance(t, (T.Extern, T.TableT, T.ParserT, T.ControlT, T.PackageT)):
            # blocks are instantiated (`mypt() t;`), never held in variables (p4c's issue3359: `mypt t = ...`)
            raise _err(f"variable '{d.name}' cannot have type {t}", d)
        if isinstance(T.strip_newtype(t), T.String):
            # P4-16 7.1.5: strings are compile-time values only ("one cannot declare variables with a string type")
            raise _err(f"variable '{d.name}' cannot have type string: strings are compile-time values only", d)
        if d.init is not None:
            self.check_expr(d.init, scope, ctx)
            self.coerce(d.init, t)
        self.decl_types[d] = t
        self.declare(scope, d.name, d)


def _no_block_inside(t: T.P4Type, what: str, node) -> None:
    """Struct fields and tuple elements are data (P4-16 7.2.8, type nesting): a parser, control, package, extern
    or table is not a value that can be stored in one."""
    if isinstance(T.strip_newtype(t), (T.ParserT, T.ControlT, T.PackageT, T.Extern, T.TableT)):
        raise _err(f"{what} cannot have type {t}: parsers, controls, packages, externs and tables are not values",
                   node)


def _array_element_ok(et: T.P4Type, node) -> None:
    """`E[n]` (P4-16 1.2.5 generalizes header stacks to arrays): E is any type a variable can have, a header,
    union, struct, bit<W>, bool, enum, error, tuple or another array; not `int` (no run-time value), string,
    void, match_kind, nor a parser, control, package, extern or table."""
    _no_block_inside(et, "an array element", node)
    if isinstance(T.strip_newtype(et), (T.InfInt, T.String, T.Void, T.MatchKind)):
        raise _err(f"an array element cannot have type {et}", node)


def _has_dont_care(t: T.P4Type) -> bool:
    if isinstance(t, T.DontCare):
        return True
    if isinstance(t, (T.Tuple, T.List)):
        return any(_has_dont_care(e) for e in t.elements)
    if isinstance(t, T.HeaderStack):
        return _has_dont_care(t.elem)
    if isinstance(t, (T.Header, T.HeaderUnion, T.Struct, T.Extern)) and getattr(t, "type_args", None):
        return any(_has_dont_care(a) for a in t.type_args)
    return False


def _no_dont_care(t: T.P4Type, d, what: str) -> None:
    """A declared constant or variable has a whole type: `_` stands for a type a call infers (P4-16 7.2.12),
    and `const S<_> x` left the struct's fields untyped."""
    if _has_dont_care(t):
        raise _err(f"the type of {what} '{d.name}' cannot contain '_' (write the type in full)", d)
