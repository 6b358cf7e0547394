"""Parsing tables, type declarations (struct, header, enum, typedef) and type references."""
from __future__ import annotations

from emulator.p4 import ast


class TypeParser:
    """Tables, type declarations and types (a mixin of Parser)."""


    # ------------------------------------------------------------------------------------------ tables

    def table_decl(self, annos) -> ast.TableDecl:
        start = self.expect("table")
        name = self.name("a table name")
        if self.accept("("):  # `table t() {`: an empty parameter list, still accepted by p4c
            self.expect(")", "')' (tables take no parameters)")
        self.expect("{")
        table = ast.TableDecl(name, annotations=annos, loc=start.loc)
        while not self.at("}"):
            if self.accept(";"):
                continue
            table.properties.append(self.table_property())
        self.expect("}")
        return table

    def table_property(self) -> ast.TableProperty:
        annos = self.annotations()
        start = self.tok
        const = bool(self.accept("const"))
        t = self.tok
        if t.kind == "EOF":
            self.expect("}")
        if t.kind != "ID":
            raise self.error(f"expected a table property but found {self._describe(t)}")
        pname = self.advance().text
        self.expect("=")
        if pname == "key":
            self.expect("{")
            elems = []
            while not self.at("}"):
                et = self.tok
                if et.kind == "EOF":
                    self.expect("}")
                e = self.expression()
                self.expect(":")
                mk = self.name("a match kind")
                ea = self.annotations()
                self.expect(";")
                elems.append(ast.KeyElement(e, mk, annotations=ea, loc=et.loc))
            self.expect("}")
            return ast.KeyProperty(pname, const, annotations=annos, elements=elems, loc=start.loc)
        if pname == "actions":
            self.expect("{")
            refs = []
            while not self.at("}"):
                ra = self.annotations()
                rt = self.tok
                if rt.kind == "EOF":
                    self.expect("}")
                path = self.path_expression()
                args = self.arguments() if self.at("(") else None
                ra = ra + self.annotations()
                self.expect(";")
                refs.append(ast.ActionRef(path, args, annotations=ra, loc=rt.loc))
            self.expect("}")
            return ast.ActionsProperty(pname, const, annotations=annos, actions=refs, loc=start.loc)
        if pname == "entries":
            self.expect("{")
            entries = []
            while not self.at("}"):
                entries.append(self.entry())
            self.expect("}")
            self.accept(";")
            return ast.EntriesProperty(pname, const, annotations=annos, entries=entries, loc=start.loc)
        value = self.expression()
        self.expect(";")
        return ast.ValueProperty(pname, const, annotations=annos, value=value, loc=start.loc)

    def entry(self) -> ast.Entry:
        annos = self.annotations()
        start = self.tok
        if start.kind == "EOF":
            self.expect("}")
        const = bool(self.accept("const"))
        priority = None
        if self.at_soft("priority") and self.peek().kind == "=":
            self.advance()
            self.advance()
            if self.at("INT") or self.at("("):
                # `priority = 10 (k1, k2) : a;` (p4c's form, with no ':' after the value): the value is an integer
                # literal or a parenthesized expression, so the keyset's '(' is not read as a call
                t = self.tok
                if self.accept("("):
                    priority = self.expression()
                    self.expect(")")
                else:
                    self.advance()
                    priority = ast.IntLiteral(*t.value, loc=t.loc)
                self.accept(":")
            else:
                priority = self.expression()
                self.expect(":")
        keyset = self.keyset_expression()
        self.expect(":")
        action = self.expression()
        annos = annos + self.annotations()
        self.expect(";")
        return ast.Entry(keyset, action, priority, const, annotations=annos, loc=start.loc)

    # ------------------------------------------------------------------------------------------ type decls

    def struct_like(self, annos) -> ast.Declaration:
        start = self.advance()
        name = self.name(f"a {start.kind} name")
        self.declare_global_type(name)
        tparams = self.type_params()
        cls = {"header": ast.HeaderDecl, "header_union": ast.HeaderUnionDecl, "struct": ast.StructDecl}[start.kind]
        self.push_types(p.name for p in tparams)
        try:
            self.expect("{")
            fields = []
            while not self.at("}"):
                fa = self.annotations()
                ft = self.tok
                if ft.kind == "EOF":
                    self.expect("}")
                ty = self.type_ref()
                fname = self.name("a field name")
                self.expect(";")
                fields.append(ast.StructField(ty, fname, annotations=fa, loc=ft.loc))
            self.expect("}")
        finally:
            self.pop_types()
        self.accept(";")
        return cls(name, fields, tparams, annotations=annos, loc=start.loc)

    def enum_decl(self, annos) -> ast.EnumDecl:
        start = self.expect("enum")
        underlying = None
        if self.at("bit") or self.at("int") or (self.at("ID") and self.peek().kind == "ID"):
            underlying = self.type_ref()
        name = self.name("an enum name")
        self.declare_global_type(name)
        self.expect("{")
        members = []
        while not self.at("}"):
            ma = self.annotations()
            mt = self.tok
            mname = self.name("an enum member")
            value = None
            if self.accept("="):
                value = self.expression()
            members.append(ast.IdDecl(mname, value, annotations=ma, loc=mt.loc))
            if not self.accept(","):
                break
        self.expect("}", "',' or '}'")
        self.accept(";")
        return ast.EnumDecl(name, members, underlying, annotations=annos, loc=start.loc)

    def typedef_decl(self, annos) -> ast.Declaration | list[ast.Declaration]:
        """`typedef T name;`, `type T name;`, or `typedef <struct/header/header_union/enum declaration> name;`
        (the grammar's `TYPEDEF derivedTypeDeclaration name`), which declares both types."""
        start = self.advance()
        derived = None
        if start.kind == "typedef" and self.tok.kind in ("header", "header_union", "struct", "enum"):
            dt = self.tok
            derived = self.enum_decl([]) if dt.kind == "enum" else self.struct_like([])
            ty: ast.Type = ast.TypeName(derived.name, loc=dt.loc)
        else:
            ty = self.type_ref()
        name = self.name("a type name")
        self.declare_global_type(name)
        self.expect(";")
        cls = ast.TypedefDecl if start.kind == "typedef" else ast.NewTypeDecl
        alias = cls(ty, name, annotations=annos, loc=start.loc)
        return alias if derived is None else [derived, alias]

    # ------------------------------------------------------------------------------------------ types

    def type_ref(self) -> ast.Type:
        t = self.tok
        k = t.kind
        if k in ("bit", "int", "varbit"):
            self.advance()
            if self.accept("<"):
                width = self.type_width()
                self.expect(">")
                ty: ast.Type = (ast.VarbitType(width, loc=t.loc) if k == "varbit"
                                else ast.BitType(width, k == "int", loc=t.loc))
            elif k == "bit":
                ty = ast.BitType(ast.IntLiteral(1, loc=t.loc), False, loc=t.loc)
            elif k == "int":
                ty = ast.InfIntType(loc=t.loc)
            else:
                raise self.error("expected '<' after 'varbit'")
        elif k == "bool":
            self.advance()
            ty = ast.BoolType(loc=t.loc)
        elif k == "error":
            self.advance()
            ty = ast.ErrorTypeRef(loc=t.loc)
        elif k == "match_kind":
            self.advance()
            ty = ast.MatchKindType(loc=t.loc)
        elif k == "string":
            self.advance()
            ty = ast.StringType(loc=t.loc)
        elif k == "void":
            self.advance()
            ty = ast.VoidType(loc=t.loc)
        elif k == "tuple":
            self.advance()
            ty = ast.TupleType(self.tuple_type_args(), loc=t.loc)
        elif k == "ID" and t.text == "list" and self.peek().kind == "<":
            self.advance()
            args = self.type_args()
            if len(args) != 1:
                raise self.error("list<T> takes exactly one type argument", t)
            ty = ast.ListType(args[0], loc=t.loc)
        elif k == "ID" and t.text == "_":
            self.advance()
            ty = ast.DontCareType(loc=t.loc)
        elif k == "ID" or k == ".":
            absolute = bool(self.accept("."))
            name = self.name("a type")
            args = self.type_args() if self.at("<") else []
            ty = ast.TypeName(name, args, absolute, loc=t.loc)
        elif k == "EOF":
            raise self.error("unexpected end of file: expected a type")
        else:
            raise self.error(f"expected a type but found {self._describe(t)}")
        while self.at("["):
            # header stack or array T[n]; T[n][m] is an array of m T[n]s (p4c nests to the left)
            b = self.advance()
            size = self.expression()
            self.expect("]")
            ty = ast.HeaderStackType(ty, size, loc=b.loc)
        return ty

    def type_width(self) -> ast.Expression:
        t = self.tok
        if t.kind == "INT":
            self.advance()
            v, w, s, base = t.value
            return ast.IntLiteral(v, w, s, base, loc=t.loc)
        if t.kind == "(":
            self.advance()
            e = self.expression()
            self.expect(")")
            return e
        if t.kind == "ID" or t.kind == ".":
            return self.path_expression()
        raise self.error(f"expected a width but found {self._describe(t)}")

    def type_args(self) -> list[ast.Type]:
        self.expect("<")
        out = []
        while True:
            out.append(self.type_arg())
            if not self.accept(","):
                break
        self.expect(">", "',' or '>'")
        return out

    def tuple_type_args(self) -> list[ast.Type]:
        """`tuple<>` is the empty tuple type (P4-16's typeArgumentList may be empty)."""
        if self.tok.kind == "<" and self.peek().kind == ">":
            self.advance()
            self.advance()
            return []
        return self.type_args()

    def type_arg(self) -> ast.Type:
        return self.type_ref()

    def starts_type(self) -> bool:
        """Whether the current token unambiguously begins a type (for casts and generic calls)."""
        t = self.tok
        k = t.kind
        if k in ("bit", "int", "varbit", "bool", "string", "void", "tuple"):
            return True
        if k in ("error", "match_kind"):
            return self.peek().kind != "."
        if k == "ID":
            if t.text == "_":
                return True
            return self.is_type_name(t.text)
        if k == ".":
            nxt = self.peek()
            return nxt.kind == "ID" and self.is_type_name(nxt.text)
        return False
