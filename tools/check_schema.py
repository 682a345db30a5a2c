#!/usr/bin/env python3
"""check_schema.py: the schema has one owner per table, and DDL has one place.

Fails (exit 1, one line per finding) when, in src/:
  - DDL (CREATE/DROP/ALTER of a table, index, view or trigger) appears outside
    src/store/schema.c;
  - a module writes (INSERT/REPLACE/UPDATE/DELETE) a table it does not own;
  - SQL names a table the ownership table does not list;
  - src/cli or src/mcp (renderers) run SQL of their own.
The ownership table is read from docs/ARCHITECTURE.md ("Who owns which table"), so the
document and the check cannot disagree. ALLOW lists the exceptions, each with its reason.

SQL is found in C string literals: adjacent literals (C concatenation, macros continued with
backslashes) are joined first, comments are skipped. `--list` prints every table each module
reads and writes (to keep the document's reader column honest).
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (file, kind, table) -> reason. kind: "write", "sql" (cli/mcp), "ddl".
ALLOW = {
    ("src/store/damage.c", "write", "chunk_fts"):
        "FTS5 'integrity-check' command: an INSERT in form only, it writes nothing",
    ("src/cli/cmd_embed.c", "sql", "chunks"):
        "the `loupe embed --search` debug command locates its hits; not a tool (moving it "
        "into src/embed is left to the tool-table work on src/cli)",
    ("src/cli/cmd_embed.c", "sql", "files"):
        "same statement as above",
}

# temp tables of one connection (not in the database file) and SQLite's own.
CONNECTION_TABLES = {"temp.loupe_vocab", "sqlite_master", "sqlite_schema", "pragma_table_info"}

DDL_RE = re.compile(r"\b(CREATE|DROP|ALTER)\s+(?:(?:TEMP|TEMPORARY|UNIQUE|VIRTUAL)\s+)*"
                    r"(TABLE|INDEX|VIEW|TRIGGER)\b")
WRITE_RE = re.compile(r"\b(?:INSERT(?:\s+OR\s+[A-Z]+)?\s+INTO|REPLACE\s+INTO|DELETE\s+FROM)"
                      r"\s+([A-Za-z_][\w.]*)|\bUPDATE(?:\s+OR\s+[A-Z]+)?\s+([A-Za-z_][\w.]*)\s+SET\b")
READ_RE = re.compile(r"\b(?:FROM|JOIN)\s+([A-Za-z_][\w.]*)")
SQL_RE = re.compile(r"\b(SELECT|INSERT|UPDATE|DELETE)\b")


TOKEN_RE = re.compile(r'//[^\n]*|/\*.*?\*/|\'(?:\\.|[^\'\\\n])*\'|"((?:\\.|[^"\\\n])*)"',
                      re.S)
GAP_RE = re.compile(r"(?:\s|\\\n)*")


def literals(text):
    """Yield (line, joined string literal) for each run of adjacent literals."""
    run, run_start, last_end = None, 0, 0
    for m in TOKEN_RE.finditer(text):
        if m.group(1) is None:  # a comment (part of a gap) or a character literal
            if run is not None:
                if text.startswith("/", m.start()) and GAP_RE.fullmatch(text, last_end, m.start()):
                    last_end = m.end()
                elif not text.startswith("/", m.start()):
                    yield text.count("\n", 0, run_start) + 1, run
                    run = None
            continue
        if run is not None and GAP_RE.fullmatch(text, last_end, m.start()):
            run += m.group(1)
        else:
            if run is not None:
                yield text.count("\n", 0, run_start) + 1, run
            run, run_start = m.group(1), m.start()
        last_end = m.end()
    if run is not None:
        yield text.count("\n", 0, run_start) + 1, run


def module_of(rel):
    parts = rel.split("/")
    return parts[1] if len(parts) > 2 else ""


def owners_from_doc():
    doc = open(os.path.join(ROOT, "docs", "ARCHITECTURE.md"), encoding="utf-8").read()
    start = doc.find("## Who owns which table")
    if start < 0:
        sys.exit("check_schema: docs/ARCHITECTURE.md has no 'Who owns which table' section")
    owners = {}
    for m in re.finditer(r"^\|\s*`([\w.]+)`\s*\|\s*([a-z]+)\b", doc[start:], re.M):
        owners[m.group(1)] = m.group(2)
    if not owners:
        sys.exit("check_schema: the ownership table is empty")
    return owners


def scan(src_root):
    """Yield (rel path, line, kind, table, sql) for every DDL, write and read in src/."""
    for dirpath, _, names in os.walk(src_root):
        for name in sorted(names):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, os.path.dirname(src_root)).replace(os.sep, "/")
            text = open(path, encoding="utf-8", errors="replace").read()
            for line, s in literals(text):
                if not SQL_RE.search(s) and not DDL_RE.search(s):
                    continue
                for m in DDL_RE.finditer(s):
                    yield rel, line, "ddl", m.group(2), s
                for m in WRITE_RE.finditer(s):
                    yield rel, line, "write", m.group(1) or m.group(2), s
                if SQL_RE.search(s):
                    for m in READ_RE.finditer(s):
                        yield rel, line, "read", m.group(1), s


def main(argv):
    src_root = os.path.join(ROOT, "src")
    if len(argv) > 1 and argv[1] not in ("--list",):
        src_root = os.path.abspath(argv[1])
    owners = owners_from_doc()
    problems, used = [], {}
    for rel, line, kind, table, sql in scan(src_root):
        mod = module_of(rel)
        where = f"{rel}:{line}"
        short = " ".join(sql.split())[:90]
        if kind == "ddl":
            if rel != "src/store/schema.c" and (rel, "ddl", table) not in ALLOW:
                problems.append(f"{where}: DDL outside src/store/schema.c: {short}")
            continue
        t = table.lower()
        if re.fullmatch(r"chunk_fts_(data|idx|docsize|config|content)", t):
            t = "chunk_fts"  # FTS5's shadow tables belong to their table
        if t in CONNECTION_TABLES or t.startswith("temp.") or t.startswith("pragma_"):
            continue
        used.setdefault((mod, t), set()).add(kind)
        if t not in owners:
            problems.append(f"{where}: table '{t}' is not in the ownership table "
                            "(docs/ARCHITECTURE.md, 'Who owns which table')")
            continue
        if mod in ("cli", "mcp") and (rel, "sql", t) not in ALLOW:
            problems.append(f"{where}: src/{mod} renders; it reaches '{t}' through the "
                            f"owner's functions, not SQL: {short}")
        if kind == "write" and owners[t] != mod and (rel, "write", t) not in ALLOW:
            problems.append(f"{where}: module '{mod}' writes '{t}', owned by "
                            f"'{owners[t]}': {short}")
    if "--list" in argv:
        for (mod, t), kinds in sorted(used.items()):
            print(f"{mod:8} {t:14} {' '.join(sorted(kinds))}")
    problems = list(dict.fromkeys(problems))  # one line per finding, not per match
    for p in problems:
        print(p)
    print(f"check_schema: {len(problems)} problem(s), {len(owners)} tables, "
          f"{len(ALLOW)} allowed exceptions")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
