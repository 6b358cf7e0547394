"""The P4-16 (v1.2.4) parser: hand-written recursive descent with Pratt expression parsing.

Ambiguities resolved the way p4c does, by tracking the type names declared so far (headers, structs, unions,
enums, typedefs, `type`s, externs, parsers, controls, packages, and type parameters in scope):
- `(T) e` is a cast when `T` parses as a type and is followed by `)`; `(x)` otherwise;
- `f<bit<8>>(x)`: after an expression, `<` opens type arguments when they parse as types and `(` follows;
- `>` is always one token: two adjacent `>` in an expression are a right shift;
- `T(args)` where `T` is a type is a constructor call (an anonymous instance), else a method call.
Entry point: `parse_program(src, filename) -> ast.Program`.
"""
from __future__ import annotations

import re
import sys

from emulator.errors import P4Error, SrcLoc
from emulator.p4 import ast
from emulator.p4.lexer import KEYWORDS, SourceText, Token, tokenize
from emulator.p4.preprocess import PreprocessedSource

# binding powers of binary operators (p4c's precedence: || < && < ==,!= < <,>,<=,>= < | < ^ < & < <<,>> < ++
# < +,-,|+|,|-| < *,/,%)
_BINARY_BP = {
    "||": 20, "&&": 30, "==": 40, "!=": 40, "<": 50, ">": 50, "<=": 50, ">=": 50, "|": 60, "^": 70, "&": 80,
    "<<": 90, "++": 100, "+": 110, "-": 110, "|+|": 110, "|-|": 110, "*": 120, "/": 120, "%": 120,
}
_SHIFT_BP = 90
_MUX_BP = 10
_PREFIX_BP = 130
_POSTFIX_BP = 140

_BASE_TYPE_KW = frozenset({"bit", "int", "varbit", "bool", "string", "void", "tuple", "error", "match_kind"})
_DIRECTIONS = frozenset({"in", "out", "inout"})
_UNSUPPORTED_STMT = {"while": "'while' loops (not P4)", "do": "'do' loops (not P4)"}


class _Backtrack(Exception):
    """Raised inside a speculative parse to abandon it."""


