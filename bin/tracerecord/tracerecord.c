/*
** tracerecord: run a program with libtracerecord.so preloaded and leave a
** Recorder trace directory of its I/O.
**
** The launcher fixes the job's directory and start time once and passes
** them down in the environment (TRACERECORD_DIR, TRACERECORD_START_NS), so
** every process of the job -- `tracerecord -- mpirun -n 4 prog` traces the
** four ranks, not mpirun -- writes its own rank files into one directory.
** When the program has ended it completes the directory: ranks that wrote
** nothing get empty files, and recorder.mt counts every rank.
**
** The library is found beside the launcher (the build tree) or in
** TRACERECORD_LIBDIR relative to it (the installed tree); TRACERECORD_LIB
** overrides both.
*/
#include "rr_impl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef TRACERECORD_LIBDIR
#define TRACERECORD_LIBDIR "../lib/tracecat"
#endif

#define PROG "tracerecord"

static pid_t child = -1;

static void usage(FILE *f)
{
    fprintf(f, "Usage: " PROG " [OPTION]... [--] PROGRAM [ARG]...\n"
               "Run PROGRAM with libtracerecord.so preloaded and write its I/O calls as a\n"
               "Recorder 2.5 trace directory: one rank per process (the MPI rank, else\n"
               "RANK, PMI_RANK, OMPI_COMM_WORLD_RANK or SLURM_PROCID, else 0; a forked or\n"
               "exec'd process takes the next free number after the job's size).\n"
               "\n"
               "Options:\n"
               "  -o, --output DIR     the trace directory (default ./recorder-YYYYMMDD-HHMMSS);\n"
               "                       it must not exist or be empty\n"
               "      --layers LIST    what to trace (default all): posix, stdio, mpiio, mpi,\n"
               "                       hdf5\n"
               "      --exclude LIST   path prefixes not traced (default Darshan's: /etc,/dev,\n"
               "                       /usr,/bin,/boot,/lib,/opt,/sbin,/sys,/proc,/var;\n"
               "                       '' traces every path)\n"
               "  -q, --quiet          no summary line\n"
               "  -h, --help           show this help and exit\n"
               "      --version        show the version and exit\n"
               "\n"
               "Traced: open, open64, openat, creat, __open_2 (FORTIFY), close, read, write,\n"
               "pread, pwrite (+64), readv, writev, lseek(64), fsync, fdatasync, stat, lstat,\n"
               "fstat, fstatat (+64, and the __xstat family), unlink(at), rmdir, mkdir(at),\n"
               "rename(at), access, truncate, ftruncate, mmap of files, dup, dup2, dup3,\n"
               "fcntl(64) F_DUPFD(_CLOEXEC), fileno; fopen(64), fdopen, fclose, fread, fwrite,\n"
               "fseek(o), ftell(o), rewind, fflush, remove;\n"
               "MPI_File_* (open, close, read/write in every form, seek, sync, set_view,\n"
               "set_size, get_size); MPI_Barrier; HDF5 1.10+: H5Fcreate, H5Fopen, H5Fflush,\n"
               "H5Fclose, H5Dcreate(1,2), H5Dopen(1,2), H5Dread, H5Dwrite, H5Dclose, with the\n"
               "bytes Darshan counts for H5Dread/H5Dwrite as an argument bytes=N (the points\n"
               "selected in the file dataspace x the dataset type's size).  Not traced: statx,\n"
               "preadv/pwritev, sendfile, copy_file_range, fprintf/fputs/fgets/getc, other\n"
               "fcntl commands, aio, io_uring, H5Dflush, H5G*, H5A*, H5O*, HDF5 before 1.10,\n"
               "static programs, descriptors opened before the program started (stdin,\n"
               "stdout, stderr), pipes and sockets.  Recorder stores no return values;\n"
               "tracerecord adds one to every finished call as a last argument ret=N (the\n"
               "return value: the bytes a read or write moved, -1 when it failed).\n"
               "\n"
               "Records are written at least once a second and when SIGTERM, SIGINT,\n"
               "SIGABRT or SIGSEGV ends the program, so SIGKILL loses at most the last\n"
               "second; calls entered and not yet returned (a rank waiting in MPI_Barrier)\n"
               "are written beside each rank as <rank>.inflight, which tracecat reads as\n"
               "calls that had not returned when the trace ends.\n"
               "\n"
               "Exit status: the program's (128+N when signal N killed it); 1 when the\n"
               "trace cannot be set up or completed, 2 on usage errors, 127 when PROGRAM\n"
               "cannot be run.\n");
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, PROG ": ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry '" PROG " --help' for more information.\n");
    return 2;
}

/* Signals sent to the launcher (not by the terminal, which reaches the whole group). */
static void forward(int sig, siginfo_t *info, void *ctx)
{
    (void)ctx;
    if (child > 0 && (info->si_code == SI_USER || info->si_code == SI_QUEUE)) kill(child, sig);
}

