#!/usr/bin/env python3
"""tools/check-includes.py: the include graph of src/ against the documented module order.

Rules (docs/ARCHITECTURE.md, "Modules and dependencies"):
  1. The line "Dependencies point one way: a <- b, c <- ..." in docs/ARCHITECTURE.md gives the
     layers. A file of src/<m>/ may include headers of its own module and of modules in lower
     layers only: never a module of its own layer, never one above. src/main.c is the top and
     may include any public header.
  2. A private header (src/<m>/*_int.h) is included only from src/<m>/.
  3. <jansson.h> is included only by src/core/json.h (every module goes through it).
  4. Every "<m>/<header>.h" named in src/ exists, and every module of src/ is in the layers.

Exceptions are listed one a line in tools/check-includes.allow as `FILE HEADER  # reason`; an
entry without a reason, or one that no longer matches any include, is itself a failure (so the
list cannot rot).

Prints TAP lines (`ok - ...` / `not ok - ...`) and exits non-zero on any violation.
Usage: tools/check-includes.py [--root DIR]
"""
import argparse
import os
import re
import sys

INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.M)


def parse_layers(arch_text):
    """The layers of the 'Dependencies point one way:' sentence, lowest first."""
    m = re.search(r"Dependencies point one way:\s*(.+?)\.(?:\s|$)", arch_text, re.S)
    if not m:
        return None
    sentence = " ".join(m.group(1).split())
    layers = []
    for part in sentence.split("<-"):
        names = [n.strip() for n in part.split(",") if n.strip()]
        if not names or not all(re.fullmatch(r"[a-z]+", n) for n in names):
            return None
        layers.append(names)
    return layers


def read_allow(path):
    entries = {}
    problems = []
    if not os.path.exists(path):
        return entries, problems
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            body = line.split("#", 1)
            spec = body[0].split()
            if not spec:
                continue
            reason = body[1].strip() if len(body) > 1 else ""
            if len(spec) != 2 or not reason:
                problems.append(f"{path}:{no}: want `FILE HEADER  # reason`, got {line.strip()!r}")
                continue
            entries[(spec[0], spec[1])] = reason
    return entries, problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    args = ap.parse_args()
    root = args.root
    src = os.path.join(root, "src")
    failures = []

    with open(os.path.join(root, "docs/ARCHITECTURE.md"), encoding="utf-8") as f:
        layers = parse_layers(f.read())
    if not layers:
        print("not ok - docs/ARCHITECTURE.md states the module order "
              "('Dependencies point one way: core <- ...')")
        return 1
    level = {m: i for i, names in enumerate(layers) for m in names}

    modules = sorted(d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d)))
    for m in modules:
        if m not in level:
            failures.append(f"src/{m}/ is not in the documented module order")

    allow, problems = read_allow(os.path.join(root, "tools/check-includes.allow"))
    failures += problems
    used_allow = set()

    files = []
    for dirpath, _, names in os.walk(src):
        for n in names:
            if n.endswith((".c", ".h")):
                files.append(os.path.relpath(os.path.join(dirpath, n), root))
    files.sort()
    edges = 0
    for rel in files:
        parts = rel.split("/")
        mod = parts[1] if len(parts) > 2 else None  # None: src/main.c
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            text = f.read()
        for mt in INCLUDE.finditer(text):
            kind, inc = mt.group(1), mt.group(2)
            line = text.count("\n", 0, mt.start()) + 1
            where = f"{rel}:{line}"
            if kind == "<":
                if inc == "jansson.h" and rel != "src/core/json.h":
                    if (rel, inc) in allow:
                        used_allow.add((rel, inc))
                    else:
                        failures.append(f"{where}: <jansson.h> outside core/json.h "
                                        "(include core/json.h)")
                continue
            edges += 1
            if "/" not in inc:
                if not os.path.exists(os.path.join(src, inc)):
                    failures.append(f"{where}: \"{inc}\": name headers as \"module/header.h\"")
                    continue
                # A public header at the top of src/ (src/loupe.h) belongs to src/api when
                # that module is in the order, else to the top layer.
                target = "api" if "api" in level else layers[-1][0]
                if mod is not None and mod in level and level[target] > level[mod]:
                    bad = f"{mod} includes the public header {inc}, which is above it"
                    if (rel, inc) in allow:
                        used_allow.add((rel, inc))
                    else:
                        failures.append(f"{where}: {bad}")
                continue
            target = inc.split("/", 1)[0]
            if not os.path.exists(os.path.join(src, inc)):
                # Tests and tools have their own include paths; src/ includes only src/.
                failures.append(f"{where}: \"{inc}\" does not exist under src/")
                continue
            bad = None
            if os.path.basename(inc).endswith("_int.h") and target != mod:
                bad = f"private header {inc} of module {target} included from " + \
                      (f"module {mod}" if mod else "src/main.c")
            elif mod is not None and target != mod and mod in level and target in level:
                if level[target] == level[mod]:
                    bad = f"{mod} includes {inc}: {target} is in the same layer as {mod}"
                elif level[target] > level[mod]:
                    bad = f"{mod} includes {inc}: {target} is above {mod} in the module order"
            if bad:
                if (rel, inc) in allow:
                    used_allow.add((rel, inc))
                else:
                    failures.append(f"{where}: {bad}")

    for key in sorted(set(allow) - used_allow):
        failures.append(f"tools/check-includes.allow: `{key[0]} {key[1]}` matches no violating "
                        "include any more: remove it")

    order = " <- ".join(", ".join(n) for n in layers)
    if failures:
        for f in failures:
            print(f"not ok - include order: {f}")
        print(f"# {len(failures)} violation(s); order: {order}", file=sys.stderr)
        return 1
    print(f"ok - include order: {edges} includes in {len(files)} files of src/ follow "
          f"{order}; no private header crosses a module "
          f"({len(allow)} allowed exception(s))")
    return 0


if __name__ == "__main__":
    sys.exit(main())
