"""The file view (`--group file`, groupBy "file": src/search/group.c) and the answer's
confidence with its no_confident_match warning (src/search/confidence.c), through the CLI and
MCP."""
import json

from mcp_client import Session, ToolError

# An image decoding library: nothing in it is about authentication.
IMAGES = {
    "imgdec/png.py": '''"""PNG decoding: chunks, CRC checks, zlib inflate and scanline filters."""
import zlib


def read_chunks(data):
    """Split the PNG byte stream into (type, payload) chunks after the signature."""
    pos = 8
    chunks = []
    while pos < len(data):
        length = int.from_bytes(data[pos:pos + 4], "big")
        ctype = data[pos + 4:pos + 8]
        payload = data[pos + 8:pos + 8 + length]
        check_chunk_crc(ctype, payload, data[pos + 8 + length:pos + 12 + length])
        chunks.append((ctype, payload))
        pos += 12 + length
    return chunks


def check_chunk_crc(ctype, payload, crc_bytes):
    """Verify the CRC-32 of a PNG chunk over its type and payload."""
    if zlib.crc32(ctype + payload) != int.from_bytes(crc_bytes, "big"):
        raise ValueError("bad chunk crc")


def inflate_idat(chunks):
    """Concatenate the IDAT chunks and inflate the compressed image data."""
    return zlib.decompress(b"".join(p for t, p in chunks if t == b"IDAT"))


def unfilter_scanline(ftype, line, prev, bpp):
    """Undo the PNG filter (none, sub, up, average, paeth) of one scanline."""
    out = bytearray(line)
    for i in range(len(out)):
        left = out[i - bpp] if i >= bpp else 0
        up = prev[i] if prev else 0
        if ftype == 1:
            out[i] = (out[i] + left) & 0xFF
        elif ftype == 2:
            out[i] = (out[i] + up) & 0xFF
    return bytes(out)
''',
    "imgdec/jpeg.py": '''"""Baseline JPEG decoding: huffman tables, quantization and the inverse DCT."""


def build_huffman_table(lengths, symbols):
    """Build the canonical huffman code table of a JPEG DHT segment."""
    table = {}
    code = 0
    k = 0
    for bits, count in enumerate(lengths, 1):
        for _ in range(count):
            table[(bits, code)] = symbols[k]
            code += 1
            k += 1
        code <<= 1
    return table


def dequantize_block(block, qtable):
    """Multiply the 64 coefficients of a block by the quantization table."""
    return [c * q for c, q in zip(block, qtable)]


def inverse_dct(block):
    """Two-dimensional inverse discrete cosine transform of an 8x8 block."""
    return block
''',
    "imgdec/gif.py": '''"""GIF decoding: the LZW decompressor and the colour table."""


def lzw_decode(codes, min_code_size):
    """Decompress GIF image data coded with variable-length LZW."""
    clear = 1 << min_code_size
    table = {i: bytes([i]) for i in range(clear)}
    out = bytearray()
    prev = b""
    for code in codes:
        entry = table.get(code, prev + prev[:1])
        out += entry
        if prev:
            table[len(table)] = prev + entry[:1]
        prev = entry
    return bytes(out)


def read_color_table(data, count):
    """Read count RGB triples of the global colour table."""
    return [tuple(data[i:i + 3]) for i in range(0, 3 * count, 3)]
''',
    "imgdec/pixels.py": '''"""Pixel format conversion after decoding."""


def rgb_to_rgba(pixels, alpha=255):
    """Add an opaque alpha channel to RGB pixels."""
    return [(r, g, b, alpha) for r, g, b in pixels]


def premultiply_alpha(pixels):
    """Multiply the colour channels by alpha."""
    return [(r * a // 255, g * a // 255, b * a // 255, a) for r, g, b, a in pixels]
''',
}

# One file with several owners about a topic, another with one owner that matches best.
TOPIC = {
    "cache/store.py": '''def evict_expired(store, now):
    """Evict the expired cache entries of the store."""
    for k in [k for k, v in store.items() if v < now]:
        store.pop(k)


def drop_item(store, key):
    """Drop one cache entry."""
    store.pop(key)


def item_size(entry):
    """Size of a cache entry, weighed before evicting."""
    return len(entry)


def eviction_order(store):
    """The order in which cache entries are evicted."""
    return sorted(store)
''',
    "cache/evict_policy.py": '''def evict_cache_entry(cache_entry_store):
    """Evict a cache entry: the least recently used cache entry is evicted."""
    return cache_entry_store
''',
    "cache/other.py": '''def format_bytes(n):
    """Human readable byte counts."""
    return str(n)
''',
}


