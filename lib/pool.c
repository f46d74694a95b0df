/* pool.c: running numbered jobs on several threads (tr_pool.h). */
#include "tr_pool.h"
#include "tr_mem.h"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

/*
** Where a new thread starts.  One made by a busy thread can wait on that
** one's CPU until a tick hands it to an idle one: a pool's second thread
** began its first job 3-4 ms late on the 2-CPU VM, a third of a Recorder
** rank's decode.  So each starts on another CPU the caller may use, and
** once running is free to go wherever the caller may.
*/
typedef struct placing {
#ifdef __GLIBC__
    cpu_set_t allowed;
    int here; /* the caller's CPU */
#endif
    int on; /* 0: threads start wherever the system puts them */
} placing;

static void placing_init(placing *pl)
{
    pl->on = 0;
#ifdef __GLIBC__
    pl->here = sched_getcpu();
    pl->on = pl->here >= 0 && sched_getaffinity(0, sizeof pl->allowed, &pl->allowed) == 0 &&
             CPU_COUNT(&pl->allowed) > 1;
#endif
}

/* Makes the caller's thread number I (1, 2, ..) on the I-th CPU after the caller's. */
static int place_create(const placing *pl, int i, pthread_t *th, void *(*fn)(void *), void *arg)
{
#ifdef __GLIBC__
    if (pl->on) {
        int skip = (i - 1) % (CPU_COUNT(&pl->allowed) - (CPU_ISSET(pl->here, &pl->allowed) != 0));
        int cpu = pl->here;
        do {
            cpu = (cpu + 1) % CPU_SETSIZE;
        } while (!CPU_ISSET(cpu, &pl->allowed) || cpu == pl->here || skip-- > 0);
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        pthread_attr_t attr;
        int made = pthread_attr_init(&attr) == 0 &&
                   pthread_attr_setaffinity_np(&attr, sizeof one, &one) == 0 &&
                   pthread_create(th, &attr, fn, arg) == 0;
        pthread_attr_destroy(&attr);
        if (made) return 0;
    }
#else
    (void)pl;
    (void)i;
#endif
    return pthread_create(th, NULL, fn, arg);
}

/* In a thread place_create made: from now on, any CPU the caller may use. */
static void place_free(const placing *pl)
{
#ifdef __GLIBC__
    if (pl->on) pthread_setaffinity_np(pthread_self(), sizeof pl->allowed, &pl->allowed);
#else
    (void)pl;
#endif
}

typedef struct pool {
    tr_pool_job fn;
    tr_pool_job_on fn_on; /* or this, told the worker */
    void *user;
    size_t n;
    pthread_mutex_t lock;
    size_t next;    /* the next job to hand out */
    size_t stop_at; /* no job at or past it is started: the first failed one + 1 */
    size_t started;
} pool;

typedef struct worker {
    pool *p;
    int id;
    const placing *pl; /* NULL for the caller */
} worker;

static void *pool_worker(void *arg)
{
    pool *p = ((worker *)arg)->p;
    int id = ((worker *)arg)->id;
    if (((worker *)arg)->pl) place_free(((worker *)arg)->pl);
    for (;;) {
        pthread_mutex_lock(&p->lock);
        size_t i = p->next < p->stop_at ? p->next++ : p->n;
        if (i < p->n) p->started++;
        pthread_mutex_unlock(&p->lock);
        if (i >= p->n) break;
        if ((p->fn_on ? p->fn_on(p->user, i, id) : p->fn(p->user, i)) < 0) {
            pthread_mutex_lock(&p->lock);
            if (i + 1 < p->stop_at) p->stop_at = i + 1;
            pthread_mutex_unlock(&p->lock);
        }
    }
    return NULL;
}

int tr_pool_threads(int want, size_t n)
{
    if (want <= 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        want = cpus > 0 ? (int)(cpus < 8 ? cpus : 8) : 1;
    }
    if (want > TR_POOL_MAX) want = TR_POOL_MAX;
    if ((size_t)want > n) want = (int)n;
    return want < 1 ? 1 : want;
}

static size_t pool_run(pool p, int threads)
{
    pthread_mutex_init(&p.lock, NULL);
    pthread_t tid[TR_POOL_MAX];
    worker w[TR_POOL_MAX];
    placing pl;
    if (threads > 1) placing_init(&pl);
    int made = 0;
    for (int i = 1; i < threads && i < TR_POOL_MAX; i++) {
        w[i] = (worker){&p, i, &pl};
        if (place_create(&pl, i, &tid[made], pool_worker, &w[i]) != 0) break;
        made++;
    }
    w[0] = (worker){&p, 0, NULL};
    pool_worker(&w[0]);
    for (int i = 0; i < made; i++) pthread_join(tid[i], NULL);
    pthread_mutex_destroy(&p.lock);
    return p.started;
}

size_t tr_pool_run(int threads, size_t n, tr_pool_job fn, void *user)
{
    return pool_run((pool){.fn = fn, .user = user, .n = n, .stop_at = n}, threads);
}

size_t tr_pool_run_on(int threads, size_t n, tr_pool_job_on fn, void *user)
{
    return pool_run((pool){.fn_on = fn, .user = user, .n = n, .stop_at = n}, threads);
}

typedef struct spawned {
    tr_pool_job fn;
    void *user;
    placing pl;
} spawned;

static void *spawn_main(void *arg)
{
    spawned sp = *(spawned *)arg;
    tr_free(arg);
    place_free(&sp.pl);
    sp.fn(sp.user, 0);
    return NULL;
}

void tr_pool_spawn(tr_pool_task *task, tr_pool_job fn, void *user)
{
    spawned *sp = tr_malloc(sizeof *sp);
    task->running = 0;
    if (sp) {
        *sp = (spawned){.fn = fn, .user = user};
        placing_init(&sp->pl);
        task->running = place_create(&sp->pl, 1, &task->th, spawn_main, sp) == 0;
        if (!task->running) tr_free(sp);
    }
    if (!task->running) fn(user, 0);
}

void tr_pool_join(tr_pool_task *task)
{
    if (task->running) pthread_join(task->th, NULL);
    task->running = 0;
}

int tr_pool_parts(int want, size_t n, size_t min)
{
    return tr_pool_threads(want, min ? n / min : n);
}

size_t tr_pool_part(size_t n, size_t parts, size_t j)
{
    return j >= parts ? n : (n / parts * j) & ~(size_t)63;
}
