#!/usr/bin/env bash
# api-check.sh [ROOT] [--write]: checks the shape of the public API (every function declared in
# include/rill/) and the generated API list in docs/architecture.md. `make test` and the ctest
# test `api_check` run it; `--write` regenerates the list after an API change.
#
# Rules (docs/architecture.md "Conventions"):
#   prefix      every public function is rill_<prefix>_...; one prefix belongs to one module
#               (the header's folder: include/rill/<module>.h or include/rill/<module>/<part>.h);
#               a shared one is reported as "prefix rill_<prefix>_ MODULE,MODULE"
#   create      a *_create function takes (const <type>_desc *, rill_error *), after the object
#               it is created in when there is one (rill_render_mesh_create(renderer, desc, err))
#   defaults    a defaults function is *_query_defaults(void)
#   canary      every public *_desc struct has start_canary and end_canary (RILL_DESC_CHECK)
# scripts/api-exceptions.txt lists what is off today ("RULE NAME", one a line). A violation not
# listed fails, and so does a listed one that is gone (the list only shrinks).
set -euo pipefail
root="${1:-$(dirname "$0")/..}"
[ "${1:-}" = "--write" ] && root="$(dirname "$0")/.."
write=0
for a in "$@"; do [ "$a" = "--write" ] && write=1; done
cd "$root"
exec python3 - "$write" <<'PY'
import glob, os, re, sys

write = sys.argv[1] == "1"
BEGIN, END = "<!-- api-list begin (scripts/api-check.sh --write) -->", "<!-- api-list end -->"

def module_of(path):
    rel = os.path.relpath(path, "include/rill")
    head = rel.split(os.sep)[0]
    return head[:-2] if head.endswith(".h") else head

def strip(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r"^\s*#(?:[^\n]*\\\n)*[^\n]*", " ", text, flags=re.M)
    return text

DECL = re.compile(r"^\s*(?:extern\s+)?([\w\s\*]+?)\b(rill_[a-z0-9]\w*)\s*\((?!\s*\*)(.*)\)\s*(?:RILL_\w+\s*\([^)]*\)\s*)*;$", re.S)
funcs = []  # (module, header, name, params)
descs = []  # (module, header, name, body)
for h in sorted(glob.glob("include/rill/**/*.h", recursive=True)):
    if os.path.basename(h) == "rill.h":
        continue
    text = strip(open(h).read())
    mod = module_of(h)
    for chunk in re.findall(r"[^;{}]*[;{}]", text):
        m = DECL.match(chunk)
        if not m or "typedef" in m.group(1) or "return" in m.group(1):
            continue
        funcs.append((mod, h, m.group(2), " ".join(m.group(3).split())))
    for m in re.finditer(r"typedef\s+struct\s+(rill_\w+_desc)\s*\{(.*?)\}\s*\1\s*;", text, re.S):
        descs.append((mod, h, m.group(1), m.group(2)))

found = set()
owner = {}
for mod, h, name, params in funcs:
    owner.setdefault(name.split("_")[1], set()).add(mod)
for mod, h, name, params in funcs:
    tok = name.split("_")[1]
    if len(owner[tok]) > 1:
        found.add("prefix rill_%s_ %s" % (tok, ",".join(sorted(owner[tok]))))
    if name.endswith("_create"):
        ps = [p.strip() for p in params.split(",")]
        ctx_ok = len(ps) == 2 or (len(ps) == 3 and re.fullmatch(r"(struct )?rill_\w+ \*\s*\w*", ps[0]))
        if not ctx_ok or not re.fullmatch(r"const rill_\w+_desc \*\s*\w*", ps[-2]) or \
                not re.fullmatch(r"rill_error \*\s*\w*", ps[-1]):
            found.add("create " + name)
    if (name.endswith("_defaults") and not name.endswith("_apply_defaults")) or \
            name.endswith("_settings_default"):
        if not name.endswith("_query_defaults") or params not in ("void",):
            found.add("defaults " + name)
for mod, h, name, body in descs:
    if "start_canary" not in body or "end_canary" not in body:
        found.add("canary " + name)

exc_path = "scripts/api-exceptions.txt"
listed = set()
for line in open(exc_path):
    line = line.split("#")[0].strip()
    if line:
        listed.add(" ".join(line.split()))
new = sorted(found - listed)
gone = sorted(listed - found)
for v in new:
    print("api-check: %s (see the rules at the top of scripts/api-check.sh)" % v)
for v in gone:
    print("api-check: %s is fixed: take it out of %s" % (v, exc_path))

# The API list: per module, its headers, prefixes, function count and constructors.
mods = {}
for mod, h, name, params in funcs:
    m = mods.setdefault(mod, {"headers": set(), "prefixes": set(), "n": 0, "create": []})
    m["headers"].add(os.path.relpath(h, "include"))
    parts = name.split("_")
    m["prefixes"].add("rill_" + parts[1] + ("_" if len(parts) > 2 else ""))
    m["n"] += 1
    if name.endswith("_create"):
        m["create"].append(name)
rows = ["| module | headers | prefixes | functions | constructors |", "| --- | --- | --- | --- | --- |"]
for mod in sorted(mods):
    m = mods[mod]
    rows.append("| %s | %s | %s | %d | %s |" % (
        mod, ", ".join("`%s`" % x for x in sorted(m["headers"])),
        ", ".join("`%s`" % x for x in sorted(m["prefixes"])), m["n"],
        ", ".join("`%s`" % x for x in sorted(m["create"])) or "-"))
block = BEGIN + "\n" + "\n".join(rows) + "\n" + END
doc_path = "docs/architecture.md"
doc = open(doc_path).read()
if BEGIN not in doc or END not in doc:
    print("api-check: %s lacks the api-list markers" % doc_path)
    sys.exit(1)
cur = doc[doc.index(BEGIN):doc.index(END) + len(END)]
stale = cur != block
if write and stale:
    open(doc_path, "w").write(doc.replace(cur, block))
    stale = False
elif stale:
    print("api-check: the API list in %s is out of date: run scripts/api-check.sh --write" % doc_path)
print("api-check: %d public functions, %d descs, %d known exceptions" % (len(funcs), len(descs), len(listed)))
sys.exit(1 if new or gone or stale else 0)
PY