static int find_library(char *out, size_t size)
{
    const char *env = getenv("TRACERECORD_LIB");
    if (env && *env) {
        if (realpath(env, out) && access(out, R_OK) == 0) return 0;
        fprintf(stderr, PROG ": TRACERECORD_LIB=%s: %s\n", env, strerror(errno));
        return -1;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        fprintf(stderr, PROG ": cannot find my own path: %s\n", strerror(errno));
        return -1;
    }
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    *slash = '\0';
    static const char *const where[] = {"", "/" TRACERECORD_LIBDIR};
    for (size_t i = 0; i < sizeof where / sizeof *where; i++) {
        char path[PATH_MAX + 64];
        snprintf(path, sizeof path, "%s%s/libtracerecord.so", exe, where[i]);
        if (realpath(path, out) && strlen(out) < size && access(out, R_OK) == 0) return 0;
    }
    fprintf(stderr, PROG ": libtracerecord.so is neither in %s nor in %s/%s\n", exe, exe,
            TRACERECORD_LIBDIR);
    return -1;
}

/* DIR made absolute, created (with parents) or found empty. */
static int prepare_dir(const char *dir, char *abs, size_t size)
{
    char tmp[PATH_MAX];
    if (dir[0] == '/') {
        snprintf(tmp, sizeof tmp, "%s", dir);
    } else {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd)) {
            fprintf(stderr, PROG ": cannot get the current directory: %s\n", strerror(errno));
            return -1;
        }
        if ((size_t)snprintf(tmp, sizeof tmp, "%s/%s", cwd, dir) >= sizeof tmp) {
            fprintf(stderr, PROG ": %s: path too long\n", dir);
            return -1;
        }
    }
    for (char *p = tmp + 1;; p++) {
        if (*p != '/' && *p != '\0') continue;
        char c = *p;
        *p = '\0';
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST) {
            fprintf(stderr, PROG ": cannot create %s: %s\n", tmp, strerror(errno));
            return -1;
        }
        *p = c;
        if (!c) break;
    }
    DIR *d = opendir(tmp);
    if (!d) {
        fprintf(stderr, PROG ": %s: %s\n", tmp, strerror(errno));
        return -1;
    }
    struct dirent *de;
    int empty = 1;
    while ((de = readdir(d)))
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) empty = 0;
    closedir(d);
    if (!empty) {
        fprintf(stderr, PROG ": %s is not empty (one job, one directory)\n", tmp);
        return -1;
    }
    if (!realpath(tmp, abs) || strlen(abs) >= size) {
        fprintf(stderr, PROG ": %s: %s\n", tmp, strerror(errno));
        return -1;
    }
    return 0;
}

/* Empty files for ranks that wrote none, leftovers of killed writes gone, recorder.mt. */
static int complete_dir(const char *dir, int64_t start_ns, int *ranks)
{
    int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dirfd >= 0 ? fdopendir(dup(dirfd)) : NULL;
    if (!d) {
        fprintf(stderr, PROG ": %s: %s\n", dir, strerror(errno));
        if (dirfd >= 0) close(dirfd);
        return -1;
    }
    long max = -1;
    struct dirent *de;
    while ((de = readdir(d))) {
        char *end;
        long r = strtol(de->d_name, &end, 10);
        if (end != de->d_name && r >= 0 && r < INT_MAX &&
            (!strcmp(end, ".ts") || !strcmp(end, ".cst") || !strcmp(end, ".cfg")) && r > max)
            max = r;
        if (strstr(de->d_name, ".tmp-")) unlinkat(dirfd, de->d_name, 0);
    }
    closedir(d);
    int rc = 0;
    for (long r = 0; r <= (max < 0 ? 0 : max) && rc == 0; r++) {
        char ts[32], cst[32], cfg[32];
        snprintf(ts, sizeof ts, "%ld.ts", r);
        snprintf(cst, sizeof cst, "%ld.cst", r);
        snprintf(cfg, sizeof cfg, "%ld.cfg", r);
        if (!rr_sys_exists(dirfd, cst) || !rr_sys_exists(dirfd, cfg))
            rc = rr_write_empty_rank(dirfd, (int)r, rr_sys_exists(dirfd, ts));
    }
    *ranks = max < 0 ? 1 : (int)max + 1;
    if (rc == 0) rc = rr_write_meta(dirfd, *ranks, start_ns, 100);
    if (rc != 0) fprintf(stderr, PROG ": cannot complete %s: %s\n", dir, strerror(errno));
    close(dirfd);
    return rc;
}

/* The command line: -o, --layers, --exclude, -q; returns -1 to go on, else the exit status. */
typedef struct opts {
    const char *out, *layers, *exclude;
    int quiet;
} opts;

static int check_layers(const char *list)
{
    for (const char *p = list; *p;) {
        size_t k = strcspn(p, ",");
        if (!(k == 5 &&
              (!strncmp(p, "posix", 5) || !strncmp(p, "stdio", 5) || !strncmp(p, "mpiio", 5))) &&
            !(k == 3 && !strncmp(p, "mpi", 3)) && !(k == 4 && !strncmp(p, "hdf5", 4)))
            return usage_error("--layers: unknown layer in '%s' (posix, stdio, mpiio, mpi, hdf5)",
                               list);
        p += k + (p[k] != '\0');
    }
    return -1;
}

