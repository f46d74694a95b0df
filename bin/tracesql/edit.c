/*
** edit.c: the interactive prompt's line editing and history, through
** libedit (BSD-licensed; the sqlite3 shell uses it the same way): arrows,
** Ctrl-R, and a history file ($TRACESQL_HISTORY, else ~/.tracesql_history;
** an empty TRACESQL_HISTORY keeps none).  Only when standard input and output
** are both terminals: otherwise lines are read with getline, as before.
*/
#include "tracesql_impl.h"

#include <editline/readline.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int editing;
static char history_path[4096];

void tsql_edit_begin(int interactive)
{
    editing = interactive && isatty(0) && isatty(1);
    if (!editing) return;
    const char *env = getenv("TRACESQL_HISTORY"), *home = getenv("HOME");
    if (env)
        snprintf(history_path, sizeof history_path, "%s", env);
    else if (home && *home)
        snprintf(history_path, sizeof history_path, "%s/.tracesql_history", home);
    using_history();
    stifle_history(1000);
    if (history_path[0]) read_history(history_path);
}

void tsql_edit_end(void)
{
    if (editing && history_path[0]) write_history(history_path);
    editing = 0;
}

/* The line a user typed, in *LINE with its '\n' as getline gives it. */
static ssize_t edit_line(const char *prompt, char **line, size_t *cap)
{
    errno = 0;
    char *got = readline(prompt);
    if (!got) return -1; /* end of input, or EINTR after Ctrl-C */
    size_t n = strlen(got);
    if (n + 2 > *cap) {
        char *p = realloc(*line, n + 2);
        if (!p) {
            free(got);
            errno = ENOMEM;
            return -1;
        }
        *line = p;
        *cap = n + 2;
    }
    memcpy(*line, got, n);
    (*line)[n] = '\n';
    (*line)[n + 1] = '\0';
    if (strspn(got, " \t") < n) add_history(got);
    free(got);
    return (ssize_t)n + 1;
}

ssize_t tsql_edit_read(const char *prompt, char **line, size_t *cap)
{
    if (editing) return edit_line(prompt, line, cap);
    if (prompt) {
        fputs(prompt, stdout);
        fflush(stdout);
    }
    errno = 0;
    return getline(line, cap, stdin);
}
