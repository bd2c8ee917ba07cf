/*
 * stop.c - the stop flag: how a long call learns that Ctrl-C or SIGTERM asked the
 * process to stop (uno.h, "Stopping a long call"; docs/engine.md "Stopping").
 *
 * A signal handler may only store into a `volatile sig_atomic_t`; the long loops read
 * it between games and between a search's samples.  The handler is installed only while
 * a caller has armed the flag (uno_stop_arm), and only over a handler of the caller's
 * own (the Python binding's), which it then calls in turn, so the caller still learns
 * of the signal as it would have; a signal left to its default action (the process
 * dies at once) or ignored is left as it is.  Arming nests (a count); the caller
 * serialises arm and disarm (the binding holds the GIL), and the last disarm puts the
 * previous handlers back and clears the flag.
 *
 * Plain C99 has no sigaction: POSIX systems get it (SA_SIGINFO handlers chain with
 * their arguments); elsewhere `signal()` serves, and the flag still stops the loops.
 */
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
#include <signal.h>
#include <stddef.h>

#include "uno.h"

static volatile sig_atomic_t stop_sig; /* the signal that asked to stop; 0: none */
static int armed;                      /* uno_stop_arm calls not yet disarmed */

static const int STOP_SIGNALS[2] = {SIGINT, SIGTERM};

int uno_stop_requested(void)
{
    return stop_sig;
}

void uno_stop_request(int sig)
{
    stop_sig = sig != 0 ? sig : -1;
}

void uno_stop_clear(void)
{
    stop_sig = 0;
}

#if defined(SA_SIGINFO)
static struct sigaction prev[2]; /* the handlers ours replaced (valid while in_place) */
static int in_place[2];

static void on_signal(int sig, siginfo_t *info, void *ctx)
{
    stop_sig = sig;
    for (int i = 0; i < 2; i++) {
        if (!in_place[i] || STOP_SIGNALS[i] != sig)
            continue;
        if (prev[i].sa_flags & SA_SIGINFO)
            prev[i].sa_sigaction(sig, info, ctx);
        else
            prev[i].sa_handler(sig);
    }
}

void uno_stop_arm(void)
{
    if (armed++ > 0)
        return;
    stop_sig = 0;
    for (int i = 0; i < 2; i++) {
        struct sigaction now, ours;
        in_place[i] = 0;
        if (sigaction(STOP_SIGNALS[i], NULL, &now) != 0)
            continue;
        if (now.sa_flags & SA_SIGINFO ? now.sa_sigaction == NULL
                                      : now.sa_handler == SIG_DFL || now.sa_handler == SIG_IGN)
            continue; /* the default action (the process ends now) or ignored: as it is */
        ours = now;
        ours.sa_flags = (now.sa_flags | SA_SIGINFO) & ~SA_RESETHAND;
        ours.sa_sigaction = on_signal;
        prev[i] = now;
        in_place[i] = 1; /* before the handler can run */
        if (sigaction(STOP_SIGNALS[i], &ours, NULL) != 0)
            in_place[i] = 0;
    }
}

void uno_stop_disarm(void)
{
    if (armed == 0 || --armed > 0)
        return;
    for (int i = 0; i < 2; i++) {
        if (in_place[i])
            sigaction(STOP_SIGNALS[i], &prev[i], NULL);
        in_place[i] = 0;
    }
    stop_sig = 0;
}
#else /* no sigaction: signal() */
typedef void (*stop_handler)(int);
static stop_handler prev[2];

static void on_signal(int sig)
{
    stop_sig = sig;
    for (int i = 0; i < 2; i++)
        if (STOP_SIGNALS[i] == sig && prev[i] != SIG_DFL && prev[i] != SIG_IGN &&
            prev[i] != SIG_ERR) {
            signal(sig, on_signal); /* signal() may have reset it */
            prev[i](sig);
        }
}

void uno_stop_arm(void)
{
    if (armed++ > 0)
        return;
    stop_sig = 0;
    for (int i = 0; i < 2; i++) {
        prev[i] = signal(STOP_SIGNALS[i], on_signal);
        if (prev[i] == SIG_DFL || prev[i] == SIG_IGN || prev[i] == SIG_ERR) {
            if (prev[i] != SIG_ERR)
                signal(STOP_SIGNALS[i], prev[i]);
            prev[i] = SIG_ERR;
        }
    }
}

void uno_stop_disarm(void)
{
    if (armed == 0 || --armed > 0)
        return;
    for (int i = 0; i < 2; i++)
        if (prev[i] != SIG_ERR)
            signal(STOP_SIGNALS[i], prev[i]);
    stop_sig = 0;
}
#endif
