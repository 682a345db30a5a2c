/*
 * synonym.c: the curated synonym table and its lookup (text.h).
 *
 * Groups are words an agent uses interchangeably when asking for a tool ("delete" for a
 * tool named remove_file). Strong groups (0.7) are near-synonyms; related groups (0.5)
 * are words that usually point at the same kind of tool. Keep groups small and generic:
 * a group that merges distinct intents (read vs write) does more harm than a missing one.
 *
 * The table is indexed once (pthread_once) into a sorted array of (word, group) pairs,
 * in raw and in stemmed form.
 */
#include "text/text.h"

#include <pthread.h>

typedef struct group {
    float weight;
    const char *words; /* space-separated, folded */
} group;

static const group groups[] = {
    /* Actions. */
    {0.7f, "get fetch retrieve obtain read load"},
    {0.7f, "remove delete drop erase destroy purge unlink"},
    {0.7f, "create add new make insert"},
    {0.6f, "create generate produce build compose"},
    {0.7f, "find search lookup query locate seek discover"},
    {0.7f, "update modify edit change patch alter"},
    {0.5f, "update set configure adjust"},
    {0.7f, "auth authenticate authentication login signin logon"},
    {0.7f, "config configuration settings setting options preferences prefs"},
    {0.7f, "list enumerate ls"},
    {0.6f, "send post publish submit dispatch"},
    {0.7f, "run execute exec invoke call trigger"},
    {0.6f, "start begin launch open init initialize"},
    {0.6f, "stop halt terminate kill cancel abort"},
    {0.6f, "show display view print render"},
    {0.7f, "write save store persist put"},
    {0.7f, "copy duplicate clone"},
    {0.6f, "move rename relocate transfer"},
    {0.6f, "check verify validate test inspect"},
    {0.6f, "download pull"},
    {0.6f, "upload push attach"},
    {0.7f, "summarize summary summarise tldr digest"},
    {0.6f, "convert transform translate"},
    {0.6f, "compare diff comparison"},
    {0.6f, "analyze analyse analysis analytics evaluate"},
    {0.6f, "recommend recommendation suggest suggestion advice"},
    {0.6f, "schedule book reserve reservation booking appointment"},
    {0.6f, "monitor track watch"},
    {0.6f, "subscribe follow"},
    {0.6f, "close resolve finish complete"},
    {0.6f, "merge combine join"},
    {0.6f, "sort order rank"},
    {0.6f, "count tally"},
    {0.6f, "notify alert remind reminder notification"},
    {0.6f, "calculate compute calculator"},
    /* Things. */
    {0.7f, "directory folder dir"},
    {0.7f, "file document doc"},
    {0.6f, "message msg chat dm"},
    {0.7f, "repo repository"},
    {0.6f, "issue ticket bug"},
    {0.6f, "pr mr pull"},
    {0.7f, "user account member"},
    {0.6f, "user person people profile"},
    {0.7f, "image picture photo img pic"},
    {0.6f, "error exception failure fault"},
    {0.6f, "log logs logging"},
    {0.7f, "email mail inbox"},
    {0.6f, "calendar event meeting appointment"},
    {0.6f, "db database sql table"},
    {0.6f, "web website site webpage page url link"},
    {0.6f, "internet web online"},
    {0.6f, "env environment"},
    {0.6f, "secret credential token password key"},
    {0.6f, "permission access role acl"},
    {0.6f, "process proc task job"},
    {0.6f, "container docker pod"},
    {0.6f, "deploy deployment release ship"},
    {0.6f, "note notes memo"},
    {0.6f, "todo task reminder"},
    {0.6f, "video clip movie film"},
    {0.6f, "music song track audio tune"},
    {0.6f, "podcast episode"},
    {0.6f, "price cost cheap expensive deal"},
    {0.6f, "buy purchase shop shopping order"},
    {0.6f, "product item goods merchandise"},
    {0.6f, "discount coupon promo deal sale"},
    {0.6f, "job career employment vacancy hire hiring"},
    {0.6f, "resume cv"},
    {0.6f, "house home property apartment residence condo housing"},
    {0.6f, "rent rental renting lease landlord tenant"},
    {0.6f, "travel trip journey vacation holiday tour tourism"},
    {0.6f, "flight airline airport plane"},
    {0.6f, "hotel accommodation lodging stay motel"},
    {0.6f, "car vehicle auto automobile"},
    {0.6f, "map maps directions navigation route location"},
    {0.6f, "weather forecast temperature climate"},
    {0.6f, "stock share equity ticker investment invest portfolio"},
    {0.6f, "finance financial money market"},
    {0.6f, "crypto cryptocurrency bitcoin blockchain"},
    {0.6f, "currency exchange forex"},
    {0.6f, "news headline headlines article"},
    {0.6f, "paper article study publication research academic scholar"},
    {0.6f, "course class lesson tutorial learn learning tutor"},
    {0.6f, "recipe cooking cook meal food dish"},
    {0.6f, "restaurant dining dinner"},
    {0.6f, "diet nutrition calorie calories"},
    {0.6f, "health medical medicine doctor"},
    {0.6f, "law legal lawyer attorney"},
    {0.6f, "company business corporation firm enterprise"},
    {0.6f, "game games gaming play"},
    {0.6f, "book novel ebook reading"},
    {0.6f, "translate translation language"},
    {0.6f, "horoscope astrology zodiac"},
    {0.6f, "chart graph plot diagram visualization"},
    {0.6f, "pdf document"},
    {0.6f, "gift present"},
    {0.6f, "charity nonprofit donation donate"},
    {0.6f, "seo ranking keyword keywords"},
    {0.6f, "space nasa astronomy"},
    /* Related (0.45): words that usually point at the same kind of tool without meaning
     * the same thing. Generic topics of tool catalogs, not any one catalog's tools. */
    {0.45f, "finance financial stock stocks share shares market markets trading trader "
            "invest investing investment investor portfolio dividend dividends equity fund "
            "funds etf bond bonds nasdaq ticker earnings"},
    {0.45f, "crypto cryptocurrency bitcoin ethereum blockchain token tokens nft wallet coin "
            "coins defi"},
    {0.45f, "currency currencies exchange forex fx usd eur gbp jpy conversion convert rate"},
    {0.45f, "bank banking account loan loans mortgage credit debt interest"},
    {0.45f, "tax taxes taxation irs deduction deductions refund"},
    {0.45f, "budget expense expenses spending saving savings money"},
    {0.45f, "shop shopping store buy purchase product products item items deal deals "
            "price prices brand brands retail retailer ecommerce"},
    {0.45f, "discount discounts coupon coupons promo voucher cashback sale bargain"},
    {0.45f, "review reviews rating ratings feedback opinion opinions"},
    {0.45f, "clothes clothing apparel fashion dress shirt shoes outfit wear"},
    {0.45f, "house houses home homes property properties apartment apartments condo "
            "realestate estate housing residential neighborhood neighborhoods"},
    {0.45f, "rent rental rentals renting lease landlord tenant tenants"},
    {0.45f, "buy buying purchase purchasing mortgage realtor listing listings"},
    {0.45f, "job jobs career careers employment employer hiring hire vacancy vacancies "
            "position positions recruit recruiter recruiting interview internship"},
    {0.45f, "resume resumes cv applicant candidate"},
    {0.45f, "travel traveling trip trips journey vacation vacations holiday holidays tour "
            "tours tourism tourist destination destinations itinerary sightseeing"},
    {0.45f, "flight flights airline airlines airport plane fly flying airfare"},
    {0.45f, "hotel hotels accommodation accommodations lodging motel hostel resort stay "
            "booking room rooms"},
    {0.45f, "car cars vehicle vehicles auto automobile rental driving drive ev"},
    {0.45f, "map maps direction directions navigation navigate route routes location "
            "locations address nearby distance"},
    {0.45f, "weather forecast temperature rain snow wind climate storm sunny humidity"},
    {0.45f, "restaurant restaurants dining dinner lunch cafe reservation eat eating cuisine"},
    {0.45f, "recipe recipes cooking cook meal meals dish dishes ingredient ingredients "
            "food foods bake baking"},
    {0.45f, "diet nutrition nutritional calorie calories protein healthy vegan vegetarian "
            "fitness workout exercise weight"},
    {0.45f, "health medical medicine doctor doctors symptom symptoms disease diseases "
            "clinic hospital patient treatment drug drugs"},
    {0.45f, "law laws legal lawyer attorney court statute statutes regulation "
            "regulations rights contract lawsuit"},
    {0.45f, "news headline headlines article articles journalism report reporting "
            "breaking"},
    {0.45f, "research academic academia paper papers study studies journal journals "
            "scholar scholarly publication publications scientific science citation "
            "citations thesis"},
    {0.45f, "course courses class classes lesson lessons tutorial tutorials learn "
            "learning education educational teach teaching tutor study curriculum"},
    {0.45f, "language languages translate translation translator vocabulary grammar "
            "pronunciation english spanish french"},
    {0.45f, "book books novel novels author authors reading ebook library literature"},
    {0.45f, "movie movies film films cinema show shows tv series episode actor"},
    {0.45f, "music song songs album albums artist artists band playlist playlists "
            "lyrics track tracks concert"},
    {0.45f, "podcast podcasts episode episodes listen audio"},
    {0.45f, "game games gaming gamer video play player players puzzle"},
    {0.45f, "sport sports football soccer basketball baseball team teams match score "
            "scores league"},
    {0.45f, "image images picture pictures photo photos photography illustration art "
            "artwork drawing graphic graphics"},
    {0.45f, "video videos youtube clip clips stream streaming"},
    {0.45f, "pdf pdfs document documents file files page pages"},
    {0.45f, "summary summarize summarise summarization digest overview tldr"},
    {0.45f, "write writing writer essay essays content copywriting blog rewrite "
            "paraphrase rephrase proofread"},
    {0.45f, "seo keyword keywords ranking rankings traffic backlink backlinks "
            "marketing advertising ads campaign campaigns"},
    {0.45f, "social twitter tweet tweets instagram facebook linkedin tiktok reddit post "
            "posts followers influencer"},
    {0.45f, "website websites site sites domain domains url urls webpage webpages "
            "hosting"},
    {0.45f, "company companies business businesses corporation firm firms enterprise "
            "startup startups organization"},
    {0.45f, "charity charities nonprofit nonprofits donation donations donate "
            "volunteer fundraising"},
    {0.45f, "astrology horoscope horoscopes zodiac sign signs tarot"},
    {0.45f, "space astronomy planet planets star stars nasa mars galaxy telescope"},
    {0.45f, "earthquake earthquakes disaster disasters seismic tsunami"},
    {0.45f, "chart charts graph graphs plot plots diagram diagrams visualize "
            "visualization histogram"},
    {0.45f, "calculate calculator calculation math mathematics equation arithmetic "
            "compute"},
    {0.45f, "calendar schedule scheduling meeting meetings appointment appointments "
            "event events agenda"},
    {0.45f, "email emails mail inbox gmail outlook"},
    {0.45f, "note notes notebook memo reminder reminders todo tasks"},
    {0.45f, "memory remember recall memorize flashcard flashcards"},
    {0.45f, "gift gifts present presents birthday anniversary"},
    {0.45f, "pet pets dog dogs cat cats animal animals"},
    {0.45f, "code coding program programming developer software github repository "
            "repositories repo"},
    {0.45f, "security vulnerability vulnerabilities scan scanner hack hacking"},
    {0.45f, "meme memes joke jokes funny humor"},
};

