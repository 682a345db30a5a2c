/* examples/search.c: index a folder and answer a question through loupe.h.
 *   cc search.c $(pkg-config --cflags --libs loupe) -o search && ./search DIR "question" */
#include <loupe.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s FOLDER QUESTION\n", argv[0]);
        return 2;
    }
    lp_error err = {0};
    lp_engine *engine = NULL;
    lp_engine_index_result *built = NULL;
    lp_engine_search_result *found = NULL;
    lp_engine_index_request index = {.path = argv[1], .op = LP_ENGINE_CREATE};
    lp_engine_search_request search = {.path = argv[1], .query = argv[2], .limit = 3};
    if (lp_engine_new(NULL, &engine, &err) || lp_engine_index(engine, &index, &built, &err) ||
        lp_engine_search(engine, &search, &found, &err)) {
        fprintf(stderr, "loupe: %s (%s)\n", err.msg, err.reason);
        lp_engine_index_result_free(built);
        lp_engine_free(engine);
        return 1;
    }
    printf("publication %lld of %s, %llu files\n", (long long)built->publication_id,
           built->root, (unsigned long long)built->files);
    for (size_t i = 0; i < found->nhits; i++) {
        const lp_engine_hit *h = &found->hits[i];
        printf("%u. %s:%u-%u %s (%.2f)\n", h->rank, h->file, h->start_line, h->end_line,
               h->qualified_name ? h->qualified_name : h->kind, h->score);
    }
    lp_engine_search_result_free(found);
    lp_engine_index_result_free(built);
    lp_engine_free(engine);
    return 0;
}
