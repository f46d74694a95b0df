/*
** rr_start.c: what libtracerecord.so reads from its environment when it
** starts: whether this process is a job launcher (not traced), the layers
** to trace and the rank the launcher gave.
*/
#include "rr_impl.h"
#include "rr_lib_impl.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int rr_env_int(const char *name, int *out)
{
    const char *s = getenv(name);
    if (!s || !*s) return 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || v < 0 || v > INT_MAX) return 0;
    *out = (int)v;
    return 1;
}

static const char *base_name(const char *s)
{
    const char *slash = strrchr(s, '/');
    return slash ? slash + 1 : s;
}

static int in_list(const char *name, const char *list)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        size_t k = strcspn(p, ",:");
        if (k == n && strncmp(p, name, n) == 0) return 1;
        p += k + (p[k] != '\0');
    }
    return 0;
}

/* Job launchers start the ranks; tracing them would take a rank's place. */
int rr_is_launcher(void)
{
    static const char launchers[] =
        "mpirun,mpiexec,mpiexec.hydra,mpiexec.mpich,mpirun.mpich,mpiexec.openmpi,"
        "mpirun.openmpi,orterun,prterun,prte,prted,orted,hydra_pmi_proxy,srun,torchrun";
    char cmd[4096];
    int fd = rr_sys_open(AT_FDCWD, "/proc/self/cmdline", O_RDONLY, 0);
    if (fd < 0) return 0;
    long n = syscall(SYS_read, fd, cmd, sizeof cmd - 1);
    rr_sys_close(fd);
    if (n <= 0) return 0;
    cmd[n] = '\0';
    const char *argv0 = base_name(cmd), *extra = getenv("TRACERECORD_SKIP");
    if (in_list(argv0, launchers) || in_list(argv0, extra)) return 1;
    if (strncmp(argv0, "python", 6) != 0) return 0;
    /* python torchrun / python -m torch.distributed.run */
    const char *a1 = cmd + strlen(cmd) + 1;
    if (a1 >= cmd + n) return 0;
    if (in_list(base_name(a1), launchers) || in_list(base_name(a1), extra)) return 1;
    const char *a2 = a1 + strlen(a1) + 1;
    return strcmp(a1, "-m") == 0 && a2 < cmd + n &&
           (strcmp(a2, "torch.distributed.run") == 0 ||
            strcmp(a2, "torch.distributed.launch") == 0);
}

unsigned rr_parse_layers(const char *s)
{
    if (!s) return RR_L_POSIX | RR_L_STDIO | RR_L_MPIIO | RR_L_MPI | RR_L_HDF5;
    unsigned l = 0;
    l |= in_list("posix", s) ? RR_L_POSIX : 0;
    l |= in_list("stdio", s) ? RR_L_STDIO : 0;
    l |= in_list("mpiio", s) ? RR_L_MPIIO : 0;
    l |= in_list("mpi", s) ? RR_L_MPI : 0;
    l |= in_list("hdf5", s) ? RR_L_HDF5 : 0;
    return l;
}