#define MAX_WORDS 4096

typedef struct entry {
    const char *word; /* NUL-terminated, points into words_raw or words_stem */
    uint16_t group;
    uint16_t index; /* word index inside the group */
} entry;

static char words_raw[MAX_WORDS][LP_TEXT_TOKEN_MAX + 1];
static char words_stem[MAX_WORDS][LP_TEXT_TOKEN_MAX + 1];
static uint16_t group_first[LP_ARRAY_LEN(groups) + 1]; /* word index range of a group */
static entry raw_idx[MAX_WORDS], stem_idx[MAX_WORDS];
static size_t nwords;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static int entry_cmp(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    int c = strcmp(x->word, y->word);
    if (c)
        return c;
    return x->group < y->group ? -1 : x->group > y->group ? 1 : 0;
}

static void build(void)
{
    for (size_t g = 0; g < LP_ARRAY_LEN(groups); g++) {
        group_first[g] = (uint16_t)nwords;
        const char *p = groups[g].words;
        while (*p) {
            while (*p == ' ')
                p++;
            size_t n = 0;
            while (p[n] && p[n] != ' ')
                n++;
            if (n == 0)
                break;
            if (nwords == MAX_WORDS || n > LP_TEXT_TOKEN_MAX)
                abort(); /* a programming error in the table above */
            memcpy(words_raw[nwords], p, n);
            words_raw[nwords][n] = '\0';
            lp_text_stem((lp_str){p, n}, words_stem[nwords]);
            raw_idx[nwords] = (entry){words_raw[nwords], (uint16_t)g, (uint16_t)nwords};
            stem_idx[nwords] = (entry){words_stem[nwords], (uint16_t)g, (uint16_t)nwords};
            nwords++;
            p += n;
        }
    }
    group_first[LP_ARRAY_LEN(groups)] = (uint16_t)nwords;
    qsort(raw_idx, nwords, sizeof(entry), entry_cmp);
    qsort(stem_idx, nwords, sizeof(entry), entry_cmp);
}

