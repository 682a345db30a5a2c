/*
 * test_mcp.c: unit tests of src/mcp (argument validation, result budget, line reader) and
 * of the installer's text editors (src/cli/install_*.c).
 */
#include "t.h"

#include "cli/install.h"
#include "mcp/mcp_int.h"

#include <unistd.h>

static json_t *js(const char *text)
{
    json_t *v = json_loads(text, JSON_DECODE_ANY, NULL);
    if (!v)
        abort();
    return v;
}

static const char schema_text[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"query\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":5},"
    "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":50},"
    "\"mode\":{\"type\":\"string\",\"enum\":[\"fast\",\"deep\"]},"
    "\"paths\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"maxItems\":2},"
    "\"filter\":{\"type\":\"object\",\"properties\":{\"lang\":{\"type\":\"string\"}},"
    "\"additionalProperties\":false}},"
    "\"required\":[\"query\"],\"additionalProperties\":false,"
    "\"examples\":[{\"query\":\"token\"}]}";

T_TEST(mcp_validate_accepts_good_arguments)
{
    json_t *s = js(schema_text), *a = js("{\"query\":\"héllo\",\"limit\":3.0,\"mode\":\"deep\","
                                         "\"paths\":[\"a\"],\"filter\":{\"lang\":\"c\"}}");
    lp_buf msg;
    lp_buf_init(&msg, 0);
    lp_error err = {0};
    T_CHECK_OK(lp_mcp_schema_check(s, &err), &err);
    T_CHECK_MSG(lp_mcp_validate_args(s, a, "t", &msg), "%s", msg.ptr);
done:
    json_decref(s);
    json_decref(a);
    lp_buf_release(&msg);
}

T_TEST(mcp_validate_explains_each_problem)
{
    json_t *s = js(schema_text);
    json_t *a = js("{\"limit\":0,\"mode\":\"slow\",\"paths\":[\"a\",2,\"c\"],"
                   "\"filter\":{\"lang\":1,\"x\":2},\"zzz\":true}");
    lp_buf msg;
    lp_buf_init(&msg, 0);
    T_CHECK(!lp_mcp_validate_args(s, a, "search", &msg));
    T_CHECK_MSG(strstr(msg.ptr, "Invalid arguments for search: Missing required argument "
                                "'query' (a string of 1 to 5 characters).") == msg.ptr,
                "%s", msg.ptr);
    T_CHECK_MSG(strstr(msg.ptr, "Argument 'limit' must be an integer between 1 and 50 (got an "
                                "integer 0)."),
                "%s", msg.ptr);
    T_CHECK_MSG(strstr(msg.ptr, "Argument 'mode' must be one of \"fast\", \"deep\""), "%s",
                msg.ptr);
    T_CHECK_MSG(strstr(msg.ptr, "Argument 'paths' must be an array of at most 2 items (got 3 "
                                "items)."),
                "%s", msg.ptr);
    T_CHECK_MSG(strstr(msg.ptr, "Argument 'paths[1]' must be a string (got an integer 2)."),
                "%s", msg.ptr);
    /* Five problems are shown, the rest counted, then the example. */
    T_CHECK_MSG(strstr(msg.ptr, "more problems not shown") &&
                    strstr(msg.ptr, "Example: {\"query\":\"token\"}"),
                "%s", msg.ptr);
    lp_buf_reset(&msg);
    json_decref(a);
    a = js("{\"query\":\"\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\"}"); /* 6 code points */
    T_CHECK(!lp_mcp_validate_args(s, a, "search", &msg));
    T_CHECK_MSG(strstr(msg.ptr, "(got 6 characters)"), "%s", msg.ptr);
done:
    json_decref(s);
    json_decref(a);
    lp_buf_release(&msg);
}

T_TEST(mcp_schema_check_rejects_unenforced_keywords)
{
    lp_error err = {0};
    json_t *s = js("{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"string\","
                   "\"pattern\":\"^a\"}}}");
    T_CHECK(lp_mcp_schema_check(s, &err) == LP_EINVAL);
    T_CHECK_MSG(strstr(err.msg, "'q'") && strstr(err.msg, "'pattern'"), "%s", err.msg);
    json_decref(s);
    s = js("{\"type\":\"array\"}");
    T_CHECK(lp_mcp_schema_check(s, &err) == LP_EINVAL);
done:
    json_decref(s);
}

