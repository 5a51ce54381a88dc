/* SPDX-License-Identifier: MIT */
// sources: src/core/info.c src/core/objtab.c
/* Unit test of src/core/info.c: set/get round trips, insertion order for
 * MPI_Info_get_nthkey, overwrite and delete, the key and value length limits
 * and their error classes, MPI_Info_get truncation, MPI-4 MPI_Info_get_string
 * buflen semantics, dup independence, MPI_INFO_NULL and freed handles,
 * MPI_INFO_ENV, MPI_Info_create_env, and the helpers of info.h.
 * Build: cc -Iinclude -Isrc tests/unit/test_info.c src/core/info.c src/core/objtab.c */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/core.h"
#include "core/info.h"
#include "core/api_comm.h"

static int failures, checks;
#define CHECK(cond, ...)                                                  \
    do {                                                                  \
        checks++;                                                         \
        if (!(cond)) {                                                    \
            failures++;                                                   \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                 \
            fputc('\n', stderr);                                          \
        }                                                                 \
    } while (0)

/* ---- stubs for the rest of the core ------------------------------------ */
cr_proc_t cr_proc;
static int last_error_class;
static char last_error_msg[512];
int cr_error(int cls, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error_msg, sizeof last_error_msg, fmt, ap);
    va_end(ap);
    last_error_class = cls;
    return cls;   /* the class is a valid code of itself */
}

/* MPI_Info_free as the binding calls it: the object, then the handle nulled. */
static int free_h(MPI_Info *h)
{
    int rc = core_info_free(cr_info_ptr(*h));
    if (rc == MPI_SUCCESS) *h = MPI_INFO_NULL;
    return rc;
}

static const char *get(MPI_Info info, const char *key)
{
    static char buf[MPI_MAX_INFO_VAL];
    int flag = -1;
    int rc = core_info_get(cr_info_ptr(info), key, MPI_MAX_INFO_VAL - 1, buf, &flag);
    return rc == MPI_SUCCESS && flag ? buf : NULL;
}

static void test_round_trip(void)
{
    MPI_Info info;
    int n = -1, flag = -1, len = -1;
    char key[MPI_MAX_INFO_KEY];
    CHECK(core_info_create(&info) == MPI_SUCCESS, "create");
    CHECK(CR_H_KIND(info) == CR_K_INFO && CR_H_STORAGE(info) == CR_ST_USER, "handle 0x%x", info);
    CHECK(cr_info_ptr(info) != NULL, "cr_info_ptr of a new info");
    core_info_get_nkeys(cr_info_ptr(info), &n);
    CHECK(n == 0, "nkeys %d", n);
    const char *keys[] = { "zeta", "alpha", "mid", "b" };
    const char *vals[] = { "1", "two words", "", "x=y" };
    for (int i = 0; i < 4; i++)
        CHECK(core_info_set(cr_info_ptr(info), keys[i], vals[i]) == MPI_SUCCESS, "set %s", keys[i]);
    core_info_get_nkeys(cr_info_ptr(info), &n);
    CHECK(n == 4, "nkeys %d", n);
    for (int i = 0; i < 4; i++) {
        const char *v = get(info, keys[i]);
        CHECK(v && strcmp(v, vals[i]) == 0, "get %s = %s", keys[i], v ? v : "(absent)");
        CHECK(core_info_get_nthkey(cr_info_ptr(info), i, key) == MPI_SUCCESS && strcmp(key, keys[i]) == 0,
              "nthkey %d = %s, want %s (insertion order)", i, key, keys[i]);
        CHECK(core_info_get_valuelen(cr_info_ptr(info), keys[i], &len, &flag) == MPI_SUCCESS && flag &&
              len == (int)strlen(vals[i]), "valuelen %s = %d", keys[i], len);
    }
    /* overwrite keeps the position; absent keys give flag 0 */
    CHECK(core_info_set(cr_info_ptr(info), "alpha", "new") == MPI_SUCCESS, "overwrite");
    core_info_get_nthkey(cr_info_ptr(info), 1, key);
    CHECK(strcmp(key, "alpha") == 0 && strcmp(get(info, "alpha"), "new") == 0, "overwrite in place");
    CHECK(get(info, "nosuch") == NULL, "absent key");
    flag = 7;
    CHECK(core_info_get_valuelen(cr_info_ptr(info), "nosuch", &len, &flag) == MPI_SUCCESS && flag == 0,
          "valuelen of absent key: flag %d", flag);
    /* delete keeps the order of the rest */
    CHECK(core_info_delete(cr_info_ptr(info), "zeta") == MPI_SUCCESS, "delete");
    core_info_get_nkeys(cr_info_ptr(info), &n);
    core_info_get_nthkey(cr_info_ptr(info), 0, key);
    CHECK(n == 3 && strcmp(key, "alpha") == 0, "after delete: n=%d first=%s", n, key);
    CHECK(core_info_delete(cr_info_ptr(info), "zeta") == MPI_ERR_INFO_NOKEY, "delete twice: class %d",
          last_error_class);
    CHECK(core_info_get_nthkey(cr_info_ptr(info), 3, key) == MPI_ERR_ARG, "nthkey out of range");
    CHECK(core_info_get_nthkey(cr_info_ptr(info), -1, key) == MPI_ERR_ARG, "nthkey -1");
    /* cr_info_get */
    CHECK(cr_info_get(cr_info_ptr(info), "b") && strcmp(cr_info_get(cr_info_ptr(info), "b"), "x=y") == 0, "lookup");
    CHECK(cr_info_get(cr_info_ptr(info), "zeta") == NULL, "lookup of a deleted key");
    CHECK(cr_info_get(NULL, "b") == NULL, "lookup on MPI_INFO_NULL");
    CHECK(free_h(&info) == MPI_SUCCESS && info == MPI_INFO_NULL, "free");
}

