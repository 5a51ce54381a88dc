/* SPDX-License-Identifier: MIT */
/* Unit test of the launcher's pieces (built by tests/launcher/CMakeLists.txt
 * against courier_launch, which brings hwloc):
 *   auth.c   SHA-256 and HMAC-SHA-256 against FIPS 180-4 / RFC 4231 vectors;
 *   wire.c   frames split across reads, the size limit, key/value payloads,
 *            the handshake with the right and with a wrong secret, a job
 *            frame read from a pipe, frames queued before a connection
 *            exists and sent after what the handshake left;
 *   kvs.c    the key-value space: replace, lookup, the keys put since the
 *            last barrier (once each), PMI-1 request fields;
 *   place.c  host lists, host files, Slurm node lists, Hydra's spreading of
 *            ranks over hosts, -bind-to / -map-by parsing and defaults, and
 *            binding on synthetic hwloc topologies (two packages of four SMT
 *            cores; NUMA nodes), so that multi-socket SMT machines are
 *            covered here whatever this machine is. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "auth.h"
#include "kvs.h"
#include "place.h"
#include "wire.h"

static int failures;
#define CHECK(c, ...) do { if (!(c)) { failures++; fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #c); \
    fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); } } while (0)

static void hexof(const uint8_t *p, size_t n, char *out) { la_hex(p, n, out); }

static void test_sha(void)
{
    uint8_t d[32];
    char h[65];
    la_sha256_t c;
    la_sha256_init(&c);
    la_sha256_final(&c, d);
    hexof(d, 32, h);
    CHECK(!strcmp(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"), "%s", h);
    la_sha256_init(&c);
    la_sha256_update(&c, "abc", 3);
    la_sha256_final(&c, d);
    hexof(d, 32, h);
    CHECK(!strcmp(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"), "%s", h);
    /* 56 bytes: the padding takes a second block */
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    la_sha256_init(&c);
    la_sha256_update(&c, m, strlen(m));
    la_sha256_final(&c, d);
    hexof(d, 32, h);
    CHECK(!strcmp(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"), "%s", h);
    /* a million 'a', fed in uneven pieces */
    char *a = malloc(1000000);
    memset(a, 'a', 1000000);
    la_sha256_init(&c);
    for (size_t off = 0, step = 1; off < 1000000; off += step, step = step * 3 % 1000 + 1)
        la_sha256_update(&c, a + off, off + step > 1000000 ? 1000000 - off : step);
    la_sha256_final(&c, d);
    hexof(d, 32, h);
    CHECK(!strcmp(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"), "%s", h);
    free(a);
}

static void test_hmac(void)
{
    uint8_t key[131], mac[32];
    char h[65];
    memset(key, 0x0b, 20);
    la_hmac(key, 20, mac, 1, "Hi There", (size_t)8);
    hexof(mac, 32, h);
    CHECK(!strcmp(h, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"), "%s", h);
    /* the message in two parts */
    la_hmac((const uint8_t *)"Jefe", 4, mac, 2, "what do ya want ", (size_t)16, "for nothing?", (size_t)12);
    hexof(mac, 32, h);
    CHECK(!strcmp(h, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"), "%s", h);
    /* a key longer than a block is hashed first */
    memset(key, 0xaa, 131);
    const char *m = "Test Using Larger Than Block-Size Key - Hash Key First";
    la_hmac(key, 131, mac, 1, m, strlen(m));
    hexof(mac, 32, h);
    CHECK(!strcmp(h, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"), "%s", h);
    uint8_t back[32];
    CHECK(la_unhex(h, back, 32) == 0 && la_equal_ct(back, mac, 32), "hex round trip");
    CHECK(la_unhex("zz", back, 1) < 0, "bad hex accepted");
    CHECK(la_unhex("abcd", back, 1) < 0, "long hex accepted");
    back[31] ^= 1;
    CHECK(!la_equal_ct(back, mac, 32), "different macs compare equal");
}

static void test_frames(void)
{
    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    la_conn_t a, b;
    la_conn_init(&a, sv[0]);
    la_conn_init(&b, sv[1]);
    la_buf_t kv = { 0 };
    la_kv_add(&kv, "host", "cn2");
    la_kv_addf(&kv, "rank", "%d", 17);
    la_kv_add(&kv, "empty", "");
    la_conn_send(&a, LA_F_JOB, 3, -1, kv.p, kv.len);
    la_conn_send(&a, LA_F_OUT, 2, 5, "hello", 5);
    la_conn_send(&a, LA_F_BYE, 0, 0, NULL, 0);
    CHECK(la_conn_flush_wait(&a, 1000) == 0, "flush");
    /* read byte by byte through a pipe-sized trickle: frames only when whole */
    la_frame_t f;
    int got = 0, types[3];
    while (got < 3) {
        int r = la_conn_next(&b, &f, LA_FRAME_MAX);
        CHECK(r >= 0, "frame error");
        if (r == 1) {
            types[got++] = f.type;
            if (f.type == LA_F_JOB) {
                const char *pos = f.p, *end = f.p + f.len, *k, *v;
                CHECK(f.arg == 3 && f.rank == -1, "header %d %d", f.arg, f.rank);
                CHECK(la_kv_next(&pos, end, &k, &v) == 1 && !strcmp(k, "host") && !strcmp(v, "cn2"), "kv 1");
                CHECK(la_kv_next(&pos, end, &k, &v) == 1 && !strcmp(k, "rank") && !strcmp(v, "17"), "kv 2");
                CHECK(la_kv_next(&pos, end, &k, &v) == 1 && !strcmp(k, "empty") && !strcmp(v, ""), "kv 3");
                CHECK(la_kv_next(&pos, end, &k, &v) == 0, "kv end");
            } else if (f.type == LA_F_OUT) {
                CHECK(f.arg == 2 && f.rank == 5 && f.len == 5 && !memcmp(f.p, "hello", 5), "out frame");
            }
            continue;
        }
        if (la_conn_fill(&b) < 0) break;
    }
    CHECK(got == 3 && types[0] == LA_F_JOB && types[1] == LA_F_OUT && types[2] == LA_F_BYE, "got %d frames", got);
    const char bad[] = "k\0v\0dangling";
    const char *pos = bad, *k, *v;
    la_kv_next(&pos, bad + sizeof bad - 1, &k, &v);
    CHECK(la_kv_next(&pos, bad + sizeof bad - 1, &k, &v) == -1, "malformed kv accepted");
    /* a frame over the limit is refused */
    char big[300] = { 0 };
    la_conn_send(&a, LA_F_PMI, 0, 0, big, sizeof big);
    la_conn_flush_wait(&a, 1000);
    while (la_conn_fill(&b) == 0) usleep(1000);
    CHECK(la_conn_next(&b, &f, LA_FRAME_MAX_UNAUTH) == -1, "oversized frame accepted");
    la_buf_free(&kv);
    la_conn_close(&a);
    la_conn_close(&b);
}

/* A proxy's job on its launcher's stdin, and frames queued before the
 * connection to mpiexec exists (wire.h: la_frame_read_fd, LA_CONN_LATER,
 * la_conn_attach). */
static void test_early_job(void)
{
    int p[2];
    CHECK(pipe(p) == 0, "pipe");
    la_buf_t b = { 0 }, kv = { 0 };
    la_kv_add(&kv, "kvsname", "kvs_1_0_x");
    la_frame_add(&b, LA_F_JOB, 0, 0, kv.p, kv.len);
    la_buf_add(&b, "after", 5);   /* not the frame's: must stay in the pipe */
    CHECK(la_buf_flush(&b, p[1]) == 0 && la_buf_pending(&b) == 0, "pipe write");
    la_frame_t f;
    char *store = NULL;
    CHECK(la_frame_read_fd(p[0], &f, &store, LA_FRAME_MAX, la_now_ms() + 1000) == 1 && f.type == LA_F_JOB &&
          f.len == kv.len && !memcmp(f.p, kv.p, kv.len), "job frame from a pipe");
    char rest[8] = "";
    CHECK(read(p[0], rest, sizeof rest) == 5 && !memcmp(rest, "after", 5), "read past the frame");
    free(store);
    close(p[1]);
    CHECK(la_frame_read_fd(p[0], &f, &store, LA_FRAME_MAX, la_now_ms() + 1000) == -1 && !store, "end of file");
    close(p[0]);
    la_buf_free(&b);
    la_buf_free(&kv);

    /* queued while LA_CONN_LATER; the handshake's leftovers (in both
     * directions) go first once attached */
    la_conn_t later = { .fd = LA_CONN_LATER }, hs, peer;
    la_conn_send(&later, LA_F_HELLO, 0, 7, "h", 1);
    la_conn_send(&later, LA_F_STARTED, 0, 3, "123", 3);
    CHECK(la_conn_flush(&later) == 0 && la_conn_want_write(&later), "queued while not connected");
    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    la_conn_init(&hs, sv[0]);
    la_conn_init(&peer, sv[1]);
    la_frame_add(&hs.out, LA_F_RESPONSE, 0, 7, "r", 1);   /* as if not yet written */
    la_conn_send(&peer, LA_F_JOB, 0, 0, "j", 1);          /* arrived with the handshake */
    while (la_conn_fill(&hs) == 0) usleep(1000);
    la_conn_attach(&later, &hs);
    CHECK(hs.fd == -1 && later.fd == sv[0], "attached");
    CHECK(la_conn_flush_wait(&later, 1000) == 0, "flush after attach");
    int want[3] = { LA_F_RESPONSE, LA_F_HELLO, LA_F_STARTED }, got = 0;
    while (got < 3) {
        int r = la_conn_next(&peer, &f, LA_FRAME_MAX);
        if (r == 1) {
            CHECK(f.type == want[got], "frame %d: type %d", got, f.type);
            got++;
        } else if (r < 0 || la_conn_fill(&peer) < 0) {
            break;
        }
    }
    CHECK(got == 3, "got %d frames", got);
    CHECK(la_conn_next(&later, &f, LA_FRAME_MAX) == 1 && f.type == LA_F_JOB, "input kept across attach");
    la_conn_close(&later);
    la_conn_close(&peer);
}

static void test_kvs(void)
{
    la_kvs_t s = { 0 };
    CHECK(la_kvs_get(&s, "a") == NULL, "empty");
    la_kvs_put(&s, "a", "1");
    la_kvs_put(&s, "b", "2");
    la_kvs_put(&s, "a", "3");
    CHECK(la_kvs_get(&s, "a") && !strcmp(la_kvs_get(&s, "a"), "3"), "replaced");
    la_buf_t b = { 0 };
    CHECK(la_kvs_fresh(&s, &b) == 2, "two fresh keys (a once)");
    const char *pos = b.p, *end = b.p + b.len, *k, *v;
    int seen = 0;
    while (la_kv_next(&pos, end, &k, &v) == 1)
        seen |= (!strcmp(k, "a") && !strcmp(v, "3")) | (!strcmp(k, "b") && !strcmp(v, "2")) << 1;
    CHECK(seen == 3, "fresh keys and values");
    CHECK(la_kvs_fresh(&s, NULL) == 0, "nothing fresh after a barrier");
    la_kvs_put(&s, "b", "4");
    CHECK(la_kvs_fresh(&s, NULL) == 1, "a key put again is fresh again");
    la_buf_free(&b);
    la_kvs_free(&s);
    char out[8];
    CHECK(la_pmi_field("cmd=put kvsname=k key=x value=yz", "value", out, sizeof out) == 0 && !strcmp(out, "yz"), "field");
    CHECK(la_pmi_field("cmd=put key=x", "value", out, sizeof out) < 0, "absent field");
    CHECK(la_pmi_field("cmd=put value=123456789", "value", out, sizeof out) < 0, "field too long");
    CHECK(la_pmi_field("cmd=put xvalue=1", "value", out, sizeof out) < 0, "a longer key is another key");
}

/* The handshake: a child plays the proxy with client_secret. */
static int handshake(const uint8_t *server_secret, const uint8_t *client_secret, int *id)
{
    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[0]);
        la_conn_t c;
        la_conn_init(&c, sv[1]);
        char why[256];
        _exit(la_auth_client(&c, client_secret, 42, la_now_ms() + 5000, why, sizeof why) == 0 ? 0 : 1);
    }
    close(sv[1]);
    la_conn_t s;
    la_conn_init(&s, sv[0]);
    uint8_t nonce[LA_NONCE_BYTES];
    la_auth_challenge(&s, nonce);
    la_frame_t f;
    int r = 0;
    long long end = la_now_ms() + 5000;
    while ((r = la_conn_next(&s, &f, LA_FRAME_MAX_UNAUTH)) == 0 && la_now_ms() < end) {
        struct pollfd pf = { .fd = s.fd, .events = POLLIN };
        poll(&pf, 1, 100);
        if (la_conn_fill(&s) < 0) break;
    }
    int ok = r == 1 && la_auth_accept(&s, server_secret, nonce, &f, id) == 0;
    la_conn_flush_wait(&s, 1000);
    la_conn_close(&s);
    int st;
    waitpid(pid, &st, 0);
    return ok ? (WIFEXITED(st) ? WEXITSTATUS(st) : 2) : -1;
}

static void test_handshake(void)
{
    uint8_t s1[LA_SECRET_BYTES], s2[LA_SECRET_BYTES];
    la_random(s1, sizeof s1);
    memcpy(s2, s1, sizeof s2);
    int id = -1;
    CHECK(handshake(s1, s2, &id) == 0 && id == 42, "the right secret is accepted (id %d)", id);
    s2[7] ^= 0x10;
    CHECK(handshake(s1, s2, &id) == -1, "a wrong secret is accepted");
}

/* ---- place.c ------------------------------------------------------------------------ */

static char *names_of(const la_hostlist_t *hl)
{
    static char buf[1024];
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 0; i < hl->n; i++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s:%d", i ? "," : "", hl->h[i].name, hl->h[i].slots);
    return buf;
}

static void add_name(void *arg, const char *name)
{
    char *buf = arg;
    if (*buf) strcat(buf, ",");
    strcat(buf, name);
}

static char *map_of(const char *hosts, int n, int ppn, int by_node)
{
    static char buf[1024];
    la_hostlist_t hl = { 0 };
    char err[256];
    la_hosts_parse_list(&hl, hosts, err, sizeof err);
    int host_of[64];
    la_hosts_map(&hl, n, ppn, by_node, host_of);
    size_t o = 0;
    buf[0] = '\0';
    for (int r = 0; r < n; r++) o += (size_t)snprintf(buf + o, sizeof buf - o, "%s", hl.h[host_of[r]].name);
    la_hosts_free(&hl);
    return buf;
}

static void test_hosts(void)
{
    la_hostlist_t hl = { 0 };
    char err[512];
    CHECK(la_hosts_parse_list(&hl, "a,b:2,a:3", err, sizeof err) == 0, "%s", err);
    CHECK(!strcmp(names_of(&hl), "a:4,b:2"), "%s", names_of(&hl));
    CHECK(la_hosts_total_slots(&hl) == 6, "slots");
    la_hosts_free(&hl);
    const char *bad[] = { "", "a,,b", "a:0", "a:x", "a:", ":2", "-oProxyCommand=x" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(la_hosts_parse_list(&hl, bad[i], err, sizeof err) < 0, "\"%s\" accepted", bad[i]);
        la_hosts_free(&hl);
    }
    char path[] = "/tmp/courier-hostfile.XXXXXX";
    int fd = mkstemp(path);
    const char *text = "# nodes\n  n1:2\n\nn2   # one slot\nn1:1\nn3 slots=4\n";
    CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text), "write");
    close(fd);
    CHECK(la_hosts_parse_file(&hl, path, err, sizeof err) == 0, "%s", err);
    CHECK(!strcmp(names_of(&hl), "n1:3,n2:1,n3:4"), "%s", names_of(&hl));
    la_hosts_free(&hl);
    fd = open(path, O_WRONLY | O_TRUNC);
    CHECK(write(fd, "# none\n", 7) == 7, "write");
    close(fd);
    CHECK(la_hosts_parse_file(&hl, path, err, sizeof err) < 0 && strstr(err, "names no host"), "%s", err);
    la_hosts_free(&hl);
    unlink(path);

    char names[1024] = "";
    CHECK(la_hosts_expand_nodelist("n[01-03,7],gpu5,r[1-2]-c[1-2]", add_name, names) == 0, "nodelist");
    CHECK(!strcmp(names, "n01,n02,n03,n7,gpu5,r1-c1,r1-c2,r2-c1,r2-c2"), "%s", names);
    names[0] = '\0';
    CHECK(la_hosts_expand_nodelist("n[1-", add_name, names) < 0, "malformed node list accepted");
    setenv("SLURM_JOB_NODELIST", "x[1-4]", 1);
    setenv("SLURM_TASKS_PER_NODE", "2(x3),1", 1);
    CHECK(la_hosts_from_slurm(&hl, err, sizeof err) == 0, "%s", err);
    CHECK(!strcmp(names_of(&hl), "x1:2,x2:2,x3:2,x4:1"), "%s", names_of(&hl));
    la_hosts_free(&hl);

    /* Hydra's spreading (the same as mpiexec.mpich does) */
    CHECK(!strcmp(map_of("a:2,b:2", 6, 0, 0), "aabbaa"), "%s", map_of("a:2,b:2", 6, 0, 0));
    CHECK(!strcmp(map_of("a,b", 5, 0, 0), "ababa"), "%s", map_of("a,b", 5, 0, 0));
    CHECK(!strcmp(map_of("a:2,b:2", 7, 3, 0), "aaabbba"), "%s", map_of("a:2,b:2", 7, 3, 0));
    CHECK(!strcmp(map_of("a:2,b:3", 5, 0, 0), "aabbb"), "%s", map_of("a:2,b:3", 5, 0, 0));
    CHECK(!strcmp(map_of("a:2,b:2,c", 5, 0, 1), "abcab"), "%s", map_of("a:2,b:2,c", 5, 0, 1));
}

static void test_options(void)
{
    char err[512];
    la_place_t o = { 0 };
    la_place_finish(&o, "4");
    CHECK(o.bind == LA_LVL_NONE && o.map == LA_LVL_CORE && o.pe == 1, "defaults: no binding, OMP ignored");
    o = (la_place_t){ 0 };
    CHECK(la_place_parse_bind(&o, "core", err, sizeof err) == 0, "%s", err);
    la_place_finish(&o, "3");
    CHECK(o.bind == LA_LVL_CORE && o.pe == 3 && o.pe_from_omp, "OpenMP-aware PE");
    o = (la_place_t){ 0 };
    CHECK(la_place_parse_map(&o, "socket:PE=2", err, sizeof err) == 0, "%s", err);
    la_place_finish(&o, "8");
    CHECK(o.bind == LA_LVL_CORE && o.map == LA_LVL_SOCKET && o.pe == 2 && !o.pe_from_omp, "PE=2 binds to cores");
    o = (la_place_t){ 0 };
    CHECK(la_place_parse_bind(&o, "hwthread:2", err, sizeof err) == 0 && o.pe == 2, "hwthread:2");
    la_place_finish(&o, NULL);
    CHECK(o.map == LA_LVL_HWTHREAD, "map follows bind");
    o = (la_place_t){ 0 };
    CHECK(la_place_parse_map(&o, "ppr:3:node", err, sizeof err) == 0 && o.ppn == 3, "ppr");
    CHECK(la_place_parse_map(&o, "node", err, sizeof err) == 0 && o.by_node, "by node");
    const char *badb[] = { "sockets:2", "core:0", "bogus", "node" };
    for (size_t i = 0; i < sizeof badb / sizeof badb[0]; i++)
        CHECK(la_place_parse_bind(&o, badb[i], err, sizeof err) < 0, "-bind-to %s accepted", badb[i]);
    const char *badm[] = { "core:PE=0", "ppr:2:socket", "core:spread", "none" };
    for (size_t i = 0; i < sizeof badm / sizeof badm[0]; i++)
        CHECK(la_place_parse_map(&o, badm[i], err, sizeof err) < 0, "-map-by %s accepted", badm[i]);
}

/* Bindings of n ranks as "0-1 8-9 ..." on the synthetic topology topo. */
static const char *bind_on(const char *topo, const char *bind, const char *map, int n, const char *omp,
                           char *why, char *places)
{
    static char buf[2048];
    char err[512];
    setenv("HWLOC_SYNTHETIC", topo, 1);
    la_topo_t *t = la_topo_load(err, sizeof err);
    unsetenv("HWLOC_SYNTHETIC");
    if (!t) return "no topology";
    la_place_t o = { 0 };
    if (bind) la_place_parse_bind(&o, bind, err, sizeof err);
    if (map) la_place_parse_map(&o, map, err, sizeof err);
    la_place_finish(&o, omp);
    la_binding_t b[64];
    char w[512];
    int bound = la_topo_place(t, &o, n, b, w, sizeof w);
    if (why) strcpy(why, w);
    size_t off = 0;
    buf[0] = '\0';
    if (places) places[0] = '\0';
    for (int i = 0; i < n && bound; i++) {
        char c[256];
        la_cpus_format(&b[i].cpus, c, sizeof c);
        off += (size_t)snprintf(buf + off, sizeof buf - off, "%s%s", i ? " " : "", c);
        if (places && i == n - 1) strcpy(places, b[i].omp_places);
    }
    if (!bound) snprintf(buf, sizeof buf, "unbound");
    la_binding_free(b, bound ? n : 0);
    la_topo_free(t);
    return buf;
}

/* With a progress thread (la_place_t.progress): "compute/progress" CPUs of
 * each of n ranks, and the last rank's OpenMP places into places. */
static const char *bind_progress_on(const char *topo, const char *bind, int n, char *places)
{
    static char buf[2048];
    char err[512], w[512];
    setenv("HWLOC_SYNTHETIC", topo, 1);
    la_topo_t *t = la_topo_load(err, sizeof err);
    unsetenv("HWLOC_SYNTHETIC");
    if (!t) return "no topology";
    la_place_t o = { 0 };
    la_place_parse_bind(&o, bind, err, sizeof err);
    la_place_finish(&o, NULL);
    o.progress = 1;
    la_binding_t b[64];
    int bound = la_topo_place(t, &o, n, b, w, sizeof w);
    size_t off = 0;
    buf[0] = '\0';
    for (int i = 0; i < n && bound; i++) {
        char c[256], p[256];
        la_cpus_format(&b[i].cpus, c, sizeof c);
        la_cpus_format(&b[i].progress_cpus, p, sizeof p);
        off += (size_t)snprintf(buf + off, sizeof buf - off, "%s%s/%s", i ? " " : "", c, p);
        if (i == n - 1) strcpy(places, b[i].omp_places);
    }
    if (!bound) snprintf(buf, sizeof buf, "unbound");
    la_binding_free(b, bound ? n : 0);
    la_topo_free(t);
    return buf;
}

static void test_binding_progress(void)
{
    const char *smt = "package:2 core:4 pu:2";
    char places[512];
    const char *r = bind_progress_on(smt, "core", 3, places);
    CHECK(!strcmp(r, "0-1/2-3 4-5/6-7 8-9/10-11"), "a spare core each: %s", r);
    CHECK(!strcmp(places, "{8,9}"), "places %s", places);
    r = bind_progress_on(smt, "core", 5, places);
    CHECK(!strcmp(r, "0/1 2/3 4/5 6/7 8/9"), "the second hwthread of each core: %s", r);
    CHECK(!strcmp(places, "{8}"), "places without the progress hwthread: %s", places);
    r = bind_progress_on("core:4 pu:1", "core", 2, places);
    CHECK(!strcmp(r, "0/1 2/3"), "a spare core each: %s", r);
    r = bind_progress_on("core:4 pu:1", "core", 3, places);
    CHECK(!strcmp(r, "0/0 1/1 2/2"), "shared, no spare core and no hwthreads: %s", r);
    r = bind_progress_on(smt, "hwthread", 9, places);
    CHECK(!strncmp(r, "0/0 1/1 2/2", 11), "hwthread binding shares: %s", r);

    char err[256], line[1024];
    setenv("HWLOC_SYNTHETIC", smt, 1);
    la_topo_t *t = la_topo_load(err, sizeof err);
    unsetenv("HWLOC_SYNTHETIC");
    la_binding_t b = { .bound = 1, .progress = LA_PROGRESS_CORE };
    CPU_ZERO(&b.cpus);
    CPU_SET(0, &b.cpus);
    CPU_ZERO(&b.progress_cpus);
    CPU_SET(2, &b.progress_cpus);
    la_binding_report(t, &b, "cn2", 42, 3, line, sizeof line);
    CHECK(!strcmp(line, "[cn2:00042] MCW rank 3 bound to socket 0[core 0[hwt 0]]: [B./../../..][../../../..]"
                        "; progress thread bound to socket 0[core 1[hwt 0]]: [../B./../..][../../../..]"), "%s", line);
    b.progress = LA_PROGRESS_SHARED;
    b.progress_cpus = b.cpus;
    la_binding_report(t, &b, "cn2", 42, 3, line, sizeof line);
    CHECK(strstr(line, "; progress thread shares it: socket 0[core 0[hwt 0]]"), "%s", line);
    la_topo_free(t);
}

static void test_binding(void)
{
    const char *smt = "package:2 core:4 pu:2";   /* cpus 0-7 package 0, 8-15 package 1 */
    char why[512], places[512];
    const char *r;
    r = bind_on(smt, "core", NULL, 3, NULL, why, places);
    CHECK(!strcmp(r, "0-1 2-3 4-5"), "core: %s", r);
    CHECK(!strcmp(places, "{4,5}"), "places %s", places);
    r = bind_on(smt, "core", "socket", 4, NULL, why, NULL);
    CHECK(!strcmp(r, "0-1 8-9 2-3 10-11"), "core by socket: %s", r);
    r = bind_on(smt, "hwthread", NULL, 3, NULL, why, NULL);
    CHECK(!strcmp(r, "0 1 2"), "hwthread: %s", r);
    r = bind_on(smt, "core", "hwthread", 2, NULL, why, NULL);
    CHECK(!strcmp(r, "0-1 0-1"), "hwthread units widened to their core: %s", r);
    r = bind_on(smt, "socket", NULL, 3, NULL, why, NULL);
    CHECK(!strcmp(r, "0-7 8-15 0-7"), "socket: %s", r);
    r = bind_on(smt, NULL, "core:PE=3", 2, NULL, why, places);
    CHECK(!strcmp(r, "0-5 6-11"), "PE=3: %s", r);
    CHECK(!strcmp(places, "{6,7},{8,9},{10,11}"), "places %s", places);
    r = bind_on(smt, "core", NULL, 2, "4", why, places);
    CHECK(!strcmp(r, "0-7 8-15"), "OMP_NUM_THREADS=4: %s", r);
    CHECK(!strcmp(places, "{8,9},{10,11},{12,13},{14,15}"), "places %s", places);
    r = bind_on(smt, "core", NULL, 9, NULL, why, NULL);
    CHECK(!strcmp(r, "unbound") && strstr(why, "9 ranks x 1 core each need more than the 8 cores"), "%s / %s", r, why);
    r = bind_on(smt, "core", "socket:PE=3", 3, NULL, why, NULL);
    CHECK(!strcmp(r, "unbound") && strstr(why, "spread over the sockets"), "%s / %s", r, why);
    r = bind_on(smt, "none", NULL, 2, "2", why, NULL);
    CHECK(!strcmp(r, "unbound") && !why[0], "none: %s %s", r, why);
    /* NUMA nodes inside packages */
    const char *numa = "package:2 [numa] core:2 pu:1";
    r = bind_on(numa, "numa", NULL, 2, NULL, why, NULL);
    CHECK(!strcmp(r, "0-1 2-3"), "numa: %s", r);
    r = bind_on(numa, "core", "numa", 3, NULL, why, NULL);
    CHECK(!strcmp(r, "0 2 1"), "core by numa: %s", r);

    /* Open MPI's report */
    char err[256], line[1024];
    setenv("HWLOC_SYNTHETIC", smt, 1);
    la_topo_t *t = la_topo_load(err, sizeof err);
    unsetenv("HWLOC_SYNTHETIC");
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(10, &s);
    CPU_SET(11, &s);
    la_topo_describe(t, &s, line, sizeof line);
    CHECK(!strcmp(line, "socket 1[core 1[hwt 0-1]]: [../../../..][../BB/../..]"), "%s", line);
    CPU_ZERO(&s);
    CPU_SET(0, &s);
    CPU_SET(2, &s);
    la_binding_t b = { .bound = 1, .cpus = s };
    la_binding_report(t, &b, "cn2", 42, 3, line, sizeof line);
    CHECK(!strcmp(line, "[cn2:00042] MCW rank 3 bound to socket 0[core 0[hwt 0]], socket 0[core 1[hwt 0]]: "
                        "[B./B./../..][../../../..]"), "%s", line);
    b.bound = 0;
    la_binding_report(t, &b, "cn2", 42, 3, line, sizeof line);
    CHECK(!strcmp(line, "[cn2:00042] MCW rank 3 is not bound (or bound to all available processors)"), "%s", line);
    la_topo_free(t);
}

int main(void)
{
    test_sha();
    test_hmac();
    test_frames();
    test_handshake();
    test_early_job();
    test_kvs();
    test_hosts();
    test_options();
    test_binding();
    test_binding_progress();
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("PASS launch\n");
    return 0;
}