T_TEST(mcp_budget_cuts_lists_deterministically)
{
    static const char *const keys[] = {"items", NULL};
    json_t *a = json_object(), *b = NULL;
    json_t *items = json_array();
    for (int i = 0; i < 300; i++)
        json_array_append_new(items, json_sprintf("item number %d", i));
    json_object_set_new(a, "items", items);
    json_object_set_new(a, "root", json_string("/r"));
    b = json_deep_copy(a);
    char *t1 = NULL, *t2 = NULL;
    size_t n1, n2;
    lp_error err = {0};
    T_CHECK_OK(lp_mcp_budget_fit(a, 2048, keys, &t1, &n1, &err), &err);
    T_CHECK_OK(lp_mcp_budget_fit(b, 2048, keys, &t2, &n2, &err), &err);
    T_CHECK(n1 <= 2048 && n1 == n2 && !memcmp(t1, t2, n1));
    T_CHECK(json_is_true(json_object_get(a, "truncated")));
    size_t kept = json_array_size(json_object_get(a, "items"));
    T_CHECK(kept > 10 && kept < 300);
    T_CHECK_STR(json_string_value(json_array_get(json_object_get(a, "items"), 0)),
                "item number 0");
    json_t *w = json_array_get(json_object_get(a, "warnings"), 0);
    T_CHECK_STR(json_string_value(json_object_get(w, "code")), LP_MCP_WARN_RESULT_TRUNCATED);
    T_CHECK_MSG(strstr(json_string_value(json_object_get(w, "message")), "of 300 items"), "%s",
                json_string_value(json_object_get(w, "message")));
    /* One more item would not have fitted. */
    json_t *parsed = json_loadb(t1, n1, 0, NULL);
    T_CHECK(parsed != NULL);
    json_decref(parsed);
done:
    free(t1);
    free(t2);
    json_decref(a);
    json_decref(b);
}

T_TEST(mcp_budget_shortens_long_text_and_reports_impossible)
{
    json_t *a = json_object();
    lp_buf big;
    lp_buf_init(&big, 0);
    for (int i = 0; i < 3000; i++)
        lp_buf_puts(&big, "\xC3\xA9"); /* 2-byte characters: cuts must stay UTF-8 */
    json_object_set_new(a, "content", lp_json_textz(big.ptr));
    char *txt = NULL;
    size_t n;
    lp_error err = {0};
    T_CHECK_OK(lp_mcp_budget_fit(a, 1500, NULL, &txt, &n, &err), &err);
    T_CHECK(n <= 1500);
    json_t *parsed = json_loadb(txt, n, 0, NULL);
    T_CHECK(parsed != NULL);
    json_decref(parsed);
    free(txt);
    txt = NULL;
    json_decref(a);
    a = json_object();
    for (int i = 0; i < 400; i++) {
        char k[16];
        snprintf(k, sizeof k, "k%03d", i);
        json_object_set_new(a, k, json_integer(i));
    }
    T_CHECK(lp_mcp_budget_fit(a, 1024, NULL, &txt, &n, &err) == LP_ETOOBIG);
    T_CHECK(strstr(err.msg, "--max-result-bytes") != NULL);
done:
    free(txt);
    json_decref(a);
    lp_buf_release(&big);
}

T_TEST(mcp_reader_splits_lines_and_limits_length)
{
    int fds[2];
    T_CHECK(pipe(fds) == 0);
    const char input[] = "{\"a\":1}\r\n\n{\"b\":2}\nxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
                         "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\nlast";
    T_CHECK(write(fds[1], input, sizeof input - 1) == (ssize_t)(sizeof input - 1));
    close(fds[1]);
    lp_mcp_reader r;
    lp_mcp_reader_init(&r, fds[0], 64);
    const char *line;
    size_t len;
    T_CHECK(lp_mcp_reader_next(&r, &line, &len) == LP_MCP_READ_LINE);
    T_CHECK(len == 7 && !memcmp(line, "{\"a\":1}", 7));
    T_CHECK(lp_mcp_reader_next(&r, &line, &len) == LP_MCP_READ_LINE && len == 0);
    T_CHECK(lp_mcp_reader_next(&r, &line, &len) == LP_MCP_READ_LINE && len == 7);
    T_CHECK(lp_mcp_reader_next(&r, &line, &len) == LP_MCP_READ_TOOLONG && len > 64);
    T_CHECK(lp_mcp_reader_next(&r, &line, &len) == LP_MCP_READ_LINE && len == 4);
    T_CHECK(lp_mcp_reader_next(&r, &line, &len) == LP_MCP_READ_EOF);
    lp_mcp_reader_release(&r);
done:
    close(fds[0]);
}

