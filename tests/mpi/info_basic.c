/* SPDX-License-Identifier: MIT */
/* Info objects through the MPI interface: round trips, MPI_Info_get_nthkey in
 * insertion order, overwrite in place, delete, MPI_Info_get truncation,
 * MPI_Info_get_string (MPI-4 buflen semantics), dup independence, free, and
 * the error classes for bad keys, values, missing keys and MPI_INFO_NULL. */
#include "mpitest.h"

static void check_value(MPI_Info info, const char *key, const char *want)
{
    char buf[MPI_MAX_INFO_VAL + 1];
    int flag = -1;
    CHECK_MPI(MPI_Info_get(info, key, MPI_MAX_INFO_VAL, buf, &flag));
    if (!want) {
        CHECK(flag == 0, "key %s: present (%s), expected absent", key, buf);
        return;
    }
    CHECK(flag == 1 && strcmp(buf, want) == 0, "key %s: flag %d value \"%s\", expected \"%s\"",
          key, flag, flag ? buf : "", want);
}

int main(int argc, char **argv)
{
    MPI_Info info, copy;
    int rank, n, flag, len, rc;
    char key[MPI_MAX_INFO_KEY + 1], buf[64];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    CHECK_MPI(MPI_Info_create(&info));
    CHECK(info != MPI_INFO_NULL, "MPI_Info_create gave MPI_INFO_NULL");
    CHECK_MPI(MPI_Info_get_nkeys(info, &n));
    CHECK_INT(n, 0);
    const char *keys[] = { "wdir", "cb_nodes", "host", "my_key" };
    char vals[4][32];
    for (int i = 0; i < 4; i++) {
        snprintf(vals[i], sizeof vals[i], "value-%d-rank-%d", i, rank);
        CHECK_MPI(MPI_Info_set(info, keys[i], vals[i]));
    }
    CHECK_MPI(MPI_Info_get_nkeys(info, &n));
    CHECK_INT(n, 4);
    for (int i = 0; i < 4; i++) {
        check_value(info, keys[i], vals[i]);
        CHECK_MPI(MPI_Info_get_nthkey(info, i, key));
        CHECK(strcmp(key, keys[i]) == 0, "nthkey %d = %s, expected %s", i, key, keys[i]);
        CHECK_MPI(MPI_Info_get_valuelen(info, keys[i], &len, &flag));
        CHECK(flag == 1 && len == (int)strlen(vals[i]), "valuelen of %s: flag %d len %d", keys[i],
              flag, len);
    }
    check_value(info, "absent", NULL);
    CHECK_MPI(MPI_Info_get_valuelen(info, "absent", &len, &flag));
    CHECK_INT(flag, 0);

    /* overwrite keeps the key's place */
    CHECK_MPI(MPI_Info_set(info, "cb_nodes", "8"));
    CHECK_MPI(MPI_Info_get_nkeys(info, &n));
    CHECK_INT(n, 4);
    CHECK_MPI(MPI_Info_get_nthkey(info, 1, key));
    CHECK(strcmp(key, "cb_nodes") == 0, "nthkey 1 after overwrite = %s", key);
    check_value(info, "cb_nodes", "8");

    /* MPI_Info_get: at most valuelen characters, then a NUL */
    CHECK_MPI(MPI_Info_set(info, "long", "0123456789"));
    memset(buf, '#', sizeof buf);
    rc = MPI_Info_get(info, "long", 4, buf, &flag);
#ifndef MT_REFERENCE_MPICH
    /* MPICH 4.0 truncates too, but also returns MPI_ERR_INFO_VALUE */
    CHECK_INT(rc, MPI_SUCCESS);
#endif
    CHECK(flag == 1 && strcmp(buf, "0123") == 0, "truncated get: \"%s\"", buf);

    /* MPI_Info_get_string: buflen counts the NUL; it returns the size needed */
    memset(buf, '#', sizeof buf);
    int buflen = 5;
    CHECK_MPI(MPI_Info_get_string(info, "long", &buflen, buf, &flag));
    CHECK(flag == 1 && strcmp(buf, "0123") == 0, "get_string truncated: \"%s\"", buf);
    CHECK_INT(buflen, 11);
    CHECK(buf[5] == '#', "get_string wrote past buflen");
    buflen = 0;
    buf[0] = '#';
    CHECK_MPI(MPI_Info_get_string(info, "long", &buflen, buf, &flag));
    CHECK(buf[0] == '#', "get_string with buflen 0 wrote to value");
    CHECK(flag == 1 && buflen == 11, "get_string size query: flag %d buflen %d", flag, buflen);
    buflen = 11;
    CHECK_MPI(MPI_Info_get_string(info, "long", &buflen, buf, &flag));
    CHECK(flag == 1 && strcmp(buf, "0123456789") == 0 && buflen == 11, "exact: \"%s\" %d", buf,
          buflen);
    buflen = 7;
    CHECK_MPI(MPI_Info_get_string(info, "absent", &buflen, buf, &flag));
    CHECK(flag == 0 && buflen == 7, "absent key: flag %d buflen %d", flag, buflen);

    /* dup is an independent copy in the same order */
    CHECK_MPI(MPI_Info_dup(info, &copy));
    CHECK_MPI(MPI_Info_set(info, "wdir", "changed"));
    CHECK_MPI(MPI_Info_delete(copy, "host"));
    check_value(copy, "wdir", vals[0]);
    check_value(info, "host", vals[2]);
    CHECK_MPI(MPI_Info_get_nkeys(copy, &n));
    CHECK_INT(n, 4);
    const char *after[] = { "wdir", "cb_nodes", "my_key", "long" };
    for (int i = 0; i < n && i < 4; i++) {
        CHECK_MPI(MPI_Info_get_nthkey(copy, i, key));
        CHECK(strcmp(key, after[i]) == 0, "dup nthkey %d = %s, expected %s", i, key, after[i]);
    }

    /* errors */
    rc = MPI_Info_delete(copy, "host");
    CHECK_CLASS(rc, MPI_ERR_INFO_NOKEY);
    char longkey[MPI_MAX_INFO_KEY + 2];
    memset(longkey, 'k', sizeof longkey);
    longkey[MPI_MAX_INFO_KEY + 1] = '\0';
    rc = MPI_Info_set(info, longkey, "v");
    CHECK_CLASS(rc, MPI_ERR_INFO_KEY);
    rc = MPI_Info_set(info, "", "v");
    CHECK_CLASS(rc, MPI_ERR_INFO_KEY);
    static char longval[MPI_MAX_INFO_VAL + 2];
    memset(longval, 'v', sizeof longval);
    longval[MPI_MAX_INFO_VAL + 1] = '\0';
    rc = MPI_Info_set(info, "k", longval);
    CHECK_CLASS(rc, MPI_ERR_INFO_VALUE);
    rc = MPI_Info_get_nthkey(info, 99, key);
    CHECK_CLASS(rc, MPI_ERR_ARG);
#ifndef MT_REFERENCE_MPICH
    /* MPICH 4.0 reports MPI_INFO_NULL as MPI_ERR_ARG */
    rc = MPI_Info_set(MPI_INFO_NULL, "k", "v");
    CHECK_CLASS(rc, MPI_ERR_INFO);
    rc = MPI_Info_get_nkeys(MPI_INFO_NULL, &n);
    CHECK_CLASS(rc, MPI_ERR_INFO);
#endif

    CHECK_MPI(MPI_Info_free(&copy));
    CHECK(copy == MPI_INFO_NULL, "freed info is 0x%x", copy);
    CHECK_MPI(MPI_Info_free(&info));
    CHECK(info == MPI_INFO_NULL, "freed info is 0x%x", info);

    rc = mt_finish("info_basic");
    MPI_Finalize();
    return rc;
}
