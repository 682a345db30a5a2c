/*
 * json.h: the JSON side of src/core, for every module that builds JSON with jansson.
 *
 * Include this header, never <jansson.h> directly: it turns the jansson calls that fail on
 * bytes that are not UTF-8 into compile errors, so each JSON string is built one way:
 *
 * - text of any origin (file content, names, paths, messages, user input) goes through
 *   lp_json_text / lp_json_textz, which never fail: bytes that are not UTF-8 become U+FFFD;
 * - a path (or any name a caller must be able to give back) goes through lp_json_set_path,
 *   which adds `<key>Bytes`, the escaped form of core.h's lp_bytes_escape, when it is not
 *   UTF-8;
 * - json_string() takes string literals only (a variable does not compile);
 * - json_pack is lp_json_pack, which records a failure (naming the key) for the output
 *   layer to report instead of printing nothing; an `o` argument is stolen by jansson even
 *   when the pack fails, so never use it again after the call.
 */
#ifndef LP_CORE_JSON_H
#define LP_CORE_JSON_H

#include "core/core.h"

#include <jansson.h>

/* Route jansson's allocations through lp_xmalloc (called once by main, before any thread):
 * out of memory inside jansson then ends the process like anywhere else in loupe, so
 * json_object_set_new / json_array_append_new on a container this code made, with a literal
 * key, cannot fail and free the value behind the caller's back. */
void lp_json_init(void);

/* A JSON string of p[0..n): well-formed UTF-8 is kept, each other byte and each NUL becomes
 * U+FFFD. Never NULL (aborts on out of memory like lp_xmalloc). */
json_t *lp_json_text(const char *p, size_t n);
/* The same for a NUL-terminated string; NULL gives JSON null. */
json_t *lp_json_textz(const char *s);
/* obj[key] = lp_json_text(p, n); when p[0..n) is not valid UTF-8 (or holds NUL), also
 * obj[key + "Bytes"] = the escaped form (lp_bytes_escape), which input fields such as MCP's
 * `pathBytes` accept back. An existing "<key>Bytes" is removed when the path is UTF-8. */
void lp_json_set_path(json_t *obj, const char *key, const char *p, size_t n);
/* The same with "root/rel" (rel NULL or "" gives root). */
void lp_json_set_path2(json_t *obj, const char *key, const char *root, const char *rel);

/* json_pack with a check: on failure it returns NULL and records, for this thread, which
 * key of which call failed and why (lp_json_failed reports it); it also logs the failure.
 * Every `o` argument is consumed, on success and on failure. */
json_t *lp_json_pack_at(const char *where, const char *fmt, ...);
#define LP_JSON_STR_(x) #x
#define LP_JSON_STR(x) LP_JSON_STR_(x)
#define lp_json_pack(...) lp_json_pack_at(__FILE__ ":" LP_JSON_STR(__LINE__), __VA_ARGS__)
/* Forget this thread's recorded failure (the MCP server calls it before each tool call). */
void lp_json_failure_reset(void);
/* True when an lp_json_pack on this thread failed since the last reset; err (if not NULL)
 * gets LP_ERROR and "could not encode the answer: key 'x' (at file:line): reason". */
bool lp_json_failed(lp_error *err);

#ifndef LP_JSON_IMPL
#undef json_pack
#define json_pack(...) LP_BANNED(json_pack)
#undef json_pack_ex
#define json_pack_ex(...) LP_BANNED(json_pack_ex)
#undef json_vpack_ex
#define json_vpack_ex(...) LP_BANNED(json_vpack_ex)
/* json_string of a literal stays (it cannot fail); anything else must say how it handles
 * bytes that are not UTF-8 (lp_json_text*). */
#undef json_string
#define json_string(lit) (json_string)("" lit)
#undef json_stringn
#define json_stringn(...) LP_BANNED(json_stringn)
#undef json_string_nocheck
#define json_string_nocheck(...) LP_BANNED(json_string_nocheck)
#undef json_stringn_nocheck
#define json_stringn_nocheck(...) LP_BANNED(json_stringn_nocheck)
#endif

#endif