class Parser:
    def __init__(self, src: SourceText):
        self.src = src
        self.toks = tokenize(src)
        self.pos = 0
        self.tok: Token = self.toks[0]
        self.type_scopes: list[set[str]] = [set()]
        self.speculating = 0

    # ------------------------------------------------------------------------------------------ token helpers

    def advance(self) -> Token:
        t = self.tok
        self.pos += 1
        self.tok = self.toks[self.pos] if self.pos < len(self.toks) else self.toks[-1]
        return t

    def peek(self, k: int = 1) -> Token:
        i = self.pos + k
        return self.toks[i] if i < len(self.toks) else self.toks[-1]

    def at(self, kind: str) -> bool:
        return self.tok.kind == kind

    def at_soft(self, word: str) -> bool:
        return self.tok.kind == "ID" and self.tok.text == word

    def accept(self, kind: str) -> Token | None:
        if self.tok.kind == kind:
            return self.advance()
        return None

    def reset(self, pos: int) -> None:
        self.pos = pos
        self.tok = self.toks[pos]

    def error(self, message: str, tok: Token | None = None) -> P4Error:
        if self.speculating:
            return _Backtrack()  # type: ignore[return-value]
        tok = tok or self.tok
        return self.src.error(message, tok.loc)

    def _describe(self, tok: Token) -> str:
        if tok.kind == "EOF":
            return "end of file"
        return f"'{tok.text}'"

    def expect(self, kind: str, what: str | None = None) -> Token:
        if self.tok.kind == kind:
            return self.advance()
        if self.speculating:
            raise _Backtrack()
        want = what or f"'{kind}'"
        tok = self.tok
        if tok.kind == "EOF":
            raise self.src.error(f"unexpected end of file: expected {want}", tok.loc)
        prev = self.toks[self.pos - 1] if self.pos else None
        if kind == ";" and prev is not None and prev.line != tok.line:
            # a forgotten ';' at the end of a line: point just after the previous token
            loc = self.src.loc(prev.line, prev.col + len(prev.text))
            raise self.src.error(f"expected ';' but found {self._describe(tok)}", loc)
        raise self.src.error(f"expected {want} but found {self._describe(tok)}", tok.loc)

    def expect_soft(self, word: str) -> Token:
        if self.at_soft(word):
            return self.advance()
        return self.expect("\0", f"'{word}'")

    def name(self, what: str = "a name") -> str:
        """An identifier (soft keywords included)."""
        if self.tok.kind == "ID":
            return self.advance().text
        return self.expect("ID", what).text

    # ------------------------------------------------------------------------------------------ type names

    def is_type_name(self, name: str) -> bool:
        for scope in reversed(self.type_scopes):
            if name in scope:
                return True
        return False

    def declare_global_type(self, name: str) -> None:
        self.type_scopes[0].add(name)

    def push_types(self, names=()) -> None:
        self.type_scopes.append(set(names))

    def pop_types(self) -> None:
        self.type_scopes.pop()

    def speculate(self, fn):
        """Run `fn` speculatively: its result, or None (and the position restored) if it does not parse."""
        start = self.pos
        self.speculating += 1
        try:
            return fn()
        except (_Backtrack, P4Error):
            self.reset(start)
            return None
        finally:
            self.speculating -= 1

    def lookahead(self, fn) -> bool:
        """Whether `fn` parses here; the position is restored either way."""
        start = self.pos
        ok = self.speculate(fn) is not None
        self.reset(start)
        return ok

    # ------------------------------------------------------------------------------------------ program

    def parse_program(self) -> ast.Program:
        decls: list[ast.Declaration] = []
        loc = self.tok.loc
        while not self.at("EOF"):
            if self.accept(";"):
                continue
            d = self.declaration()
            if d is not None:
                decls.append(d)
        return ast.Program(decls, list(self.src.pre.files), source=self.src.pre, loc=loc)

    def annotations(self) -> list[ast.Annotation]:
        out = []
        while self.at("@"):
            out.append(self.annotation())
        return out

    def annotation(self) -> ast.Annotation:
        at = self.expect("@")
        tok = self.tok
        if not (tok.kind == "ID" or tok.kind in KEYWORDS):
            raise self.error(f"expected an annotation name but found {self._describe(tok)}")
        self.advance()
        name = tok.text
        if name == "pragma":
            # `@pragma name body...` runs to the end of the line
            start = self.tok
            body_toks = []
            while self.tok.kind != "EOF" and self.tok.line == at.line:
                body_toks.append(self.advance())
            body = self._raw(start, body_toks[-1]) if body_toks else ""
            return ast.Annotation("pragma", body, None, loc=at.loc)
        if self.tok.kind in ("(", "["):
            open_tok = self.advance()
            close = ")" if open_tok.kind == "(" else "]"
            body_toks = self._balanced(open_tok, close)
            self.advance()  # the closing bracket
            body = self._raw(body_toks[0], body_toks[-1]) if body_toks else ""
            args, kv = self._annotation_args(body_toks, structured=close == "]")
            return ast.Annotation(name, body, args, kv, close == "]", loc=at.loc)
        return ast.Annotation(name, "", [], loc=at.loc)

    def _balanced(self, open_tok: Token, close: str) -> list[Token]:
        depth = 0
        out = []
        pairs = {"(": ")", "[": "]", "{": "}"}
        stack = []
        while True:
            t = self.tok
            if t.kind == "EOF":
                raise self.src.error(f"unbalanced '{open_tok.text}' in annotation", open_tok.loc)
            if depth == 0 and t.kind == close:
                return out
            if t.kind in pairs:
                stack.append(pairs[t.kind])
                depth += 1
            elif stack and t.kind == stack[-1]:
                stack.pop()
                depth -= 1
            out.append(self.advance())

    def _raw(self, first: Token, last: Token) -> str:
        return self.src.text[first.pos:last.pos + len(last.text)]

    def _annotation_args(self, body: list[Token], structured: bool):
        """Parse an annotation body as expressions (or k=v pairs); (None, None) when it does not parse."""
        if not body:
            return [], ([] if structured else None)
        eof = self.toks[-1]
        sub = Parser.__new__(Parser)
        sub.src = self.src
        sub.toks = body + [eof]
        sub.pos = 0
        sub.tok = sub.toks[0]
        sub.type_scopes = self.type_scopes
        sub.speculating = 1
        try:
            if structured and sub.tok.kind == "ID" and sub.peek().kind == "=":
                kv = []
                while True:
                    t = sub.tok
                    n = sub.name()
                    sub.expect("=")
                    kv.append(ast.NamedExpression(n, sub.expression(), loc=t.loc))
                    if not sub.accept(","):
                        break
                    if sub.at("EOF"):
                        break
                sub.expect("EOF")
                return None, kv
            args = []
            while True:
                args.append(sub.expression())
                if not sub.accept(","):
                    break
                if sub.at("EOF"):
                    break
            sub.expect("EOF")
            return args, None
        except (_Backtrack, P4Error):
            return None, None

    # ------------------------------------------------------------------------------------------ declarations

    def declaration(self) -> ast.Declaration | None:
        annos = self.annotations()
        t = self.tok
        k = t.kind
        if k == "const":
            return self.const_decl(annos)
        if k == "extern":
            return self.extern_decl(annos)
        if k == "action":
            return self.action_decl(annos)
        if k == "parser":
            return self.parser_decl(annos)
        if k == "control":
            return self.control_decl(annos)
        if k == "package":
            return self.package_decl(annos)
        if k in ("header", "header_union", "struct"):
            return self.struct_like(annos)
        if k == "enum":
            return self.enum_decl(annos)
        if k == "typedef":
            return self.typedef_decl(annos)
        if k == "ID" and t.text == "type" and self.peek().kind != "=" and self.peek().kind != "(":
            return self.typedef_decl(annos)
        if k == "error" and self.peek().kind == "{":
            self.advance()
            return ast.ErrorDecl(self.id_list(), loc=t.loc)
        if k == "match_kind" and self.peek().kind == "{":
            self.advance()
            return ast.MatchKindDecl(self.id_list(), loc=t.loc)
        if k == "value_set":
            return self.value_set_decl(annos)
        if k == "EOF":
            raise self.error("unexpected end of file: expected a declaration")
        if k in _BASE_TYPE_KW or k == "ID" or k == ".":
            return self.typed_declaration(annos, top=True)
        raise self.error(f"expected a declaration but found {self._describe(t)}")

    def id_list(self) -> list[ast.IdDecl]:
        self.expect("{")
        out = []
        while not self.at("}"):
            annos = self.annotations()
            t = self.tok
            out.append(ast.IdDecl(self.name(), annotations=annos, loc=t.loc))
            if not self.accept(","):
                break
        self.expect("}", "',' or '}'")
        return out

    def const_decl(self, annos) -> ast.ConstDecl:
        t = self.expect("const")
        ty = self.type_ref()
        name = self.name()
        self.expect("=")
        value = self.initializer()
        self.expect(";")
        return ast.ConstDecl(ty, name, value, annotations=annos, loc=t.loc)

    def initializer(self) -> ast.Expression:
        return self.expression()

    def typed_declaration(self, annos, top: bool = False) -> ast.Declaration:
        """`T(args) name [= {...}];` (instantiation), `R f<T>(params) {...}` (function), `T x [= e];`."""
        start = self.tok
        ty = self.type_ref()
        if self.at("("):
            args = self.arguments()
            name = self.name("an instance name")
            init = None
            if self.accept("="):
                init = self.object_initializer()
            self.expect(";")
            return ast.Instantiation(ty, args, name, init, annotations=annos, loc=start.loc)
        name = self.name()
        if top and (self.at("(") or self.at("<")):
            return self.function_rest(annos, ty, name, start)
        init = None
        if self.accept("="):
            init = self.initializer()
        self.expect(";", "';'" if init is not None else "'=' or ';'")
        return ast.VarDecl(ty, name, init, annotations=annos, loc=start.loc)

    def object_initializer(self) -> list[ast.Declaration]:
        """`{ function and instance declarations }` implementing abstract methods."""
        self.expect("{")
        decls = []
        while not self.at("}"):
            if self.accept(";"):
                continue
            annos = self.annotations()
            if self.at("EOF"):
                self.expect("}")
            decls.append(self.typed_declaration(annos, top=True))
        self.expect("}")
        return decls

    def function_rest(self, annos, ret, name, start) -> ast.FunctionDecl:
        tparams = self.type_params()
        self.push_types(p.name for p in tparams)
        try:
            params = self.parameters()
            body = self.block()
        finally:
            self.pop_types()
        return ast.FunctionDecl(name, ret, tparams, params, body, annotations=annos, loc=start.loc)

    def type_params(self) -> list[ast.TypeParameter]:
        out = []
        if self.accept("<"):
            while True:
                t = self.tok
                out.append(ast.TypeParameter(self.name("a type parameter"), loc=t.loc))
                if not self.accept(","):
                    break
            self.expect(">", "',' or '>'")
        return out

    def parameters(self) -> list[ast.Parameter]:
        self.expect("(")
        out = []
        if not self.at(")"):
            while True:
                out.append(self.parameter())
                if not self.accept(","):
                    break
        self.expect(")", "',' or ')'")
        return out

    def parameter(self) -> ast.Parameter:
        annos = self.annotations()
        start = self.tok
        direction = None
        if self.tok.kind in _DIRECTIONS:
            direction = self.advance().kind
        ty = self.type_ref()
        name = self.name("a parameter name")
        default = None
        if self.accept("="):
            default = self.expression()
        return ast.Parameter(direction, ty, name, default, annotations=annos, loc=start.loc)

    def extern_decl(self, annos) -> ast.Declaration:
        start = self.expect("extern")
        annos = annos + self.annotations()
        if self.at("ID") and self._extern_object_follows():
            name = self.advance().text
            self.declare_global_type(name)
            tparams = self.type_params()
            decl = ast.ExternDecl(name, tparams, annotations=annos, loc=start.loc)
            if self.accept(";"):
                return decl
            self.push_types(p.name for p in tparams)
            try:
                self.expect("{")
                while not self.at("}"):
                    m = self.method_prototype(name)
                    if m.return_type is None:
                        decl.constructors.append(m)
                    else:
                        decl.methods.append(m)
                self.expect("}")
            finally:
                self.pop_types()
            return decl
        # extern function prototype
        ret = self.type_ref()
        name = self.name("a function name")
        tparams = self.type_params()
        self.push_types(p.name for p in tparams)
        try:
            params = self.parameters()
        finally:
            self.pop_types()
        self.expect(";")
        return ast.ExternFunctionDecl(name, ret, tparams, params, annotations=annos, loc=start.loc)

    def _extern_object_follows(self) -> bool:
        nxt = self.peek()
        if nxt.kind in ("{", ";"):
            return True
        if nxt.kind != "<":
            return False
        depth = 0
        i = self.pos + 1
        while i < len(self.toks):
            k = self.toks[i].kind
            if k == "<":
                depth += 1
            elif k == ">":
                depth -= 1
                if depth == 0:
                    return self.toks[i + 1].kind == "{" if i + 1 < len(self.toks) else False
            elif k in ("EOF", ";", "{", "("):
                return False
            i += 1
        return False

    def method_prototype(self, extern_name: str) -> ast.MethodDecl:
        annos = self.annotations()
        start = self.tok
        abstract = bool(self.accept("abstract"))
        if not abstract and self.at("ID") and self.tok.text == extern_name and self.peek().kind == "(":
            self.advance()
            params = self.parameters()
            self.expect(";")
            return ast.MethodDecl(extern_name, None, [], params, annotations=annos, loc=start.loc)
        if self.at("EOF"):
            self.expect("}")
        ret = self.type_ref()
        name = self.name("a method name")
        tparams = self.type_params()
        self.push_types(p.name for p in tparams)
        try:
            params = self.parameters()
        finally:
            self.pop_types()
        self.expect(";")
        return ast.MethodDecl(name, ret, tparams, params, abstract, annotations=annos, loc=start.loc)

    def action_decl(self, annos) -> ast.ActionDecl:
        start = self.expect("action")
        name = self.name("an action name")
        params = self.parameters()
        body = self.block()
        return ast.ActionDecl(name, params, body, annotations=annos, loc=start.loc)

    def package_decl(self, annos) -> ast.PackageTypeDecl:
        start = self.expect("package")
        name = self.name("a package name")
        self.declare_global_type(name)
        tparams = self.type_params()
        self.push_types(p.name for p in tparams)
        try:
            params = self.parameters()
        finally:
            self.pop_types()
        self.expect(";")
        return ast.PackageTypeDecl(name, tparams, params, annotations=annos, loc=start.loc)

    def _block_header(self, kw: str):
        start = self.expect(kw)
        annos = self.annotations()
        name = self.name(f"a {kw} name")
        self.declare_global_type(name)
        tparams = self.type_params()
        self.push_types(p.name for p in tparams)
        params = self.parameters()
        return start, annos, name, tparams, params

    def parser_decl(self, annos) -> ast.Declaration:
        start, more, name, tparams, params = self._block_header("parser")
        annos = annos + more
        try:
            if self.accept(";"):
                return ast.ParserTypeDecl(name, tparams, params, annotations=annos, loc=start.loc)
            ctor = self.parameters() if self.at("(") else []
            decl = ast.ParserDecl(name, tparams, params, ctor, annotations=annos, loc=start.loc)
            self.expect("{", "'{' or ';'")
            while not self.at("}"):
                if self.accept(";"):
                    continue
                a = self.annotations()
                if self.at_soft("state") and self.peek().kind == "ID":
                    decl.states.append(self.parser_state(a))
                elif self.at("EOF"):
                    self.expect("}")
                else:
                    decl.locals.append(self.local_element(a))
            self.expect("}")
            return decl
        finally:
            self.pop_types()

    def local_element(self, annos) -> ast.Declaration:
        """A parser/control local: constant, variable, instantiation, value_set."""
        if self.at("const"):
            return self.const_decl(annos)
        if self.at("value_set"):
            return self.value_set_decl(annos)
        t = self.tok
        if t.kind in _BASE_TYPE_KW or t.kind in ("ID", "."):
            return self.typed_declaration(annos)
        raise self.error(f"expected a declaration but found {self._describe(t)}")

    def value_set_decl(self, annos) -> ast.ValueSetDecl:
        start = self.expect("value_set")
        self.expect("<")
        ty = self.type_arg()
        self.expect(">")
        self.expect("(")
        size = self.expression()
        self.expect(")")
        name = self.name()
        self.expect(";")
        return ast.ValueSetDecl(ty, size, name, annotations=annos, loc=start.loc)

    def parser_state(self, annos) -> ast.ParserState:
        start = self.expect_soft("state")
        name = self.name("a state name")
        self.expect("{")
        state = ast.ParserState(name, annotations=annos, loc=start.loc)
        while not self.at("}"):
            if self.at("transition"):
                state.transition = self.transition()
                if not self.at("}"):
                    raise self.error(f"expected '}}' after the transition but found {self._describe(self.tok)}")
                break
            if self.at("EOF"):
                self.expect("}")
            state.statements.append(self.statement())
        self.expect("}")
        return state

    def transition(self) -> ast.TransitionStatement:
        start = self.expect("transition")
        if self.at("select"):
            target = self.select_expression()
            self.accept(";")
        else:
            target = self.path_expression()
            self.expect(";")
        return ast.TransitionStatement(target, loc=start.loc)

    def path_expression(self) -> ast.PathExpression:
        t = self.tok
        absolute = bool(self.accept("."))
        return ast.PathExpression(self.name(), absolute, loc=t.loc)

    def select_expression(self) -> ast.SelectExpression:
        start = self.expect("select")
        self.expect("(")
        exprs = []
        if not self.at(")"):
            while True:
                exprs.append(self.expression())
                if not self.accept(","):
                    break
        self.expect(")", "',' or ')'")
        self.expect("{")
        cases = []
        while not self.at("}"):
            annos = self.annotations()
            t = self.tok
            if t.kind == "EOF":
                self.expect("}")
            keyset = self.keyset_expression()
            self.expect(":")
            state = self.path_expression()
            self.expect(";")
            cases.append(ast.SelectCase(keyset, state, annotations=annos, loc=t.loc))
        self.expect("}")
        return ast.SelectExpression(exprs, cases, loc=start.loc)

    def keyset_expression(self) -> ast.Expression:
        """A simple keyset, or a tuple `(k1, k2, ...)` of simple keysets."""
        if self.at("("):
            t = self.tok

            def tuple_keyset():
                self.advance()
                items = [self.simple_keyset()]
                while self.accept(","):
                    items.append(self.simple_keyset())
                self.expect(")")
                if not self.at(":"):
                    raise self.error(f"expected ':' after a keyset but found {self._describe(self.tok)}")
                return items

            items = self.speculate(tuple_keyset)
            if items is None and not self.speculating:
                simple = self.speculate(self.simple_keyset)
                if simple is not None:
                    return simple
                items = tuple_keyset()  # neither reading parses: report the tuple reading's error
            if items is not None:
                if len(items) == 1:
                    return items[0]
                return ast.ListExpression(items, loc=t.loc)
        return self.simple_keyset()

    def simple_keyset(self) -> ast.Expression:
        t = self.tok
        if t.kind == "default":
            self.advance()
            return ast.Default(loc=t.loc)
        if t.kind == "ID" and t.text == "_" and self.peek().kind in (",", ")", ":", ";"):
            self.advance()
            return ast.DontCare(loc=t.loc)
        e = self.expression()
        if self.at("&&&"):
            op = self.advance()
            return ast.Mask(e, self.expression(), loc=op.loc)
        if self.at(".."):
            op = self.advance()
            return ast.Range(e, self.expression(), loc=op.loc)
        return e

    def control_decl(self, annos) -> ast.Declaration:
        start, more, name, tparams, params = self._block_header("control")
        annos = annos + more
        try:
            if self.accept(";"):
                return ast.ControlTypeDecl(name, tparams, params, annotations=annos, loc=start.loc)
            ctor = self.parameters() if self.at("(") else []
            decl = ast.ControlDecl(name, tparams, params, ctor, annotations=annos, loc=start.loc)
            self.expect("{", "'{' or ';'")
            while True:
                if self.accept(";"):
                    continue
                a = self.annotations()
                t = self.tok
                if t.kind == "ID" and t.text == "apply" and self.peek().kind == "{":
                    self.advance()
                    decl.body = self.block(a, t)
                    break
                if t.kind == "action":
                    decl.locals.append(self.action_decl(a))
                elif t.kind == "table":
                    decl.locals.append(self.table_decl(a))
                elif t.kind in ("}", "EOF"):
                    raise self.error(f"expected 'apply' block in control '{name}' but found {self._describe(t)}")
                else:
                    decl.locals.append(self.local_element(a))
            self.expect("}")
            return decl
        finally:
            self.pop_types()

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

    def typedef_decl(self, annos) -> ast.Declaration:
        start = self.advance()
        ty = self.type_ref()
        name = self.name("a type name")
        self.declare_global_type(name)
        self.expect(";")
        cls = ast.TypedefDecl if start.kind == "typedef" else ast.NewTypeDecl
        return cls(ty, name, annotations=annos, loc=start.loc)

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
            ty = ast.TupleType(self.type_args(), loc=t.loc)
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
        if self.at("["):
            # header stack T[n]
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

    # ------------------------------------------------------------------------------------------ statements

    def block(self, annos=None, start: Token | None = None) -> ast.BlockStatement:
        t = start or self.tok
        self.expect("{")
        stmts: list[ast.Node] = []
        while not self.at("}"):
            if self.at("EOF"):
                self.expect("}")
            stmts.append(self.statement())
        self.expect("}")
        return ast.BlockStatement(stmts, annotations=annos or [], loc=t.loc)

    def statement(self) -> ast.Node:
        annos = self.annotations() if self.at("@") else []
        t = self.tok
        k = t.kind
        if k == "{":
            return self.block(annos)
        if k == ";":
            self.advance()
            return ast.EmptyStatement(loc=t.loc)
        if k == "if":
            self.advance()
            self.expect("(")
            cond = self.expression()
            self.expect(")")
            then = self.statement()
            else_ = None
            if self.accept("else"):
                else_ = self.statement()
            return ast.IfStatement(cond, then, else_, loc=t.loc)
        if k == "switch":
            return self.switch_statement()
        if k == "exit":
            self.advance()
            self.expect(";")
            return ast.ExitStatement(loc=t.loc)
        if k == "return":
            self.advance()
            value = None if self.at(";") else self.expression()
            self.expect(";")
            return ast.ReturnStatement(value, loc=t.loc)
        if k == "const":
            return self.const_decl(annos)
        if k == "transition":
            raise self.error("'transition' is only allowed at the end of a parser state")
        if k == "ID" and t.text == "for" and self.peek().kind == "(":
            return self.for_statement()
        if k == "ID" and t.text in ("break", "continue") and self.peek().kind == ";":
            self.advance()
            self.advance()
            return (ast.BreakStatement if t.text == "break" else ast.ContinueStatement)(loc=t.loc)
        if k == "ID" and t.text in _UNSUPPORTED_STMT and self.peek().kind in ("(", ";"):
            raise self.error(f"unsupported construct: {_UNSUPPORTED_STMT[t.text]}")
        if self._declaration_follows():
            return self.typed_declaration(annos)
        return self.expression_statement()

    def for_statement(self) -> ast.Statement:
        """`for (init; cond; updates) body` or `for (T x in collection) body` (P4-16 1.2.5)."""
        start = self.advance()
        self.expect("(")
        if self._declaration_follows() and self.lookahead(lambda: (self.type_ref(), self.name(), self.expect("in"))):
            vt = self.tok
            ty = self.type_ref()
            name = self.name()
            self.expect("in")
            coll = self.expression()
            if self.accept(".."):
                coll = ast.Range(coll, self.expression(), loc=coll.loc)
            self.expect(")")
            var = ast.VarDecl(ty, name, None, loc=vt.loc)
            return ast.ForInStatement(var, coll, self.statement(), loc=start.loc)
        init = self._for_clauses(";", declarations=True)
        self.expect(";")
        cond = None if self.at(";") else self.expression()
        self.expect(";")
        updates = self._for_clauses(")", declarations=False)
        self.expect(")")
        return ast.ForStatement(init, cond, updates, self.statement(), loc=start.loc)

    def _for_clauses(self, end: str, declarations: bool) -> list[ast.Node]:
        """Comma-separated declarations / assignments / calls of a for header (without their ';')."""
        out: list[ast.Node] = []
        while not self.at(end):
            t = self.tok
            if declarations and self._declaration_follows():
                ty = self.type_ref()
                name = self.name()
                init = self.initializer() if self.accept("=") else None
                out.append(ast.VarDecl(ty, name, init, loc=t.loc))
            else:
                e = self.expression()
                if self.accept("="):
                    out.append(ast.AssignmentStatement(e, self.expression(), loc=t.loc))
                elif isinstance(e, ast.MethodCall):
                    out.append(ast.MethodCallStatement(e, loc=t.loc))
                else:
                    raise self.error(f"expected '=' or a method call but found {self._describe(self.tok)}")
            if not self.accept(","):
                break
        return out

    def _declaration_follows(self) -> bool:
        t = self.tok
        k = t.kind
        if k in ("bit", "int", "varbit", "bool", "string", "tuple"):
            return True
        if k in ("error", "match_kind"):
            return self.peek().kind == "ID"
        if k == "ID":
            nxt = self.peek()
            if nxt.kind == "ID":
                return True  # `T x` even when T is not known to be a type
            if self.is_type_name(t.text) and nxt.kind in ("<", "["):
                # `T<...> x` / `T[2] x` vs `a[0] = ...`: settle by trying the declaration reading
                return self.lookahead(lambda: (self.type_ref(), self.name()))
            if t.text == "list" and nxt.kind == "<":
                return True
        if k == "." and self.peek().kind == "ID" and self.peek(2).kind == "ID":
            return True
        return False

    def expression_statement(self) -> ast.Statement:
        t = self.tok
        e = self.expression()
        if self.at("="):
            self.advance()
            right = self.expression()
            self.expect(";")
            return ast.AssignmentStatement(e, right, loc=t.loc)
        if isinstance(e, ast.MethodCall):
            self.expect(";")
            return ast.MethodCallStatement(e, loc=t.loc)
        nxt = self.tok
        if nxt.kind in ("+", "-", "*", "/", "%", "&", "|", "^", "<<") and self.peek().kind == "=":
            raise self.error(f"unsupported construct: compound assignment '{nxt.text}='")
        if nxt.kind == "++":
            raise self.error("unsupported construct: '++' as increment (P4 has no increment operator)")
        raise self.error(f"expected '=' or a method call but found {self._describe(nxt)}")

    def switch_statement(self) -> ast.SwitchStatement:
        start = self.expect("switch")
        self.expect("(")
        e = self.expression()
        self.expect(")")
        self.expect("{")
        cases = []
        while not self.at("}"):
            t = self.tok
            if t.kind == "EOF":
                self.expect("}")
            if t.kind == "default":
                self.advance()
                label: ast.Expression = ast.Default(loc=t.loc)
            else:
                label = self.expression()
            self.expect(":")
            body = self.block() if self.at("{") else None
            cases.append(ast.SwitchCase(label, body, loc=t.loc))
        self.expect("}")
        return ast.SwitchStatement(e, cases, loc=start.loc)

    # ------------------------------------------------------------------------------------------ expressions

    def arguments(self) -> list[ast.Argument]:
        self.expect("(")
        out = []
        if not self.at(")"):
            while True:
                t = self.tok
                if t.kind == "ID" and self.peek().kind == "=":
                    self.advance()
                    self.advance()
                    out.append(ast.Argument(t.text, self.argument_value(), loc=t.loc))
                else:
                    out.append(ast.Argument(None, self.argument_value(), loc=t.loc))
                if not self.accept(","):
                    break
        self.expect(")", "',' or ')'")
        return out

    def argument_value(self) -> ast.Expression:
        t = self.tok
        if t.kind == "ID" and t.text == "_" and self.peek().kind in (",", ")"):
            self.advance()
            return ast.DontCare(loc=t.loc)
        return self.expression()

    def expression(self, min_bp: int = 0) -> ast.Expression:
        left = self.prefix()
        while True:
            t = self.tok
            k = t.kind
            if k == ">":
                nxt = self.peek()
                if nxt.kind == ">" and nxt.line == t.line and nxt.col == t.col + 1:
                    if _SHIFT_BP <= min_bp:
                        break
                    self.advance()
                    self.advance()
                    right = self.expression(_SHIFT_BP)
                    left = ast.Binary(">>", left, right, loc=t.loc)
                    continue
            bp = _BINARY_BP.get(k)
            if bp is not None:
                nxt = self.peek()
                if nxt.kind == "=" and nxt.line == t.line and nxt.col == t.col + len(t.text) and not self.speculating:
                    raise self.error(f"unsupported construct: compound assignment '{k}='")
                if bp <= min_bp:
                    break
                self.advance()
                right = self.expression(bp)
                left = ast.Binary(k, left, right, loc=t.loc)
                continue
            if k == "?":
                if _MUX_BP <= min_bp:
                    break
                self.advance()
                a = self.expression()
                self.expect(":")
                b = self.expression(_MUX_BP - 1)
                left = ast.Mux(left, a, b, loc=t.loc)
                continue
            break
        return left

    def prefix(self) -> ast.Expression:
        t = self.tok
        k = t.kind
        if k == "INT":
            self.advance()
            v, w, s, base = t.value
            e: ast.Expression = ast.IntLiteral(v, w, s, base, loc=t.loc)
        elif k == "ID":
            self.advance()
            if t.text == "_":
                e = ast.DontCare(loc=t.loc)
            else:
                e = ast.PathExpression(t.text, loc=t.loc)
        elif k == ".":
            self.advance()
            e = ast.PathExpression(self.name(), True, loc=t.loc)
        elif k == "true" or k == "false":
            self.advance()
            e = ast.BoolLiteral(k == "true", loc=t.loc)
        elif k == "STRING":
            self.advance()
            e = ast.StringLiteral(t.value, loc=t.loc)
        elif k == "(":
            cast = self._try_cast()
            if cast is not None:
                return cast
            self.advance()
            e = self.expression()
            self.expect(")")
        elif k in ("!", "~", "-", "+"):
            self.advance()
            operand = self.expression(_PREFIX_BP)
            return ast.Unary(k, operand, loc=t.loc)
        elif k == "{":
            e = self.brace_expression()
        elif k == "this":
            self.advance()
            e = ast.This(loc=t.loc)
        elif k == "default":
            self.advance()
            e = ast.Default(loc=t.loc)
        elif k in _BASE_TYPE_KW:
            e = ast.TypeExpression(self.type_ref(), loc=t.loc)
        elif k == "EOF":
            raise self.error("unexpected end of file: expected an expression")
        else:
            raise self.error(f"expected an expression but found {self._describe(t)}")
        return self.postfix(e)

    def _try_cast(self) -> ast.Expression | None:
        nxt = self.peek()
        k = nxt.kind
        if k in ("bit", "int", "varbit", "bool", "string", "tuple"):
            pass
        elif k in ("error", "match_kind"):
            if self.peek(2).kind != ")":
                return None
        elif k == "ID" and self.is_type_name(nxt.text):
            pass
        elif k == "." and self.peek(2).kind == "ID" and self.is_type_name(self.peek(2).text):
            pass
        else:
            return None
        t = self.tok

        def cast_type():
            self.advance()
            ty = self.type_ref()
            self.expect(")")
            return ty

        ty = self.speculate(cast_type)
        if ty is None:
            return None
        operand = self.expression(_PREFIX_BP)
        return ast.Cast(ty, operand, loc=t.loc)

    def brace_expression(self) -> ast.Expression:
        t = self.expect("{")
        if self.at("#"):
            self.advance()
            self.expect("}")
            return ast.InvalidHeaderExpression(loc=t.loc)
        if self.accept("}"):
            return ast.ListExpression([], loc=t.loc)
        if self.at("ID") and self.peek().kind == "=":
            comps = []
            dots = False
            while True:
                if self.at("..."):
                    self.advance()
                    dots = True
                    break
                ct = self.tok
                n = self.name("a field name")
                self.expect("=")
                comps.append(ast.NamedExpression(n, self.expression(), loc=ct.loc))
                if not self.accept(",") or self.at("}"):
                    break
            self.expect("}", "',' or '}'")
            return ast.StructExpression(comps, dots, loc=t.loc)
        items = []
        dots = False
        while True:
            if self.at("..."):
                self.advance()
                dots = True
                break
            items.append(self.expression())
            if not self.accept(",") or self.at("}"):
                break
        self.expect("}", "',' or '}'")
        return ast.ListExpression(items, dots, loc=t.loc)

    def postfix(self, e: ast.Expression) -> ast.Expression:
        while True:
            t = self.tok
            k = t.kind
            if k == ".":
                self.advance()
                nt = self.tok
                if nt.kind == "ID" or nt.kind in KEYWORDS:
                    self.advance()
                    e = ast.Member(e, nt.text, loc=nt.loc)
                else:
                    raise self.error(f"expected a member name but found {self._describe(nt)}")
            elif k == "[":
                self.advance()
                idx = self.expression()
                if self.accept(":"):
                    lo = self.expression()
                    self.expect("]")
                    e = ast.Slice(e, idx, lo, loc=t.loc)
                else:
                    self.expect("]", "']' or ':'")
                    e = ast.ArrayIndex(e, idx, loc=t.loc)
            elif k == "(":
                args = self.arguments()
                e = self._call(e, [], args, t)
            elif k == "<" and self._generic_call_follows():
                targs = self.speculate(self._type_args_then_paren)
                if targs is None:
                    break
                args = self.arguments()
                e = self._call(e, targs, args, t)
            else:
                return e
        return e

    def _call(self, target: ast.Expression, targs, args, t: Token) -> ast.Expression:
        if isinstance(target, ast.PathExpression) and self.is_type_name(target.name):
            ty = ast.TypeName(target.name, targs, target.absolute, loc=target.loc)
            return ast.ConstructorCall(ty, args, loc=target.loc)
        if isinstance(target, ast.TypeExpression):
            return ast.ConstructorCall(target.type_ref, args, loc=target.loc)
        return ast.MethodCall(target, targs, args, loc=target.loc)

    def _generic_call_follows(self) -> bool:
        nxt = self.peek()
        k = nxt.kind
        if k in ("bit", "int", "varbit", "bool", "string", "void", "tuple", "error", "match_kind"):
            return True
        if k == "ID":
            return nxt.text == "_" or self.is_type_name(nxt.text)
        if k == ".":
            return True
        return False

    def _type_args_then_paren(self):
        targs = self.type_args()
        if not self.at("("):
            raise _Backtrack()
        return targs


