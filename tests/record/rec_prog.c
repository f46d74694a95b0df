/*
** rec_prog.c: programs traced by tests/record/record.py; MODE picks one.
** Each does known I/O in the current directory, so the test can assert the
** exact calls, paths, offsets and byte counts the trace must hold.  Built
** plainly and, as rec_prog_fortify, with -D_FORTIFY_SOURCE=2
** -D_FILE_OFFSET_BITS=64 (open64, __open64_2, fopen64, pread64 ...).
*/
#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char buf[8192];

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "rec_prog: %s failed: %s\n", what, strerror(errno));
        exit(1);
    }
}

/* Every traced POSIX and stdio call once, in a fixed order. */
static int basic(void)
{
    int flags = O_CREAT | O_RDWR | O_TRUNC;
    int fd = open("a.dat", flags, 0644);
    check(fd >= 0, "open");
    for (int i = 0; i < 4; i++) check(write(fd, buf, 100) == 100, "write");
    check(pwrite(fd, buf, 50, 1000) == 50, "pwrite");
    check(lseek(fd, 0, SEEK_SET) == 0, "lseek");
    check(read(fd, buf, 64) == 64, "read");
    check(pread(fd, buf, 32, 200) == 32, "pread");
    struct iovec iov[2] = {{buf, 10}, {buf, 20}};
    check(writev(fd, iov, 2) == 30, "writev");
    check(fsync(fd) == 0, "fsync");
    check(ftruncate(fd, 2000) == 0, "ftruncate");
    struct stat st;
    check(fstat(fd, &st) == 0 && st.st_size == 2000, "fstat");
    void *m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
    check(m != MAP_FAILED, "mmap");
    munmap(m, 4096);
    int fd2 = dup(fd);
    check(fd2 >= 0, "dup");
    check(write(fd2, buf, 7) == 7, "write dup");
    check(close(fd2) == 0, "close dup");
    check(close(fd) == 0, "close");
    check(stat("a.dat", &st) == 0, "stat");
    /* Flags known only at run time: FORTIFY builds call __open64_2 here. */
    int rdfd = open("a.dat", getpid() == 0 ? O_RDWR : O_RDONLY);
    check(rdfd >= 0 && close(rdfd) == 0, "open at run time");
    /* A failed call is recorded too, and the program sees its errno. */
    errno = 0;
    check(open("missing.dat", O_RDONLY) < 0 && errno == ENOENT, "errno of a failed open");
    check(mkdir("d", 0755) == 0, "mkdir");
    check(rename("a.dat", "d/b.dat") == 0, "rename");
    FILE *f = fopen("c.txt", "w+");
    check(f != NULL, "fopen");
    check(fwrite(buf, 1, 15, f) == 15, "fwrite");
    check(fwrite(buf, 4, 8, f) == 8, "fwrite 2");
    check(fflush(f) == 0, "fflush");
    check(fseek(f, 5, SEEK_SET) == 0, "fseek");
    check(ftell(f) == 5, "ftell");
    check(fread(buf, 1, 10, f) == 10, "fread");
    check(fclose(f) == 0, "fclose");
    check(access("c.txt", R_OK) == 0, "access");
    check(truncate("c.txt", 3) == 0, "truncate");
    check(unlink("c.txt") == 0, "unlink");
    check(unlink("d/b.dat") == 0, "unlink 2");
    check(rmdir("d") == 0, "rmdir");
    int dfd = open(".", O_RDONLY | O_DIRECTORY);
    check(dfd >= 0, "open .");
    int fd3 = openat(dfd, "e.dat", O_CREAT | O_WRONLY, 0600);
    check(fd3 >= 0, "openat");
    check(write(fd3, buf, 11) == 11, "write e");
    check(dup2(fd3, 40) == 40, "dup2");
    check(write(40, buf, 12) == 12, "write 40");
    close(40);
    close(fd3);
    close(dfd);
    int fd4 = creat("f.dat", 0640);
    check(fd4 >= 0, "creat");
    close(fd4);
    /* Not traced: stdout, and Darshan's excluded prefixes (/dev, /etc, ...). */
    int dn = open("/dev/null", O_WRONLY);
    check(dn >= 0 && write(dn, buf, 5) == 5, "/dev/null");
    close(dn);
    int etc = open("/etc/passwd", O_RDONLY);
    if (etc >= 0) close(etc);
    printf("done\n");
    return 0;
}

static void *thread_main(void *arg)
{
    long k = (long)arg;
    char name[32];
    snprintf(name, sizeof name, "t%ld.dat", k);
    int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    check(fd >= 0, "open");
    for (int i = 0; i < 5000; i++)
        check(write(fd, buf, (size_t)(k + 1) * 10) == (k + 1) * 10, "write");
    close(fd);
    return NULL;
}