static void test_limits(void)
{
    MPI_Info info;
    char key[MPI_MAX_INFO_KEY + 8], val[MPI_MAX_INFO_VAL + 8];
    core_info_create(&info);
    memset(key, 'k', sizeof key);
    key[MPI_MAX_INFO_KEY - 1] = '\0';      /* longest allowed key */
    CHECK(core_info_set(cr_info_ptr(info), key, "v") == MPI_SUCCESS, "key of %d chars", MPI_MAX_INFO_KEY - 1);
    key[MPI_MAX_INFO_KEY - 1] = 'k';
    key[MPI_MAX_INFO_KEY] = '\0';
    CHECK(core_info_set(cr_info_ptr(info), key, "v") == MPI_ERR_INFO_KEY, "key of %d chars: class %d",
          MPI_MAX_INFO_KEY, last_error_class);
    CHECK(strstr(last_error_msg, "MPI_Info_set") != NULL, "message names the call: %s", last_error_msg);
    int flag;
    char out[4];
    CHECK(core_info_get(cr_info_ptr(info), key, 3, out, &flag) == MPI_ERR_INFO_KEY, "get with a long key");
    CHECK(core_info_set(cr_info_ptr(info), "", "v") == MPI_ERR_INFO_KEY, "empty key");
    memset(val, 'v', sizeof val);
    val[MPI_MAX_INFO_VAL - 1] = '\0';
    CHECK(core_info_set(cr_info_ptr(info), "big", val) == MPI_SUCCESS, "value of %d chars", MPI_MAX_INFO_VAL - 1);
    val[MPI_MAX_INFO_VAL - 1] = 'v';
    val[MPI_MAX_INFO_VAL] = '\0';
    CHECK(core_info_set(cr_info_ptr(info), "big2", val) == MPI_ERR_INFO_VALUE, "value of %d chars: class %d",
          MPI_MAX_INFO_VAL, last_error_class);
    CHECK(core_info_set(cr_info_ptr(info), "nullv", NULL) == MPI_ERR_INFO_VALUE, "NULL value");
    CHECK(core_info_get(cr_info_ptr(info), "big", -1, out, &flag) == MPI_ERR_ARG, "negative valuelen");
    free_h(&info);
}