NEGATIVE = "where is the OAuth access token refreshed when the session data expires"


def make(ctx, files, name):
    root = ctx.path(name)
    for rel, text in files.items():
        ctx.write(rel, text, root=root)
    ctx.ok("index", root, "--quiet")
    return root


def search(ctx, root, *words, group=None, limit=10):
    args = ["search", "--json", "--limit", str(limit), "--path", root]
    if group:
        args += ["--group", group]
    return ctx.ok(*args, "--", *words).json()


def warning_codes(j):
    return [w.split(":", 1)[0] for w in j["warnings"]]


def check_file_results(j):
    files = [r["file"] for r in j["results"]]
    assert len(files) == len(set(files)), files  # one result per file
    scores = [r["score"] for r in j["results"]]
    assert scores == sorted(scores, reverse=True), scores
    for r in j["results"]:
        owners = r["owners"]
        assert 1 <= len(owners) <= 3 and r["fileOwners"] >= len(owners), r
        assert r["owner"]["file"] == r["file"], r
        # The result opens like its best owner; owners are best first.
        assert owners[0]["qualifiedName"] == r["owner"]["qualifiedName"], r
        ss = [o["score"] for o in owners]
        assert ss == sorted(ss, reverse=True), owners
        assert r["score"] >= owners[0]["score"], r
        for o in owners:
            assert {"id", "symbol", "qualifiedName", "kind", "startLine", "endLine", "score",
                    "ownerRank"} <= set(o), o


def test_file_view_ranks_files_by_their_owners_evidence(ctx):
    root = make(ctx, TOPIC, "topic")
    q = ("evict", "cache", "entry")
    owner = search(ctx, root, *q)
    assert owner["groupBy"] == "owner" and "owners" not in owner["results"][0], owner
    # The single best owner is in policy.py ...
    assert owner["results"][0]["owner"]["file"] == "cache/evict_policy.py", owner["results"][0]
    fv = search(ctx, root, *q, group="file")
    assert fv["groupBy"] == "file", fv
    check_file_results(fv)
    # ... but store.py has four owners on the topic: the file view puts it first.
    top = fv["results"][0]
    assert top["file"] == "cache/store.py", [(r["file"], r["score"]) for r in fv["results"]]
    assert top["fileOwners"] == 4 and len(top["owners"]) == 3, top
    names = {o["qualifiedName"] for o in top["owners"]}
    assert names <= {"evict_expired", "drop_item", "item_size",
                     "eviction_order"}, names
    # Each owner keeps its rank in the owner view.
    ranks = {r["owner"]["qualifiedName"]: r["rank"] for r in owner["results"]}
    for o in top["owners"]:
        assert ranks[o["qualifiedName"]] == o["ownerRank"], (o, ranks)
    # Plain output: the file, then its owners.
    t = ctx.ok("search", "--group", "file", "--path", root, "--", *q).out
    lines = t.splitlines()
    assert lines[0].startswith("confidence ") and "files, each with its best owners" in lines[0], t
    assert lines[1].startswith("1. cache/store.py  (") and "4 owners" in lines[1], t
    assert "function evict_expired" in t or "function drop_item" in t, t


def test_file_view_pages_through_its_frozen_set(ctx):
    root = make(ctx, dict(TOPIC, **IMAGES), "paged")
    first = search(ctx, root, "evict", "cache", "entry", "decode", group="file", limit=1)
    assert len(first["results"]) == 1 and first["pagination"]["frozen"] >= 3, first
    handle = first["pagination"]["continuation"]
    assert handle, first
    seen = [first["results"][0]["file"]]
    while handle:
        page = ctx.ok("more", handle, "--json").json()
        assert page["groupBy"] == "file", page
        check_file_results(page)
        seen += [r["file"] for r in page["results"]]
        assert [r["rank"] for r in page["results"]] == list(
            range(page["pagination"]["offset"] + 1, page["pagination"]["offset"] + 1 + len(page["results"])))
        handle = page["pagination"].get("continuation")
    assert len(seen) == len(set(seen)) == first["pagination"]["frozen"], seen
    # The same search in one page gives the same files in the same order.
    whole = search(ctx, root, "evict", "cache", "entry", "decode", group="file", limit=50)
    assert [r["file"] for r in whole["results"]] == seen, (seen, whole["results"])
    # The owner view of the same query is a different frozen set.
    own = search(ctx, root, "evict", "cache", "entry", "decode", limit=1)
    assert own["pagination"]["continuation"] != first["pagination"]["continuation"]
    page = ctx.ok("more", own["pagination"]["continuation"], "--json").json()
    assert page["groupBy"] == "owner" and "owners" not in page["results"][0], page