T_TEST(mcp_json_string_repairs_invalid_utf8)
{
    json_t *s = lp_json_text("a\xFF" "b\xC3", 4);
    T_CHECK(s != NULL);
    T_CHECK_STR(json_string_value(s), "a\xEF\xBF\xBD" "b\xEF\xBF\xBD");
done:
    json_decref(s);
}

/* ------------------------------------------------------------------------------------------
 * Installer editors: install then uninstall gives back the original bytes. */

static int jsonc_roundtrip(lp_t *t, const char *orig, const char *must_contain)
{
    int ok = 0;
    lp_buf out, back;
    lp_buf_init(&out, 0);
    lp_buf_init(&back, 0);
    json_t *v = js("{\"command\":\"/bin/loupe\",\"args\":[\"mcp\"]}");
    lp_edit_result res;
    lp_edit_created cr;
    lp_error err = {0};
    T_CHECK_OK(lp_jsonc_set_member(orig, strlen(orig), "mcpServers", "loupe", v, &out, &res,
                                   &cr, &err),
               &err);
    T_CHECK(res == LP_EDIT_ADDED);
    T_CHECK_MSG(strstr(out.ptr, must_contain), "%s", out.ptr);
    bool present = false;
    json_t *got = lp_jsonc_get_member(out.ptr, out.len, "mcpServers", "loupe", &present, &err);
    T_CHECK(present && got && json_equal(got, v));
    json_decref(got);
    /* Idempotent. */
    lp_buf again;
    lp_buf_init(&again, 0);
    lp_edit_created cr2;
    lp_jsonc_set_member(out.ptr, out.len, "mcpServers", "loupe", v, &again, &res, &cr2, &err);
    bool same = res == LP_EDIT_UNCHANGED && again.len == out.len;
    lp_buf_release(&again);
    T_CHECK(same);
    T_CHECK_OK(lp_jsonc_remove_member(out.ptr, out.len, "mcpServers", "loupe", cr.container,
                                      &back, &res, &err),
               &err);
    T_CHECK(res == LP_EDIT_REMOVED);
    T_CHECK_MSG(!strcmp(back.ptr, orig), "got [%s] want [%s]", back.ptr, orig);
    ok = 1;
done:
    json_decref(v);
    lp_buf_release(&out);
    lp_buf_release(&back);
    return ok;
}

T_TEST(install_jsonc_edits_are_exact_inverses)
{
    T_CHECK(jsonc_roundtrip(t, "{}", "{\"mcpServers\": {\"loupe\""));
    T_CHECK(jsonc_roundtrip(t, "{ }", "\"loupe\""));
    T_CHECK(jsonc_roundtrip(t, "{\n}\n", "{\n  \"mcpServers\""));
    T_CHECK(jsonc_roundtrip(t, "{\"mcpServers\":{}}", "{\"mcpServers\":{\"loupe\""));
    T_CHECK(jsonc_roundtrip(t, "{\n  \"mcpServers\": {\n  }\n}", "{\n    \"loupe\""));
    T_CHECK(jsonc_roundtrip(t, "{\"a\":1,\"mcpServers\":{\"x\":{}}}", "{\"loupe\": {"));
    T_CHECK(jsonc_roundtrip(t,
                            "{\n\t// servers\n\t\"mcpServers\": {\n\t\t/* first */\n\t\t\"x\": "
                            "{\"command\": \"x\"}, // trailing\n\t},\n}",
                            "\t\t\"loupe\": {"));
    T_CHECK(jsonc_roundtrip(t, "{\"mcpServers\": {\"x\": 1, \"y\": [1, {\"z\": \"}\"}]}}",
                            "\"loupe\""));
done:;
}

