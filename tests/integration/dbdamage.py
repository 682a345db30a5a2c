"""Damage an index database the way failing storage does: random bytes flipped inside the
pages of its b-trees (tables, indexes, the FTS segments, the schema), seeded.

Used by test_faults_db.py (make test) and bench/damage.py (the long run)."""
import random
import sqlite3


def btree_pages(db):
    """Page numbers of every b-tree page of db (from SQLite's dbstat), and the page size."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        size = con.execute("PRAGMA page_size").fetchone()[0]
        pages = [r[0] for r in con.execute("SELECT pageno FROM dbstat WHERE pageno > 1")]
    finally:
        con.close()
    return sorted(set(pages)), size


def flip_bytes(db, seed, nbytes=200, pages=None, page_size=None):
    """XOR nbytes random bytes (never with 0) at random offsets of random b-tree pages.
    Returns the pages touched."""
    if pages is None:
        pages, page_size = btree_pages(db)
    rnd = random.Random(seed)
    touched = set()
    with open(db, "r+b") as f:
        for _ in range(nbytes):
            pg = rnd.choice(pages)
            off = (pg - 1) * page_size + rnd.randrange(page_size)
            f.seek(off)
            b = f.read(1)
            f.seek(off)
            f.write(bytes([b[0] ^ rnd.randrange(1, 256)]))
            touched.add(pg)
    return sorted(touched)


def integrity_ok(db):
    """SQLite's own verdict (integrity_check) through a read-only connection."""
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        con.text_factory = bytes  # messages may quote damaged bytes
        try:
            rows = con.execute("PRAGMA integrity_check").fetchall()
        finally:
            con.close()
        return rows == [(b"ok",)]
    except (sqlite3.DatabaseError, UnicodeDecodeError):  # a message quoting damaged bytes
        return False
