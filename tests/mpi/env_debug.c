/* SPDX-License-Identifier: MIT */
/* COURIER_DEBUG: the level is the first argument (the test is run with the
 * setting at that level).  The program catches its own stderr in a pipe:
 * level 0 prints nothing; 1 one line per error made ("[courier R] error: ...
 * MPI_ERR_RANK ... dest=..."), 2 also events (the runtime starting, every new
 * communicator), 3 also one line per packet that arrives.  Each line once. */
#include "mpitest.h"
#include <fcntl.h>
#include <unistd.h>

static int count(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p++) n++;
    return n;
}

int main(int argc, char **argv)
{
    int level = argc > 1 ? atoi(argv[1]) : 0;
    int fds[2], saved = dup(2);
    if (pipe(fds) != 0) return 2;
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    dup2(fds[1], 2);
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm d;
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    int x = 0, rc = MPI_Send(&x, 1, MPI_INT, 4242, 0, MPI_COMM_WORLD);
    /* traffic: a message to self and one around the ring, 40 bytes each */
    int size, out[10] = { 0 }, in[10];
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Sendrecv(out, 10, MPI_INT, rank, 5, in, 10, MPI_INT, rank, 5, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(out, 10, MPI_INT, (rank + 1) % size, 6, in, 10, MPI_INT, (rank + size - 1) % size, 6,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    fflush(stderr);
    dup2(saved, 2);
    close(fds[1]);
    static char text[65536];
    ssize_t n = read(fds[0], text, sizeof text - 1);
    text[n > 0 ? n : 0] = '\0';
    char me[32];
    snprintf(me, sizeof me, "[courier %d] ", rank);
    CHECK_CLASS(rc, MPI_ERR_RANK);
    int errors = count(text, "error: MPI_ERR_RANK"), events = count(text, "init: runtime up"),
        comms = count(text, "comm: new communicator"), packets = count(text, "packet: from ");
    if (level == 0) CHECK(n <= 0, "level 0 printed \"%s\"", text);
    if (level >= 1) {
        CHECK(errors == 1 && strstr(text, "dest=4242"), "level %d: %d error lines in \"%s\"", level,
              errors, text);
        CHECK(strstr(text, me) != NULL, "lines name the rank: \"%s\"", text);
    }
    if (level == 1) CHECK(events == 0 && comms == 0, "level 1 printed events: \"%s\"", text);
    if (level >= 2) CHECK(events == 1 && comms == 1, "level %d: %d start, %d communicator lines in \"%s\"",
                          level, events, comms, text);
    if (level <= 2) CHECK(packets == 0, "level %d printed packets: \"%s\"", level, text);
    /* level 3: at least the two messages this rank received */
    if (level == 3)
        CHECK(packets >= 2 && strstr(text, "eager") && strstr(text, "tag 6, 40 bytes"),
              "level 3: %d packet lines in \"%s\"", packets, text);
    MPI_Comm_free(&d);
    rc = mt_finish("env_debug");
    MPI_Finalize();
    return rc;
}