/* Four threads, 5000 writes each: several ring flushes, merged by start time. */
static int threads(void)
{
    pthread_t t[4];
    for (long k = 0; k < 4; k++)
        check(pthread_create(&t[k], NULL, thread_main, (void *)k) == 0, "thread");
    for (int k = 0; k < 4; k++) pthread_join(t[k], NULL);
    return 0;
}

static void write_file(const char *name, int n, size_t size)
{
    int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    check(fd >= 0, "open");
    for (int i = 0; i < n; i++) check(write(fd, buf, size) == (ssize_t)size, "write");
    close(fd);
}

/* The child is a rank of its own; neither process's records appear twice. */
static int forked(void)
{
    write_file("parent1.dat", 3, 100);
    pid_t pid = fork();
    check(pid >= 0, "fork");
    if (pid == 0) {
        write_file("child.dat", 5, 10);
        exit(0);
    }
    int status;
    waitpid(pid, &status, 0);
    write_file("parent2.dat", 2, 200);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* What was traced before exec is written; the new image is another rank. */
static int execed(const char *self)
{
    write_file("before.dat", 2, 30);
    execl(self, self, "after-exec", (char *)NULL);
    return 1;
}

/* Records before a flush survive SIGKILL; the ones after it are the missing tail. */
static int killed(void)
{
    int fd = open("k.dat", O_CREAT | O_WRONLY | O_TRUNC, 0644);
    check(fd >= 0, "open");
    for (int i = 0; i < 10; i++) check(write(fd, buf, 10) == 10, "write");
    struct timespec ts = {1, 300000000};
    nanosleep(&ts, NULL);
    /* The first call a second after the last flush flushes everything before it. */
    for (int i = 0; i < 6; i++) check(write(fd, buf, 20) == 20, "write");
    raise(SIGKILL);
    return 1;
}

static int64_t ms_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)(t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/*
** Writes whose byte count is the milliseconds since the loop began, every
** 0.2 ms for 2.5 s, then SIGKILL: the largest count in the trace says how
** much of the end was lost.  The last count goes to stderr (not traced).
*/
static int steady(void)
{
    int fd = open("steady.dat", O_CREAT | O_WRONLY | O_TRUNC, 0644);
    check(fd >= 0, "open");
    struct timespec t0, gap = {0, 200000};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int64_t ms;
    while ((ms = ms_since(&t0)) < 2500) {
        check(write(fd, buf, (size_t)ms + 1) == ms + 1, "write");
        nanosleep(&gap, NULL);
    }
    fprintf(stderr, "last count %lld\n", (long long)ms_since(&t0));
    raise(SIGKILL);
    return 1;
}

/* A few calls, then silence until SIGKILL: fewer records than one buffer, none lost. */
static int quiet(void)
{
    write_file("quiet.dat", 10, 10);
    struct timespec ts = {1, 500000000};
    nanosleep(&ts, NULL);
    raise(SIGKILL);
    return 1;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "basic";
    if (!strcmp(mode, "basic")) return basic();
    if (!strcmp(mode, "threads")) return threads();
    if (!strcmp(mode, "fork")) return forked();
    if (!strcmp(mode, "exec")) return execed(argv[0]);
    if (!strcmp(mode, "after-exec")) {
        write_file("after.dat", 3, 40);
        return 0;
    }
    if (!strcmp(mode, "kill")) return killed();
    if (!strcmp(mode, "term")) {
        write_file("term.dat", 4, 25);
        raise(SIGTERM);
        return 1;
    }
    if (!strcmp(mode, "append")) {
        /* Darshan counts an O_APPEND descriptor from offset 0: 299 consecutive of 300. */
        int fd = open("append.dat", O_CREAT | O_WRONLY | O_APPEND, 0644);
        for (int i = 0; i < 300; i++) check(write(fd, buf, 10) == 10, "write");
        close(fd);
        return 0;
    }
    if (!strcmp(mode, "steady")) return steady();
    if (!strcmp(mode, "quiet")) return quiet();
    if (!strcmp(mode, "abort") || !strcmp(mode, "segv")) {
        write_file("fault.dat", 3, 30);
        if (!strcmp(mode, "abort")) abort();
        raise(SIGSEGV);
        return 1;
    }
    if (!strcmp(mode, "_exit")) {
        write_file("exit.dat", 2, 60);
        int fd = open("exit2.dat", O_CREAT | O_WRONLY, 0644);
        check(write(fd, buf, 70) == 70, "write");
        _exit(3);
    }
    fprintf(stderr, "rec_prog: unknown mode %s\n", mode);
    return 2;
}
