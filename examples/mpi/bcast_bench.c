/* Times MPI_Bcast, MPI_Barrier, MPI_Reduce, MPI_Allreduce and MPI_Allgather over a few message
 * sizes and prints one line per (collective, size) with the mean time per call on rank 0.
 * Used by scripts/mpi-check.sh to show that a generated tuning file is read and applied.
 * Usage: bcast_bench [MAX_BYTES [REPS]] (defaults 1048576 and 20). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long max_bytes = argc > 1 ? atol(argv[1]) : 1048576;
    int reps = argc > 2 ? atoi(argv[2]) : 20;
    if (max_bytes < 8) max_bytes = 8;
    if (reps < 1) reps = 1;
    char *buf = malloc((size_t) max_bytes);
    char *out = malloc((size_t) max_bytes);
    char *all = malloc((size_t) max_bytes * (size_t) size);
    if (!buf || !out || !all) MPI_Abort(MPI_COMM_WORLD, 1);
    memset(buf, rank, (size_t) max_bytes);
    long sizes[] = {8, 1024, 65536, max_bytes};
    double t;
    for (int i = 0; i < 4; i++) {
        long n = sizes[i] > max_bytes ? max_bytes : sizes[i];
        int count = (int) n;
        MPI_Barrier(MPI_COMM_WORLD);
        t = MPI_Wtime();
        for (int r = 0; r < reps; r++) MPI_Bcast(buf, count, MPI_BYTE, 0, MPI_COMM_WORLD);
        t = (MPI_Wtime() - t) / reps;
        if (rank == 0) printf("bcast %ld %.3f us\n", n, t * 1e6);
        MPI_Barrier(MPI_COMM_WORLD);
        t = MPI_Wtime();
        for (int r = 0; r < reps; r++)
            MPI_Reduce(buf, out, count / 8, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        t = (MPI_Wtime() - t) / reps;
        if (rank == 0) printf("reduce %ld %.3f us\n", n, t * 1e6);
        MPI_Barrier(MPI_COMM_WORLD);
        t = MPI_Wtime();
        for (int r = 0; r < reps; r++)
            MPI_Allreduce(buf, out, count / 8, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        t = (MPI_Wtime() - t) / reps;
        if (rank == 0) printf("allreduce %ld %.3f us\n", n, t * 1e6);
        MPI_Barrier(MPI_COMM_WORLD);
        t = MPI_Wtime();
        for (int r = 0; r < reps; r++)
            MPI_Allgather(buf, count, MPI_BYTE, all, count, MPI_BYTE, MPI_COMM_WORLD);
        t = (MPI_Wtime() - t) / reps;
        if (rank == 0) printf("allgather %ld %.3f us\n", n, t * 1e6);
    }
    t = MPI_Wtime();
    for (int r = 0; r < reps; r++) MPI_Barrier(MPI_COMM_WORLD);
    t = (MPI_Wtime() - t) / reps;
    if (rank == 0) printf("barrier 0 %.3f us\n", t * 1e6);
    free(buf);
    free(out);
    free(all);
    MPI_Finalize();
    return 0;
}
