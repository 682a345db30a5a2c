/*
 * scan_int.h: what the files of src/scan share (not part of the module's contract).
 *
 * The walk drives an lp_ignore as a stack of folders: it pushes a folder once its listing
 * is known (so it knows whether .gitignore / .loupeignore exist there and never probes
 * for them), asks about each child, and pops the folder when done. lp_ignore_check (the
 * public query) drives the same stack from path strings.
 */
#ifndef LP_SCAN_INT_H
#define LP_SCAN_INT_H

#include "scan/scan.h"

#define LP_IGN_HAVE_GITIGNORE 1u
#define LP_IGN_HAVE_LOUPEIGNORE 2u

/* Enter folder dir (relative to root, "" for root; it must be a child of the current top,
 * or the root when the stack is empty, and must itself not be ignored). Its rule files are
 * read through dirfd (never following a symlink) when `have` says they exist. */
void lp_ignore_push(lp_ignore *ig, lp_str dir, int dirfd, unsigned have);
/* Leave the top folder; its rules are released. */
void lp_ignore_pop(lp_ignore *ig);
/* Is rel, a direct child of the top folder, ignored by the rules on the stack (the parent
 * folders being known not to be ignored)? */
bool lp_ignore_match(lp_ignore *ig, lp_str rel, bool is_dir);

/* The errno of the first rule file that exists but could not be read because of a limit
 * or an I/O error (0: none). A walk that sees one must fail: its rules are incomplete. */
int lp_ignore_failed_errno(const lp_ignore *ig);

/* read.c: open rel below rootfd with one openat(O_NOFOLLOW) per component, so no
 * component may be a symlink (ELOOP then); the fallback for kernels without openat2,
 * exported for its test. Returns a descriptor the caller closes, or -1 with errno. */
int lp_scan_open_components(int rootfd, const char *rel);

#endif
