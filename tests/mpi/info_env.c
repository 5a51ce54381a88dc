/* SPDX-License-Identifier: MIT */
/* MPI_INFO_ENV and MPI_Info_create_env: "command" names this program, info
 * calls work before MPI_Init (MPI-4), and the env info can be read and
 * duplicated like any other.  MPI_Info_create_env gives the same keys and
 * values before MPI_Init, after it and after MPI_Finalize (the standard's
 * "same construction"; MPICH's info/infocreateenv), and its maxprocs is the
 * size of MPI_COMM_WORLD. */
#include "mpitest.h"

/* The keys the standard defines for MPI_INFO_ENV. */
static const char *const env_keys[] = { "command", "argv", "maxprocs", "soft", "host", "arch",
                                        "wdir", "file", "thread_level" };
enum { NKEYS = sizeof env_keys / sizeof env_keys[0] };

/* The number of env_keys whose presence or value differs between a and b
 * (usable without MPI being initialized); prints each difference. */
static int env_differences(MPI_Info a, MPI_Info b, const char *when)
{
    int diff = 0;
    for (int i = 0; i < NKEYS; i++) {
        char va[MPI_MAX_INFO_VAL], vb[MPI_MAX_INFO_VAL];
        int fa = 0, fb = 0, la = MPI_MAX_INFO_VAL, lb = MPI_MAX_INFO_VAL;
        MPI_Info_get_string(a, env_keys[i], &la, va, &fa);
        MPI_Info_get_string(b, env_keys[i], &lb, vb, &fb);
        if (fa != fb || (fa && strcmp(va, vb) != 0)) {
            fprintf(stderr, "FAIL MPI_Info_create_env %s: key %s: \"%s\" (flag %d), first "
                    "\"%s\" (flag %d)\n", when, env_keys[i], fa ? va : "", fa, fb ? vb : "", fb);
            diff++;
        }
    }
    return diff;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* Is a missing "command" key acceptable?  Only for the reference MPICH. */
static int mt_env_ok(int flag)
{
#ifdef MT_REFERENCE_MPICH
    (void)flag;
    return 1;
#else
    return flag == 1;
#endif
}

int main(int argc, char **argv)
{
    char buf[MPI_MAX_INFO_VAL + 1];
    int flag = -1, n = -1, pre_errors = 0;
    MPI_Info pre = MPI_INFO_NULL, env, copy, first, again;

    /* MPI-4: MPI_Info_create_env may run before MPI_Init (MPICH 4.0 too) */
    MPI_Info_create_env(argc, argv, &first);

#ifndef MT_REFERENCE_MPICH
    /* before MPI_Init (MPI-4 lets every MPI_Info_* run then) */
    if (MPI_Info_create(&pre) != MPI_SUCCESS) pre_errors++;
    else if (MPI_Info_set(pre, "before", "init") != MPI_SUCCESS) pre_errors++;
    if (MPI_Info_get(MPI_INFO_ENV, "command", MPI_MAX_INFO_VAL, buf, &flag) != MPI_SUCCESS || !flag)
        pre_errors++;
#endif
    MPI_Init(&argc, &argv);
    CHECK_INT(pre_errors, 0);
    if (pre != MPI_INFO_NULL) {
        CHECK_MPI(MPI_Info_get(pre, "before", MPI_MAX_INFO_VAL, buf, &flag));
        CHECK(flag && strcmp(buf, "init") == 0, "info made before MPI_Init: %s", flag ? buf : "");
        CHECK_MPI(MPI_Info_free(&pre));
    }

    /* MPICH 4.0 under Hydra leaves MPI_INFO_ENV (and MPI_Info_create_env) empty:
     * the standard lets an implementation omit any key */
    CHECK_MPI(MPI_Info_get(MPI_INFO_ENV, "command", MPI_MAX_INFO_VAL, buf, &flag));
#ifndef MT_REFERENCE_MPICH
    CHECK_INT(flag, 1);
#endif
    CHECK(!flag || strcmp(base_name(buf), base_name(argv[0])) == 0, "command = \"%s\", argv[0] = \"%s\"",
          buf, argv[0]);
    CHECK_MPI(MPI_Info_get_nkeys(MPI_INFO_ENV, &n));
#ifndef MT_REFERENCE_MPICH
    CHECK(n >= 1, "MPI_INFO_ENV has %d keys", n);
#endif
    /* every key it lists can be read */
    for (int i = 0; i < n; i++) {
        char key[MPI_MAX_INFO_KEY + 1];
        int len = -1;
        CHECK_MPI(MPI_Info_get_nthkey(MPI_INFO_ENV, i, key));
        CHECK_MPI(MPI_Info_get_valuelen(MPI_INFO_ENV, key, &len, &flag));
        CHECK(flag == 1 && len >= 0, "MPI_INFO_ENV key %s: flag %d len %d", key, flag, len);
    }
    CHECK_MPI(MPI_Info_dup(MPI_INFO_ENV, &copy));
    CHECK_MPI(MPI_Info_get(copy, "command", MPI_MAX_INFO_VAL, buf, &flag));
    CHECK(mt_env_ok(flag) && (!flag || strcmp(base_name(buf), base_name(argv[0])) == 0),
          "dup of env: command %s", flag ? buf : "(absent)");
    CHECK_MPI(MPI_Info_free(&copy));

    CHECK_MPI(MPI_Info_create_env(argc, argv, &env));
    CHECK_MPI(MPI_Info_get(env, "command", MPI_MAX_INFO_VAL, buf, &flag));
    CHECK(mt_env_ok(flag) && (!flag || strcmp(base_name(buf), base_name(argv[0])) == 0),
          "create_env command = %s", flag ? buf : "(absent)");
    CHECK_MPI(MPI_Info_free(&env));

    /* the same construction after MPI_Init as before it */
    CHECK_MPI(MPI_Info_create_env(argc, argv, &again));
    CHECK_INT(env_differences(again, first, "after MPI_Init"), 0);
    CHECK_MPI(MPI_Info_get(again, "argv", MPI_MAX_INFO_VAL, buf, &flag));
#ifndef MT_REFERENCE_MPICH
    CHECK(flag == (argc > 1), "argv key: flag %d with argc %d", flag, argc);
#endif
    if (flag && argc == 2) CHECK(strcmp(buf, argv[1]) == 0, "argv = \"%s\"", buf);
    CHECK_MPI(MPI_Info_get(again, "maxprocs", MPI_MAX_INFO_VAL, buf, &flag));
#ifndef MT_REFERENCE_MPICH
    CHECK_INT(flag, 1);
#endif
    if (flag) {
        int size;
        MPI_Comm_size(MPI_COMM_WORLD, &size);
        CHECK_INT(atoi(buf), size);
    }
    CHECK_MPI(MPI_Info_free(&again));

    int rc = mt_finish("info_env");
    MPI_Finalize();
    /* and after MPI_Finalize */
    MPI_Info_create_env(argc, argv, &again);
    if (env_differences(again, first, "after MPI_Finalize")) rc = 1;
    MPI_Info_free(&again);
    MPI_Info_free(&first);
    return rc;
}