static void test_truncation(void)
{
    MPI_Info info;
    char buf[16];
    int flag, buflen;
    core_info_create(&info);
    core_info_set(cr_info_ptr(info), "k", "abcdefgh");   /* 8 characters */
    /* MPI_Info_get: valuelen characters plus a NUL */
    memset(buf, '#', sizeof buf);
    CHECK(core_info_get(cr_info_ptr(info), "k", 3, buf, &flag) == MPI_SUCCESS && flag, "get");
    CHECK(strcmp(buf, "abc") == 0 && buf[4] == '#', "get truncates to 3: %s", buf);
    CHECK(core_info_get(cr_info_ptr(info), "k", 0, buf, &flag) == MPI_SUCCESS && buf[0] == '\0', "valuelen 0");
    /* MPI_Info_get_string: buflen counts the NUL; returns the size needed */
    memset(buf, '#', sizeof buf);
    buflen = 4;
    CHECK(core_info_get_string(cr_info_ptr(info), "k", &buflen, buf, &flag) == MPI_SUCCESS && flag, "get_string");
    CHECK(strcmp(buf, "abc") == 0 && buf[4] == '#', "get_string truncates to 3 + NUL: %s", buf);
    CHECK(buflen == 9, "get_string reports the size needed: %d", buflen);
    buflen = 0;
    CHECK(core_info_get_string(cr_info_ptr(info), "k", &buflen, NULL, &flag) == MPI_SUCCESS && flag &&
          buflen == 9, "get_string with buflen 0 asks for the size: %d", buflen);
    buflen = 9;
    CHECK(core_info_get_string(cr_info_ptr(info), "k", &buflen, buf, &flag) == MPI_SUCCESS &&
          strcmp(buf, "abcdefgh") == 0 && buflen == 9, "exact fit: %s %d", buf, buflen);
    buflen = 5;
    flag = 7;
    CHECK(core_info_get_string(cr_info_ptr(info), "nosuch", &buflen, buf, &flag) == MPI_SUCCESS && flag == 0 &&
          buflen == 5, "absent key: flag %d buflen %d", flag, buflen);
    buflen = -1;
    CHECK(core_info_get_string(cr_info_ptr(info), "k", &buflen, buf, &flag) == MPI_ERR_ARG, "negative buflen");
    free_h(&info);
}

static void test_dup_and_handles(void)
{
    MPI_Info a, b, c;
    int n;
    core_info_create(&a);
    core_info_set(cr_info_ptr(a), "one", "1");
    core_info_set(cr_info_ptr(a), "two", "2");
    CHECK(core_info_dup(cr_info_ptr(a), &b) == MPI_SUCCESS && b != a, "dup");
    core_info_set(cr_info_ptr(a), "one", "changed");
    core_info_set(cr_info_ptr(b), "three", "3");
    CHECK(strcmp(get(b, "one"), "1") == 0, "dup is a copy, not a reference");
    core_info_get_nkeys(cr_info_ptr(a), &n);
    CHECK(n == 2, "original unchanged: %d keys", n);
    CHECK(cr_info_to_user(NULL, &c) == MPI_SUCCESS && c != MPI_INFO_NULL,
          "cr_info_to_user(NULL): an empty info");
    CHECK(core_info_get_nkeys(cr_info_ptr(c), &n) == MPI_SUCCESS && n == 0, "empty: %d keys", n);
    free_h(&c);
    CHECK(cr_info_to_user(cr_info_ptr(b), &c) == MPI_SUCCESS && c != b &&
          strcmp(get(c, "three"), "3") == 0, "cr_info_to_user");
    MPI_Info stale = a;
    free_h(&a);
    CHECK(cr_info_ptr(stale) == NULL, "freed handle is invalid");
    CHECK(core_info_set(cr_info_ptr(stale), "x", "y") == MPI_ERR_INFO, "set on freed info: class %d",
          last_error_class);
    CHECK(core_info_get_nkeys(cr_info_ptr(MPI_INFO_NULL), &n) == MPI_ERR_INFO, "nkeys of MPI_INFO_NULL");
    CHECK(core_info_set(cr_info_ptr(MPI_INFO_NULL), "x", "y") == MPI_ERR_INFO, "set on MPI_INFO_NULL");
    CHECK(core_info_dup(cr_info_ptr(MPI_INFO_NULL), &c) == MPI_ERR_INFO, "dup of MPI_INFO_NULL");
    MPI_Info null = MPI_INFO_NULL;
    CHECK(free_h(&null) == MPI_ERR_INFO, "free of MPI_INFO_NULL");
    free_h(&b);
    free_h(&c);
    /* many infos: handles are reused, lookups stay right */
    MPI_Info many[3000];
    char v[16];
    for (int i = 0; i < 3000; i++) {
        core_info_create(&many[i]);
        snprintf(v, sizeof v, "%d", i);
        core_info_set(cr_info_ptr(many[i]), "i", v);
    }
    int bad = 0;
    for (int i = 0; i < 3000; i++) {
        snprintf(v, sizeof v, "%d", i);
        bad += strcmp(get(many[i], "i"), v) != 0;
        free_h(&many[i]);
    }
    CHECK(bad == 0, "%d of 3000 infos had the wrong value", bad);
}

