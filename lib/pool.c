/* pool.c: running numbered jobs on several threads (tr_pool.h). */
#include "tr_pool.h"
#include "tr_mem.h"

#include <pthread.h>
#include <unistd.h>

typedef struct pool {
    tr_pool_job fn;
    void *user;
    size_t n;
    pthread_mutex_t lock;
    size_t next;    /* the next job to hand out */
    size_t stop_at; /* no job at or past it is started: the first failed one + 1 */
    size_t started;
} pool;

static void *pool_worker(void *arg)
{
    pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        size_t i = p->next < p->stop_at ? p->next++ : p->n;
        if (i < p->n) p->started++;
        pthread_mutex_unlock(&p->lock);
        if (i >= p->n) break;
        if (p->fn(p->user, i) < 0) {
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

size_t tr_pool_run(int threads, size_t n, tr_pool_job fn, void *user)
{
    pool p = {.fn = fn, .user = user, .n = n, .stop_at = n};
    pthread_mutex_init(&p.lock, NULL);
    pthread_t tid[TR_POOL_MAX];
    int made = 0;
    for (int i = 1; i < threads && i < TR_POOL_MAX; i++) {
        if (pthread_create(&tid[made], NULL, pool_worker, &p) != 0) break;
        made++;
    }
    pool_worker(&p);
    for (int i = 0; i < made; i++) pthread_join(tid[i], NULL);
    pthread_mutex_destroy(&p.lock);
    return p.started;
}

typedef struct spawned {
    tr_pool_job fn;
    void *user;
} spawned;

static void *spawn_main(void *arg)
{
    spawned sp = *(spawned *)arg;
    tr_free(arg);
    sp.fn(sp.user, 0);
    return NULL;
}

void tr_pool_spawn(tr_pool_task *task, tr_pool_job fn, void *user)
{
    spawned *sp = tr_malloc(sizeof *sp);
    task->running = 0;
    if (sp) {
        *sp = (spawned){fn, user};
        task->running = pthread_create(&task->th, NULL, spawn_main, sp) == 0;
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