T_TEST(install_jsonc_refuses_broken_files)
{
    lp_buf out;
    lp_buf_init(&out, 0);
    json_t *v = js("{}");
    lp_edit_result res;
    lp_edit_created cr;
    lp_error err = {0};
    const char *bad[] = {"{\"a\": }", "[1]", "{\"mcpServers\": []}", "{\"a\": 1 /* open",
                         "{\"a\": 1} trailing"};
    for (size_t i = 0; i < LP_ARRAY_LEN(bad); i++)
        T_CHECK_MSG(lp_jsonc_set_member(bad[i], strlen(bad[i]), "mcpServers", "loupe", v, &out,
                                        &res, &cr, &err) == LP_EINVAL,
                    "accepted %s", bad[i]);
done:
    json_decref(v);
    lp_buf_release(&out);
}

static int toml_roundtrip(lp_t *t, const char *orig)
{
    int ok = 0;
    static const char *const args[] = {"mcp", NULL};
    static const char *const env[] = {"LOUPE_AUTO_SYNC", "1", NULL};
    lp_buf out, back, cmd;
    lp_buf_init(&out, 0);
    lp_buf_init(&back, 0);
    lp_buf_init(&cmd, 0);
    lp_edit_result res;
    lp_edit_created cr;
    lp_error err = {0};
    T_CHECK_OK(lp_toml_set_server(orig, strlen(orig), "mcp_servers.loupe", "/a \"b\"/loupe",
                                  args, env, &out, &res, &cr, &err),
               &err);
    T_CHECK(res == LP_EDIT_ADDED);
    T_CHECK(strstr(out.ptr, "env = { LOUPE_AUTO_SYNC = \"1\" }\n") != NULL);
    T_CHECK(lp_toml_get_command(out.ptr, out.len, "mcp_servers.loupe", &cmd, NULL));
    T_CHECK_STR(cmd.ptr, "/a \"b\"/loupe");
    lp_buf again;
    lp_buf_init(&again, 0);
    lp_edit_created cr2;
    lp_toml_set_server(out.ptr, out.len, "mcp_servers.loupe", "/a \"b\"/loupe", args, env,
                       &again, &res, &cr2, &err);
    lp_buf_release(&again);
    T_CHECK(res == LP_EDIT_UNCHANGED);
    T_CHECK_OK(lp_toml_remove_server(out.ptr, out.len, "mcp_servers.loupe", cr.prefix, &back,
                                     &res, &err),
               &err);
    T_CHECK_MSG(!strcmp(back.ptr, orig), "got [%s] want [%s]", back.ptr, orig);
    ok = 1;
done:
    lp_buf_release(&out);
    lp_buf_release(&back);
    lp_buf_release(&cmd);
    return ok;
}

T_TEST(install_toml_edits_are_exact_inverses)
{
    T_CHECK(toml_roundtrip(t, ""));
    T_CHECK(toml_roundtrip(t, "model = \"o3\""));
    T_CHECK(toml_roundtrip(t, "# c\nmodel = \"o3\"\n"));
    T_CHECK(toml_roundtrip(t, "[mcp_servers.x]\ncommand = \"x\"\nargs = [\n  \"a\", # c\n  \"]\",\n]\n"
                              "[mcp_servers.x.env]\nK = '''\n[mcp_servers.loupe]\n'''\n"));
done:;
}

T_TEST(install_toml_refuses_other_forms)
{
    static const char *const args[] = {"mcp", NULL};
    lp_buf out;
    lp_buf_init(&out, 0);
    lp_edit_result res;
    lp_edit_created cr;
    lp_error err = {0};
    const char *forms[] = {"[mcp_servers]\nloupe = { command = \"x\" }\n",
                           "mcp_servers.loupe.command = \"x\"\n"};
    for (size_t i = 0; i < LP_ARRAY_LEN(forms); i++)
        T_CHECK_MSG(lp_toml_set_server(forms[i], strlen(forms[i]), "mcp_servers.loupe", "/l",
                                       args, NULL, &out, &res, &cr, &err) == LP_EINVAL,
                    "accepted %s", forms[i]);
done:
    lp_buf_release(&out);
}
