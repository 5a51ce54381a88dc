/* SPDX-License-Identifier: MIT */
// sources: src/pmi/pmi.c src/pmi/pmi_wire.c src/pmi/pmix.c src/util/settings.c
/* Unit test of the PMI wire protocols (src/pmi/pmi_wire.c) against a scripted
 * launcher on the other end of a socketpair (a thread): the PMI-2 session as
 * Slurm's pmi2 plugin speaks it (init in PMI-1 form, then length-prefixed
 * messages, fullinit with pmijobid/pmirank, job-getid, kvs-put/fence/get with
 * ";;" escapes, info-getjobattr for the process mapping, finalize), replies
 * cut into pieces, a launcher that answers a PMI-2 request with PMI-1 (the
 * connection goes on in PMI-1), a value over the launcher's limit stored in
 * parts and joined again by crpmi_get, a forced PMI-2 that the launcher
 * refuses, the lost connection that crpmi_check() reports, argument errors,
 * and the PMI_process_mapping parser.
 * Build: cc -Isrc tests/unit/test_pmi_wire.c src/pmi/pmi.c src/pmi/pmi_wire.c
 *        src/pmi/pmix.c src/util/settings.c -lpthread */
#define _GNU_SOURCE
#include "pmi/pmi_impl.h"
#include "util/settings.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int failures, checks;
#define CHECK(cond, ...)                                                    \
    do {                                                                    \
        checks++;                                                           \
        if (!(cond)) {                                                      \
            failures++;                                                     \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                   \
            fputc('\n', stderr);                                            \
        }                                                                   \
    } while (0)

/* ---- the scripted launcher ------------------------------------------------- */

typedef struct {
    int fd;
    int script;            /* which conversation (SCRIPT_*) */
    int errors;            /* requests that differed from the script */
    char seen[8192];       /* every request, for checks after the session */
} server_t;

enum { SCRIPT_PMI2, SCRIPT_DOWNGRADE, SCRIPT_REFUSE };

static int srv_read_exact(server_t *s, char *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(s->fd, buf + got, len - got);
        if (n <= 0) return -1;
        got += (size_t)n;
    }
    buf[len] = '\0';
    return 0;
}

static int srv_read_line(server_t *s, char *buf, size_t cap)
{
    size_t n = 0;
    while (n + 1 < cap) {
        if (read(s->fd, buf + n, 1) != 1) return -1;
        if (buf[n] == '\n') break;
        n++;
    }
    buf[n] = '\0';
    strncat(s->seen, buf, sizeof s->seen - strlen(s->seen) - 2);
    strcat(s->seen, "\n");
    return 0;
}

/* One PMI-2 request: 6-byte length, then the body. */
static int srv_read_msg(server_t *s, char *buf, size_t cap)
{
    char head[7];
    if (srv_read_exact(s, head, 6) < 0) return -1;
    long len = strtol(head, NULL, 10);
    if (len <= 0 || (size_t)len >= cap) return -1;
    if (srv_read_exact(s, buf, (size_t)len) < 0) return -1;
    strncat(s->seen, buf, sizeof s->seen - strlen(s->seen) - 2);
    strcat(s->seen, "\n");
    return 0;
}

/* Send a reply in pieces of 5 bytes, to exercise the client's reassembly. */
static void srv_send_raw(server_t *s, const char *msg)
{
    size_t len = strlen(msg);
    for (size_t off = 0; off < len; off += 5) {
        size_t n = len - off < 5 ? len - off : 5;
        if (write(s->fd, msg + off, n) != (ssize_t)n) return;
        usleep(200);
    }
}

static void srv_send_msg(server_t *s, const char *body)
{
    char buf[2048];
    snprintf(buf, sizeof buf, "%-6zu%s", strlen(body), body);
    srv_send_raw(s, buf);
}

/* Read a PMI-2 request, check it starts with `want`, answer `reply`. */
static void srv_step(server_t *s, const char *want, const char *reply)
{
    char buf[2048];
    if (srv_read_msg(s, buf, sizeof buf) < 0 || strncmp(buf, want, strlen(want))) {
        fprintf(stderr, "server: expected \"%s\", got \"%s\"\n", want, buf);
        s->errors++;
        return;
    }
    if (reply) srv_send_msg(s, reply);
}