def test_group_rejects_unknown_values(ctx):
    root = make(ctx, TOPIC, "bad")
    r = ctx.run("search", "--group", "files", "--path", root, "--", "cache")
    assert r.rc == 2 and "unknown grouping 'files'; use owner or file" in r.err, r
    r = ctx.run("search", "--path", root, "--group")
    assert r.rc == 2 and "--group needs a value" in r.err, r


def test_confidence_is_reported_and_warns_on_a_question_the_index_cannot_answer(ctx):
    root = make(ctx, IMAGES, "images")
    # Some of its words are in the code ("data"), so there are results; none is an answer.
    neg = search(ctx, root, *NEGATIVE.split())
    assert neg["results"] and 0.0 <= neg["confidence"] <= 1.0, neg
    assert "no_confident_match" in warning_codes(neg), neg["warnings"]
    pos = search(ctx, root, "verify", "the", "CRC", "of", "each", "PNG", "chunk")
    assert 0.0 <= pos["confidence"] <= 1.0, pos
    assert pos["results"][0]["owner"]["qualifiedName"] == "check_chunk_crc", pos["results"][0]
    assert "no_confident_match" not in warning_codes(pos), pos["warnings"]
    assert pos["confidence"] > neg["confidence"], (pos["confidence"], neg["confidence"])
    # The file view carries the same confidence and warning.
    fneg = search(ctx, root, *NEGATIVE.split(), group="file")
    assert fneg["confidence"] == neg["confidence"], fneg
    assert "no_confident_match" in warning_codes(fneg), fneg["warnings"]
    # The plain header says it.
    t = ctx.ok("search", "--path", root, "--", *NEGATIVE.split()).out
    assert t.splitlines()[0].startswith("confidence 0.") and "(no confident match)" in t, t
    t = ctx.ok("search", "--path", root, "--", "verify", "the", "CRC", "of", "each", "PNG",
               "chunk").out
    assert t.splitlines()[0].startswith("confidence ") and "no confident" not in t, t


def test_mcp_group_by_file_and_confidence(ctx):
    root = make(ctx, dict(TOPIC, **IMAGES), "mcp")
    s = Session(ctx)
    a = s.call("search_codebase", {"path": root, "query": "evict cache entry",
                                   "groupBy": "file", "disclosureLimit": 1})
    assert a["groupBy"] == "file" and 0 <= a["confidence"] <= 1, a
    r = a["results"][0]
    assert r["file"] == "cache/store.py" and r["fileOwners"] == 4 and len(r["owners"]) == 3, r
    assert "no_confident_match" not in [w["code"] for w in a["warnings"]], a["warnings"]
    assert r["owner"]["file"] == r["file"] and r["recommendedNextAction"]["tool"] == "read_file", r
    b = s.call("continue_search", {"continuation": a["pagination"]["continuation"], "limit": 50})
    assert b["groupBy"] == "file" and b["confidence"] == a["confidence"], b
    files = [r["file"]] + [x["file"] for x in b["results"]]
    assert len(files) == len(set(files)), files
    o = s.call("search_codebase", {"path": root, "query": "evict cache entry"})
    assert o["groupBy"] == "owner" and "owners" not in o["results"][0], o
    neg = s.call("search_codebase", {"path": root, "query": NEGATIVE})
    assert any(w["code"] == "no_confident_match" for w in neg["warnings"]), neg["warnings"]
    assert neg["confidence"] < o["confidence"], (neg["confidence"], o["confidence"])
    try:
        s.call("search_codebase", {"path": root, "query": "cache", "groupBy": "files"})
        raise AssertionError("groupBy files was accepted")
    except ToolError as e:
        assert "groupBy" in str(e) or "grouping" in str(e), str(e)
    s.close()