_DIRECTIVE_RE = re.compile(r"^[ \t]*#[ \t]*(include|define|undef|if|ifdef|ifndef|elif|else|endif|error)\b", re.M)


def parse_program(src: PreprocessedSource | str, filename: str = "<string>") -> ast.Program:
    """Parse a preprocessed program into an `ast.Program`. Raw text is preprocessed first when it holds
    preprocessor directives (`#include <v1model.p4>`...); line markers (`# 12 "file"`) are honored."""
    if isinstance(src, str) and _DIRECTIVE_RE.search(src):
        from emulator.p4.preprocess import preprocess_text

        src = preprocess_text(src, filename)
    parser = Parser(SourceText(src, filename))
    # long `else if` chains and deep expressions recurse; give them room, and never leak a RecursionError
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 20000))
    try:
        return parser.parse_program()
    except RecursionError:
        raise parser.src.error("program nests too deeply to parse", parser.tok.loc) from None
    finally:
        sys.setrecursionlimit(old)


def parse_expression(text: str, filename: str = "<string>", type_names=()) -> ast.Expression:
    """Parse a single expression (handy for annotations, STF tools and tests)."""
    p = Parser(SourceText(text, filename))
    p.type_scopes[0].update(type_names)
    e = p.expression()
    p.expect("EOF", "end of expression")
    return e


__all__ = ["Parser", "parse_program", "parse_expression", "SrcLoc"]