static void *server_main(void *arg)
{
    server_t *s = arg;
    char line[2048];
    if (srv_read_line(s, line, sizeof line) < 0) return NULL;
    if (s->script == SCRIPT_REFUSE) {
        srv_send_raw(s, "cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1\n");
        return NULL;
    }
    if (s->script == SCRIPT_DOWNGRADE) {
        /* A PMI-1-only launcher: answers version 1, then the PMI-1 setup. */
        srv_send_raw(s, "cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1\n");
        /* the 599-byte value in parts of at most 511 (vallen_max 512) */
        static char part0[600], part1[600];
        snprintf(part0, sizeof part0, "cmd=get_result rc=0 msg=success value=%0511d\n", 0);
        snprintf(part1, sizeof part1, "cmd=get_result rc=0 msg=success value=%088d\n", 0);
        const char *replies[] = {
            "cmd=maxes rc=0 kvsname_max=256 keylen_max=64 vallen_max=512\n",
            "cmd=appnum rc=0 appnum=2\n",
            "cmd=universe_size rc=0 size=8\n",
            "cmd=my_kvsname rc=0 kvsname=kvs_down\n",
            "cmd=put_result rc=0 msg=success\n",   /* big:0 */
            "cmd=put_result rc=0 msg=success\n",   /* big:1 */
            "cmd=put_result rc=0 msg=success\n",   /* big */
            "cmd=put_result rc=0 msg=success\n",
            "cmd=barrier_out rc=0\n",
            "cmd=get_result rc=0 msg=success value=hello\n",
            "cmd=get_result rc=-1 msg=key_not_found\n",
            "cmd=get_result rc=0 msg=success value=%parts:2\n",
            part0,
            part1,
        };
        for (size_t i = 0; i < sizeof replies / sizeof *replies; i++) {
            if (srv_read_line(s, line, sizeof line) < 0) return NULL;
            srv_send_raw(s, replies[i]);
        }
        /* Then the launcher goes away. */
        shutdown(s->fd, SHUT_RDWR);
        return NULL;
    }
    /* SCRIPT_PMI2: Slurm's pmi2 plugin. */
    srv_send_raw(s, "cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0\n");
    srv_step(s, "cmd=fullinit;",
             "cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank=1;size=3;"
             "appnum=-1;debugged=FALSE;pmiverbose=FALSE;");
    srv_step(s, "cmd=job-getid;", "cmd=job-getid-response;rc=0;jobid=77.0;");
    srv_step(s, "cmd=info-getjobattr;key=universeSize;",
             "cmd=info-getjobattr-response;rc=0;found=TRUE;value=5;");
    srv_step(s, "cmd=kvs-put;key=host-1;value=node;", "cmd=kvs-put-response;rc=0;");
    srv_step(s, "cmd=kvs-fence;", "cmd=kvs-fence-response;rc=0;");
    srv_step(s, "cmd=kvs-get;", "cmd=kvs-get-response;rc=0;found=TRUE;value=a;;b=c;");
    srv_step(s, "cmd=kvs-get;", "cmd=kvs-get-response;rc=0;found=FALSE;");
    srv_step(s, "cmd=info-getjobattr;key=PMI_process_mapping;",
             "cmd=info-getjobattr-response;rc=0;found=TRUE;value=(vector,(0,2,2));");
    srv_step(s, "cmd=kvs-fence;", "cmd=kvs-fence-response;rc=1;errmsg=fence failed here;");
    srv_step(s, "cmd=finalize;", "cmd=finalize-response;rc=0;");
    return NULL;
}

/* Start a session: the launcher thread on one end, PMI_FD the other. */
static int session_start(server_t *s, pthread_t *th, int script, const char *jobid)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) return -1;
    memset(s, 0, sizeof *s);
    s->fd = sv[0];
    s->script = script;
    char fd[16];
    snprintf(fd, sizeof fd, "%d", sv[1]);
    setenv("PMI_FD", fd, 1);
    setenv("PMI_RANK", "1", 1);
    setenv("PMI_SIZE", "3", 1);
    if (jobid) setenv("PMI_JOBID", jobid, 1);
    else unsetenv("PMI_JOBID");
    pthread_create(th, NULL, server_main, s);
    return sv[1];
}

