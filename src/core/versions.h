/*
 * versions.h: every version number that decides what stored evidence looks like. They all
 * enter the publication fingerprint; bump the one of a module whose output changes, and
 * every existing index reports requires_reindex instead of serving mismatched evidence.
 */
#ifndef LP_VERSIONS_H
#define LP_VERSIONS_H

#define LP_PARSER_VERSION 2       /* tree-sitter grammars and parse options; 2: Scala long lines */
#define LP_EXTRACTOR_VERSION 4    /* symbols, chunks, references (src/lang); 4: content flags */
#define LP_TOKENIZER_VERSION 2    /* lexical tokenizer (FTS); 2: Porter2 invariant words */
#define LP_RELATIONSHIP_VERSION 2 /* code graph edges (src/graph); 0 = none */

#endif