size_t lp_text_synonym_group_count(void) { return LP_ARRAY_LEN(groups); }

/* First index in idx whose word equals term, or nwords. */
static size_t lower_bound(const entry *idx, lp_str term)
{
    size_t lo = 0, hi = nwords;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (lp_str_cmp(lp_str_c(idx[mid].word), term) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

size_t lp_text_synonyms(lp_str term, bool stemmed, lp_text_expansion *out, size_t cap)
{
    pthread_once(&once, build);
    if (term.len == 0 || term.len > LP_TEXT_TOKEN_MAX)
        return 0;
    const entry *idx = stemmed ? stem_idx : raw_idx;
    char(*forms)[LP_TEXT_TOKEN_MAX + 1] = stemmed ? words_stem : words_raw;
    /* Candidates: (word index, weight), deduplicated by text keeping the best weight. */
    struct cand {
        const char *w;
        float weight;
        uint16_t order;
    } cands[256];
    size_t nc = 0;
    for (size_t i = lower_bound(idx, term); i < nwords && lp_str_eq_c(term, idx[i].word);
         i++) {
        size_t g = idx[i].group;
        for (size_t w = group_first[g]; w < group_first[g + 1]; w++) {
            const char *text = forms[w];
            if (lp_str_eq_c(term, text))
                continue;
            size_t j = 0;
            while (j < nc && strcmp(cands[j].w, text) != 0)
                j++;
            if (j < nc) {
                if (groups[g].weight > cands[j].weight)
                    cands[j].weight = groups[g].weight;
                continue;
            }
            if (nc == LP_ARRAY_LEN(cands))
                continue;
            cands[nc++] = (struct cand){text, groups[g].weight, (uint16_t)w};
        }
    }
    /* Best weight first, then table order (insertion sort: nc is small). */
    for (size_t i = 1; i < nc; i++) {
        struct cand c = cands[i];
        size_t j = i;
        while (j > 0 && (cands[j - 1].weight < c.weight ||
                         (cands[j - 1].weight == c.weight && cands[j - 1].order > c.order))) {
            cands[j] = cands[j - 1];
            j--;
        }
        cands[j] = c;
    }
    for (size_t i = 0; i < nc && i < cap; i++)
        out[i] = (lp_text_expansion){lp_str_c(cands[i].w), cands[i].weight};
    return nc;
}
