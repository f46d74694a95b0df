/*
** tr_pool.h: the tree's one way of running jobs on several threads.
**
** Jobs are numbered 0..N and handed out in order; the calling thread is one
** of the workers.  A job that fails stops the start of every later-numbered
** job, so the first failure in job order is the one a sequential run would
** have met, and the caller reports that one.
*/
#ifndef TR_POOL_H
#define TR_POOL_H

#include <pthread.h>
#include <stddef.h>

/* The most threads a pool starts. */
#define TR_POOL_MAX 64

/* One job: returns TR_OK, or a negative code that stops later jobs. */
typedef int (*tr_pool_job)(void *user, size_t job);

/*
** tr_pool_threads: how many threads to use for N jobs
** ^WANT > 0 is taken as asked (capped at TR_POOL_MAX); 0 means the CPUs, up
** to 8.  ^Never more than N, never less than 1.
*/
int tr_pool_threads(int want, size_t n);

/*
** tr_pool_run: run jobs 0..N on THREADS threads
** ^Returns once every started job has ended.  ^Jobs after the first failed
** one (in job order) are not started; jobs before it all run.  ^Returns the
** number of jobs started, so the caller knows which results exist.  ^A
** thread that cannot be created leaves its share to the others.
*/
size_t tr_pool_run(int threads, size_t n, tr_pool_job fn, void *user);

/* A job told which thread runs it: WORKER 0..threads-1, each on one job at a time. */
typedef int (*tr_pool_job_on)(void *user, size_t job, int worker);

/*
** tr_pool_run_on: tr_pool_run, each job told its worker
** ^A job can add into its worker's own totals: many small jobs then share
** out the work without a total for each.
*/
size_t tr_pool_run_on(int threads, size_t n, tr_pool_job_on fn, void *user);

/* A job run beside the caller (tr_pool_spawn) until tr_pool_join. */
typedef struct tr_pool_task {
    pthread_t th;
    int running; /* on a thread of its own, not joined yet */
} tr_pool_task;

/*
** tr_pool_spawn: run job 0 of FN on a thread beside the caller
** ^The caller goes on and waits for it with tr_pool_join.  ^Where no thread
** can be made the job runs here, before the call returns.
*/
void tr_pool_spawn(tr_pool_task *task, tr_pool_job fn, void *user);

/* ^Waits for the job of TASK to end; a no-op when it ran in place or was joined. */
void tr_pool_join(tr_pool_task *task);

/*
** The fewest rows worth a part of a pass over a table: a thread's start and
** join cost about what a few thousand rows do.
*/
#define TR_POOL_ROWS 65536

/*
** tr_pool_parts: into how many parts to cut N rows for WANT threads
** ^WANT as tr_pool_threads takes it; no part under MIN rows; at least 1.
*/
int tr_pool_parts(int want, size_t n, size_t min);

/*
** tr_pool_part: where part J of PARTS of N rows starts
** ^Part J is rows tr_pool_part(N, PARTS, J) .. tr_pool_part(N, PARTS, J + 1);
** ^every part but the end starts at a multiple of 64 (a bit map's word).
*/
size_t tr_pool_part(size_t n, size_t parts, size_t j);

#endif
