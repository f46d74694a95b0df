/*
** native_target.c: a sampling target for tracesniff --native with a known
** call chain in each of two threads: the main thread spins in
** spin_three <- spin_two <- spin_one <- main, the other sleeps in
** nap_two <- nap_one <- napper.  Prints "ready" once both run; exits after
** argv[1] seconds (default 60).
*/
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long counter;
static volatile int stop;

__attribute__((noinline)) void nap_two(void)
{
    while (!stop) {
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
    }
}

__attribute__((noinline)) void nap_one(void)
{
    nap_two();
    counter++;
}

static void *napper(void *arg)
{
    (void)arg;
    nap_one();
    return NULL;
}

__attribute__((noinline)) void spin_three(time_t end)
{
    while (time(NULL) < end)
        for (int i = 0; i < 100000; i++) counter++;
}

__attribute__((noinline)) void spin_two(time_t end)
{
    spin_three(end);
    counter++;
}

__attribute__((noinline)) void spin_one(time_t end)
{
    spin_two(end);
    counter++;
}

int main(int argc, char **argv)
{
    int secs = argc > 1 ? atoi(argv[1]) : 60;
    pthread_t t;
    if (pthread_create(&t, NULL, napper, NULL) != 0) return 1;
    printf("ready\n");
    fflush(stdout);
    spin_one(time(NULL) + secs);
    stop = 1;
    pthread_join(t, NULL);
    return 0;
}