/* The client's end belongs to the PMI client (finalize closes it). */
static void session_end(server_t *s, pthread_t th)
{
    pthread_join(th, NULL);
    close(s->fd);
}

/* ---- the tests ---------------------------------------------------------------- */

static void test_pmi2(void)
{
    server_t s;
    pthread_t th;
    int cfd = session_start(&s, &th, SCRIPT_PMI2, "77.0");
    crpmi_info_t in;
    CHECK(crpmi_init(&in) == 0, "init");
    CHECK(!strcmp(in.flavour, "PMI-2"), "flavour %s", in.flavour);
    CHECK(in.rank == 1 && in.size == 3, "rank %d size %d", in.rank, in.size);
    CHECK(in.appnum == 0, "appnum %d (Slurm's -1 means not known: 0)", in.appnum);
    CHECK(in.universe_size == 5, "universe %d", in.universe_size);
    CHECK(!strcmp(in.kvsname, "77.0"), "jobid %s", in.kvsname);
    CHECK(in.max_key == 64 && in.max_val == 1024, "limits %d %d", in.max_key, in.max_val);
    CHECK(crpmi_put("host-1", "node") == 0, "put");
    CHECK(crpmi_barrier() == 0, "fence");
    char val[64];
    CHECK(crpmi_get(0, "host-0", val, sizeof val) == 0 && !strcmp(val, "a;b=c"),
          "escaped value: %s", val);
    CHECK(crpmi_get(2, "host-2", val, sizeof val) == -1, "missing key");
    int *ranks = NULL, n = 0;
    CHECK(crpmi_local_ranks(&ranks, &n) == 0 && n == 2 && ranks[0] == 0 && ranks[1] == 1,
          "local ranks: n=%d", n);
    free(ranks);
    char why[128];
    CHECK(crpmi_check(why, sizeof why) == 0, "check: %s", why);
    fprintf(stderr, "(a PMI error message follows, as it should)\n");
    CHECK(crpmi_barrier() == -1, "a fence the launcher fails");
    CHECK(crpmi_finalize() == 0, "finalize");
    session_end(&s, th);
    CHECK(fcntl(cfd, F_GETFD) == -1, "finalize closes PMI_FD");
    CHECK(s.errors == 0, "the client departed from the script %d times", s.errors);
    CHECK(strstr(s.seen, "cmd=init pmi_version=2 pmi_subversion=0\n") != NULL, "init: %s", s.seen);
    CHECK(strstr(s.seen, "cmd=fullinit;pmijobid=77.0;pmirank=1;threaded=FALSE;") != NULL,
          "fullinit: %s", s.seen);
    CHECK(strstr(s.seen, "cmd=kvs-get;jobid=77.0;srcid=-1;key=host-0;") != NULL, "get: %s", s.seen);
}

