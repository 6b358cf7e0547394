"""When p4c writes `type_info` at all (docs/p4info.md, "What appears").

p4c's serializer creates the (possibly empty) `type_info` message when it adds a table or a controller header, meets
an extern instance, or meets an extern function call in a control: in the apply body or in one of the control's
actions, after its front end has removed unused actions and folded constant conditions away and localized the
global actions a control uses. A parser's calls (`verify`) are not looked at (p4c's verify-bmv2 golden has no
`type_info`; issue3329-bmv2's, a controller header alone, has an empty one). The programs are written for this test.
"""
import pytest

from emulator.p4.p4info import build_p4info
from emulator.p4.p4info_files import to_text

SKELETON = r"""
#include <core.p4>
#include <v1model.p4>
DECLS
header pkt_t { bit<8> kind; }
struct hdrs_t { pkt_t p; HEADERS }
struct user_t { bit<8> x; }
parser Prs(packet_in b, out hdrs_t h, inout user_t u, inout standard_metadata_t s) {
    state start { b.extract(h.p); PARSER transition accept; }
}
control Vck(inout hdrs_t h, inout user_t u) { apply { } }
control Ing(inout hdrs_t h, inout user_t u, inout standard_metadata_t s) {
INGRESS
}
control Egr(inout hdrs_t h, inout user_t u, inout standard_metadata_t s) { apply { } }
control Cck(inout hdrs_t h, inout user_t u) { apply { } }
control Dep(packet_out b, in hdrs_t h) { apply { b.emit(h); } }
V1Switch(Prs(), Vck(), Ing(), Egr(), Cck(), Dep()) main;
"""


def has_type_info(tmp_path, ingress: str, decls: str = "", parser: str = "", headers: str = "") -> bool:
    from emulator.p4 import frontend

    src = tmp_path / "prog.p4"
    src.write_text(SKELETON.replace("DECLS", decls).replace("HEADERS", headers).replace("PARSER", parser)
                   .replace("INGRESS", ingress))
    p = build_p4info(frontend.load_program(str(src)).info)
    assert p.HasField("type_info") == ("type_info {" in to_text(p))
    return p.HasField("type_info")


@pytest.mark.parametrize("ingress, decls, parser, written", [
    # a parser's extern function calls do not count, directly or through a function
    ("apply { }", "", "verify(h.p.kind != 0, error.PacketTooShort);", False),
    ("apply { }", "void trace(in bit<8> k) { log_msg(\"kind {}\", {k}); }", "trace(h.p.kind);", False),
    # a controller header alone is enough
    ("apply { }", '@controller_header("packet_in") header to_cpu_t { bit<16> port; }', "", True),
    # a global action calling an extern function, called from the apply body: p4c localizes it into the control
    ("apply { discard(s); }", "action discard(inout standard_metadata_t m) { mark_to_drop(m); }", "", True),
    # ... and a used action that calls such an action (p4c inlines it)
    ("action outer() { discard(s); } apply { outer(); }",
     "action discard(inout standard_metadata_t m) { mark_to_drop(m); }", "", True),
    # an unused action's call does not count: the front end removes the action
    ("action never() { mark_to_drop(s); } apply { }", "", "", False),
    # nor a call in a branch the front end folds away
    ("apply { if (false) { mark_to_drop(s); } }", "", "", False),
    ("apply { if (true) { mark_to_drop(s); } }", "", "", True),
    ("action fold() { if (false) { mark_to_drop(s); } } apply { fold(); }", "", "", False),
])
def test_type_info_follows_what_p4c_serializes(tmp_path, ingress, decls, parser, written):
    headers = "to_cpu_t c;" if "to_cpu_t" in decls else ""
    assert has_type_info(tmp_path, ingress, decls, parser, headers) is written
