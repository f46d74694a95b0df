/*
** rec_mpi.c: an MPI-IO program traced by tests/record/record.py (built with
** mpicc when it is installed).  Each rank writes its block of a shared file
** collectively, one more block independently, reads its block back, and
** writes a file of its own with POSIX calls.  With the argument "hang",
** each rank writes 5 blocks of its own file, then every rank but 1 waits in
** MPI_Barrier while rank 1 sleeps 2.5 s and dies of SIGKILL (the launcher
** then kills the others): a job cut inside a collective.
*/
#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int hang(int rank)
{
    static char buf[64];
    char name[64];
    snprintf(name, sizeof name, "hang_rank%d.dat", rank);
    int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    for (int i = 0; i < 5; i++)
        if (write(fd, buf, sizeof buf) < 0) return 1;
    close(fd);
    if (rank == 1) {
        struct timespec ts = {2, 500000000};
        nanosleep(&ts, NULL);
        raise(SIGKILL);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return 0;
}

int main(int argc, char **argv)
{
    static char buf[4096];
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && strcmp(argv[1], "hang") == 0) return hang(rank);
    MPI_File fh;
    MPI_Status st;
    MPI_File_open(MPI_COMM_WORLD, "shared.mpiio", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                  &fh);
    MPI_File_write_at_all(fh, (MPI_Offset)rank * 100, buf, 100, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_write_at(fh, 1000 + (MPI_Offset)rank * 16, buf, 4, MPI_INT, &st);
    MPI_File_read_at(fh, (MPI_Offset)rank * 100, buf, 100, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    char name[64];
    snprintf(name, sizeof name, "posix_rank%d.dat", rank);
    int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    for (int i = 0; i < 3; i++)
        if (write(fd, buf, (size_t)(rank + 1) * 10) < 0) return 1;
    close(fd);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
