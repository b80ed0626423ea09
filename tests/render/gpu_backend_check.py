#!/usr/bin/env python3
# gpu_backend_check.py ROOT: fails unless every function gpu.h declares (the renderer's GPU
# interface) has its line in gpu_backend_names.h, its field in gpu_backend.h, its forwarder in
# gpu_dispatch.c and its entry in each backend's table (vk/backend.c, null/backend.c), and none of
# those lists names a function gpu.h does not declare. A function missing from a table would be a
# NULL call on that backend; one missing from the names would bypass the dispatcher.
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "."
render = root + "/src/render/"
# Plain format tables, the same for every backend, and the dispatcher's own creation timing: not
# dispatched.
NOT_DISPATCHED = {"fmt_is_block", "fmt_unit_bytes", "fmt_level_bytes", "gpu_create_time"}


def text(path):
    src = open(render + path).read()
    return re.sub(r"/\*.*?\*/", " ", src, flags=re.S)


def declared():
    src = re.sub(r"^\s*#[^\n]*", " ", text("gpu.h"), flags=re.M)
    names = set()
    for m in re.finditer(r"\b(rill__\w+)\s*\(([^;{}]*?)\)\s*;", src):
        before = src[: m.start()].rsplit(";", 1)[-1].rsplit("}", 1)[-1]
        if "typedef" not in before and "(*" not in before:
            names.add(m.group(1)[len("rill__"):])
    return names - NOT_DISPATCHED


def fields():
    body = text("gpu_backend.h").split("typedef struct rill__gpu_backend {", 1)[1].split("}", 1)[0]
    # one field a statement; a field's name is its first (*name) (later ones are its parameters')
    return {m.group(1) for s in body.split(";") for m in [re.search(r"\(\*(\w+)\)", s)] if m}


lists = {
    "gpu_backend_names.h": set(re.findall(r"#define rill__(\w+) RILL__GPU_FN\((\w+)\)", text("gpu_backend_names.h"))),
    "gpu_backend.h": fields(),
    "gpu_dispatch.c": set(re.findall(r"^[\w ]+\**\s*rill__(\w+)\(", text("gpu_dispatch.c"), flags=re.M)),
    "vk/backend.c": set(re.findall(r"\.(\w+) = rill__\1,", text("vk/backend.c"))),
    "null/backend.c": set(re.findall(r"\.(\w+) = rill__\1,", text("null/backend.c"))),
}
bad = [(a, b) for a, b in lists["gpu_backend_names.h"] if a != b]
lists["gpu_backend_names.h"] = {a for a, _ in lists["gpu_backend_names.h"]}
want = declared()
failed = False
for a, b in bad:
    print("gpu_backend_names.h: rill__%s renamed to %s" % (a, b))
    failed = True
for name, have in lists.items():
    for f in sorted(want - have):
        print("%s: rill__%s (declared in gpu.h) is missing" % (name, f))
        failed = True
    for f in sorted(have - want - NOT_DISPATCHED):
        print("%s: rill__%s is not declared in gpu.h" % (name, f))
        failed = True
print("gpu_backend_check: %d functions, %s" % (len(want), "FAILED" if failed else "all lists agree"))
sys.exit(1 if failed else 0)