static int parse_args(int argc, char **argv, opts *o)
{
    static const struct option table[] = {{"output", required_argument, NULL, 'o'},
                                          {"layers", required_argument, NULL, 'L'},
                                          {"exclude", required_argument, NULL, 'x'},
                                          {"quiet", no_argument, NULL, 'q'},
                                          {"help", no_argument, NULL, 'h'},
                                          {"version", no_argument, NULL, 'V'},
                                          {NULL, 0, NULL, 0}};
    int c, rc = -1;
    opterr = 0;
    while (rc < 0 && (c = getopt_long(argc, argv, "+o:qh", table, NULL)) != -1) {
        switch (c) {
        case 'o':
            o->out = optarg;
            break;
        case 'L':
            o->layers = optarg;
            rc = check_layers(optarg);
            break;
        case 'x':
            o->exclude = optarg;
            break;
        case 'q':
            o->quiet = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case 'V':
            printf(PROG " " TRACECAT_VERSION " (Recorder format " TR_REC_VERSION ")\n");
            return 0;
        default:
            return usage_error("unknown option or missing argument: '%s'", argv[optind - 1]);
        }
    }
    if (rc < 0 && optind >= argc) return usage_error("%s", "no PROGRAM to run");
    return rc;
}

/* What the preload library reads: itself first in LD_PRELOAD, the directory, the options. */
static int set_environment(const opts *o, const char *lib, const char *dir, int64_t start_ns)
{
    const char *old = getenv("LD_PRELOAD");
    size_t need = strlen(lib) + (old ? strlen(old) + 2 : 1);
    char *preload = malloc(need);
    if (!preload) {
        fprintf(stderr, PROG ": out of memory\n");
        return 1;
    }
    snprintf(preload, need, "%s%s%s", lib, old && *old ? ":" : "", old ? old : "");
    char start[24];
    rr_fmt_i64(start, start_ns);
    int failed = setenv("LD_PRELOAD", preload, 1) || setenv("TRACERECORD_DIR", dir, 1) ||
                 setenv("TRACERECORD_START_NS", start, 1) ||
                 (o->layers && setenv("TRACERECORD_LAYERS", o->layers, 1)) ||
                 (o->exclude && setenv("TRACERECORD_EXCLUDE", o->exclude, 1));
    free(preload);
    if (failed) fprintf(stderr, PROG ": cannot set the environment: %s\n", strerror(errno));
    return failed;
}

/*
** Runs ARGV with the signals forwarded to it; *STATUS is its wait status.
** Returns 0, 1 on a failure of ours, or 127 when ARGV[0] could not run (the
** child reports a failed exec through a close-on-exec pipe).
*/
static int run_program(char **argv, int *status)
{
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) != 0) {
        fprintf(stderr, PROG ": %s\n", strerror(errno));
        return 1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = forward;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) sigaction(sigs[i], &sa, NULL);
    child = fork();
    if (child < 0) {
        fprintf(stderr, PROG ": cannot fork: %s\n", strerror(errno));
        return 1;
    }
    if (child == 0) {
        close(pfd[0]);
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = SIG_DFL;
        for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) sigaction(sigs[i], &sa, NULL);
        execvp(argv[0], argv);
        int err = errno;
        ssize_t w = write(pfd[1], &err, sizeof err);
        (void)w;
        _exit(127);
    }
    close(pfd[1]);
    int err = 0;
    ssize_t got;
    while ((got = read(pfd[0], &err, sizeof err)) < 0 && errno == EINTR) {
    }
    close(pfd[0]);
    while (waitpid(child, status, 0) < 0 && errno == EINTR) {
    }
    if (got == (ssize_t)sizeof err) {
        fprintf(stderr, PROG ": cannot run %s: %s\n", argv[0], strerror(err));
        return 127;
    }
    return 0;
}

int main(int argc, char **argv)
{
    opts o = {0};
    int rc = parse_args(argc, argv, &o);
    if (rc >= 0) return rc;

    char dir[PATH_MAX], lib[PATH_MAX], name[64];
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    int64_t start_ns = (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec;
    if (!o.out) {
        struct tm tm;
        localtime_r(&now.tv_sec, &tm);
        strftime(name, sizeof name, "recorder-%Y%m%d-%H%M%S", &tm);
        o.out = name;
    }
    if (find_library(lib, sizeof lib) != 0 || prepare_dir(o.out, dir, sizeof dir) != 0) return 1;
    if (set_environment(&o, lib, dir, start_ns) != 0) return 1;
    int status = 0;
    rc = run_program(argv + optind, &status);
    if (rc == 127) rmdir(dir);
    if (rc != 0) return rc;

    int ranks = 0;
    if (complete_dir(dir, start_ns, &ranks) != 0) return 1;
    if (WIFSIGNALED(status))
        fprintf(stderr,
                PROG ": warning: %s was killed by signal %d (%s); its calls after the last "
                     "checkpoint are missing\n",
                argv[optind], WTERMSIG(status), strsignal(WTERMSIG(status)));
    if (!o.quiet)
        fprintf(stderr, PROG ": trace in %s (%d rank%s)\n", dir, ranks, ranks == 1 ? "" : "s");
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}