static void test_downgrade(void)
{
    server_t s;
    pthread_t th;
    /* PMI_JOBID set, so PMI-2 is asked for; the launcher only speaks PMI-1. */
    int cfd = session_start(&s, &th, SCRIPT_DOWNGRADE, "5");
    crpmi_info_t in;
    CHECK(crpmi_init(&in) == 0, "init");
    CHECK(!strcmp(in.flavour, "PMI-1"), "flavour %s", in.flavour);
    CHECK(in.appnum == 2 && in.universe_size == 8, "appnum %d universe %d", in.appnum,
          in.universe_size);
    CHECK(!strcmp(in.kvsname, "kvs_down") && in.max_val == 512, "kvs %s max %d", in.kvsname,
          in.max_val);
    fprintf(stderr, "(two PMI error messages follow, as they should)\n");
    CHECK(crpmi_put("bad key", "x") == -1, "white space in a key");
    /* a value over the launcher's limit goes in two parts and comes back whole */
    char big[600], got[700];
    memset(big, '0', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    CHECK(crpmi_put("big", big) == 0, "value over the launcher's limit");
    CHECK(strstr(s.seen, "cmd=put kvsname=kvs_down key=big:1 value=0000") != NULL &&
          strstr(s.seen, "cmd=put kvsname=kvs_down key=big value=%parts:2\n") != NULL,
          "parts: %s", s.seen);
    CHECK(crpmi_put("k", "hello") == 0, "put");
    CHECK(crpmi_barrier() == 0, "barrier");
    char val[64];
    CHECK(crpmi_get(0, "k", val, sizeof val) == 0 && !strcmp(val, "hello"), "get %s", val);
    CHECK(crpmi_get(0, "nokey", val, sizeof val) == -1, "missing key");
    CHECK(crpmi_get(0, "big", got, sizeof got) == 0 && !strcmp(got, big), "get of parts: %zu bytes",
          strlen(got));
    /* The launcher is gone now: crpmi_check says so. */
    pthread_join(th, NULL);
    char why[256] = "";
    CHECK(crpmi_check(why, sizeof why) == -1 && strstr(why, "lost the connection"), "check: %s",
          why);
    close(s.fd);
    crpmi_finalize();   /* fails (the launcher is gone); must not hang */
    CHECK(fcntl(cfd, F_GETFD) == -1, "finalize closes PMI_FD");
    CHECK(strstr(s.seen, "cmd=init pmi_version=2") != NULL, "asked for PMI-2: %s", s.seen);
    CHECK(strstr(s.seen, "cmd=get_maxes") != NULL, "went on in PMI-1: %s", s.seen);
}

static void test_forced_refused(void)
{
    server_t s;
    pthread_t th;
    int cfd = session_start(&s, &th, SCRIPT_REFUSE, NULL);
    ut_settings.pmi = 2;
    crpmi_info_t in;
    fprintf(stderr, "(a PMI error message follows, as it should)\n");
    CHECK(crpmi_init(&in) == -1, "COURIER_PMI=2 with a PMI-1 launcher must fail");
    ut_settings.pmi = 0;
    session_end(&s, th);
    close(cfd);   /* a failed init leaves the inherited descriptor alone */
    CHECK(strstr(s.seen, "cmd=init pmi_version=2") != NULL, "asked for PMI-2: %s", s.seen);
}

static void test_mapping(void)
{
    int *r = NULL, n = 0;
    CHECK(crpmi_parse_mapping("(vector,(0,1,4))", 2, 4, &r, &n) == 0 && n == 4 && r[3] == 3,
          "one node: n=%d", n);
    free(r);
    CHECK(crpmi_parse_mapping("(vector,(0,2,1))", 1, 4, &r, &n) == 0 && n == 2 && r[0] == 1 &&
              r[1] == 3,
          "cyclic over two nodes: n=%d", n);
    free(r);
    CHECK(crpmi_parse_mapping("(vector,(0,2,2),(2,1,1))", 4, 5, &r, &n) == 0 && n == 1 &&
              r[0] == 4,
          "two blocks: n=%d", n);
    free(r);
    CHECK(crpmi_parse_mapping("(vector,(0,2,2),(2,1,1))", 2, 5, &r, &n) == 0 && n == 2 &&
              r[0] == 2 && r[1] == 3,
          "second node of the first block: n=%d", n);
    free(r);
    const char *bad[] = { "", "(vector,)", "(vector,(0,1))", "(vector,(0,0,1))", "(list,(0,1,1))",
                          "(vector,(0,1,1)", "(vector,(a,1,1))" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK(crpmi_parse_mapping(bad[i], 0, 2, &r, &n) == -1, "accepted \"%s\"", bad[i]);
    CHECK(crpmi_parse_mapping("(vector,(0,1,2))", 2, 2, &r, &n) == -1, "rank outside the job");
}

int main(void)
{
    test_pmi2();
    test_downgrade();
    test_forced_refused();
    test_mapping();
    if (failures) {
        fprintf(stderr, "%d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("PASS pmi_wire (%d checks)\n", checks);
    return 0;
}
