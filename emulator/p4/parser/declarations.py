"""Parsing declarations: constants, variables, functions, externs, actions, packages, parsers and controls."""
from __future__ import annotations

from emulator.p4 import ast
from emulator.p4.parser.base import _BASE_TYPE_KW, _DIRECTIONS


class DeclarationParser:
    """Declarations (a mixin of Parser)."""


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
            size = None
            if self.accept("["):  # an array of instances (p4c's generic-extern-inference sample)
                size = self.expression()
                self.expect("]")
            init = None
            if self.accept("="):
                init = self.object_initializer()
            self.expect(";")
            return ast.Instantiation(ty, args, name, init, annotations=annos, loc=start.loc, array_size=size)
        name = self.name()
        if top and (self.at("(") or self.at("<")):
            return self.function_rest(annos, ty, name, start)
        if top:
            # P4-16's top level declares constants, types and instances but no variables (state lives in
            # parsers and controls); it was accepted and never used
            raise self.error(f"variable '{name}' cannot be declared at the top level (use 'const', or declare it "
                             "in a parser or control)", start)
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
        ret, name, tparams, params = self._prototype("a function name")
        return ast.ExternFunctionDecl(name, ret, tparams, params, annotations=annos, loc=start.loc)

    def _prototype(self, what: str) -> tuple:
        """`TYPE NAME<T...>(PARAMS);` of an extern function or method: its type parameters are in scope for the
        parameters."""
        ret = self.type_ref()
        name = self.name(what)
        tparams = self.type_params()
        self.push_types(p.name for p in tparams)
        try:
            params = self.parameters()
        finally:
            self.pop_types()
        self.expect(";")
        return ret, name, tparams, params

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
        ret, name, tparams, params = self._prototype("a method name")
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
                # the apply body is a blockStatement, which may carry annotations: `apply @noWarn("x") { ... }`
                if t.kind == "ID" and t.text == "apply" and self.peek().kind in ("{", "@"):
                    self.advance()
                    decl.body = self.block(a + self.annotations(), t)
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