static void test_env(void)
{
    char buf[MPI_MAX_INFO_VAL];
    int flag = 0, n = 0;
    CHECK(cr_info_ptr(MPI_INFO_ENV) != NULL, "MPI_INFO_ENV exists before MPI_Init");
    CHECK(core_info_get(cr_info_ptr(MPI_INFO_ENV), "command", sizeof buf - 1, buf, &flag) == MPI_SUCCESS && flag,
          "MPI_INFO_ENV has command");
    CHECK(flag && strstr(buf, "unit_test_info") != NULL, "command = %s", buf);
    CHECK(core_info_get(cr_info_ptr(MPI_INFO_ENV), "argv", sizeof buf - 1, buf, &flag) == MPI_SUCCESS &&
          flag && strcmp(buf, "first second") == 0, "argv = %s", flag ? buf : "(absent)");
    CHECK(core_info_get(cr_info_ptr(MPI_INFO_ENV), "host", sizeof buf - 1, buf, &flag) == MPI_SUCCESS && flag,
          "host");
    CHECK(core_info_get(cr_info_ptr(MPI_INFO_ENV), "maxprocs", sizeof buf - 1, buf, &flag) == MPI_SUCCESS &&
          !flag, "no maxprocs before MPI_Init");
    /* after "MPI_Init" the runtime keys appear */
    cr_proc.state = CR_STATE_INIT;
    cr_proc.world_size = 3;
    cr_proc.thread_level = MPI_THREAD_FUNNELED;
    CHECK(core_info_get(cr_info_ptr(MPI_INFO_ENV), "maxprocs", sizeof buf - 1, buf, &flag) == MPI_SUCCESS &&
          flag && strcmp(buf, "3") == 0, "maxprocs = %s", flag ? buf : "(absent)");
    CHECK(core_info_get(cr_info_ptr(MPI_INFO_ENV), "thread_level", sizeof buf - 1, buf, &flag) == MPI_SUCCESS &&
          flag && strcmp(buf, "MPI_THREAD_FUNNELED") == 0, "thread_level = %s", flag ? buf : "(absent)");
    MPI_Info env = MPI_INFO_ENV;
    CHECK(free_h(&env) == MPI_ERR_INFO && env == MPI_INFO_ENV, "MPI_INFO_ENV cannot be freed");
    /* MPI_Info_create_env from explicit arguments */
    char *argv[] = { "prog", "-x", "7", NULL };
    MPI_Info e;
    CHECK(core_info_create_env(3, (void *)argv, &e) == MPI_SUCCESS, "create_env");
    CHECK(strcmp(get(e, "command"), "prog") == 0 && strcmp(get(e, "argv"), "-x 7") == 0,
          "create_env command/argv");
    core_info_get_nkeys(cr_info_ptr(e), &n);
    CHECK(n >= 4, "create_env keys: %d", n);
    free_h(&e);
}

int main(int argc, char **argv)
{
    /* MPI_INFO_ENV's argv key is checked against these arguments */
    if (argc == 1) {
        char *args[] = { argv[0], "first", "second", NULL };
        execv("/proc/self/exe", args);
        perror("execv");
        return 1;
    }
    test_round_trip();
    test_limits();
    test_truncation();
    test_dup_and_handles();
    test_env();
    printf("%s: %d checks, %d failures\n", failures ? "FAIL" : "PASS", checks, failures);
    return failures != 0;
}
