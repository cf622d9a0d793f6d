/* Signal names as runc and crun accept them for `kill`: numbers, names with or without the SIG
   prefix, case-insensitive, and SIGRTMIN+N / SIGRTMAX-N.  */
#include <config.h>

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "agentrt/container.h"
#include "utils.h"

static const struct
{
  const char *name;
  int sig;
} signals[] = {
  { "HUP", SIGHUP },       { "INT", SIGINT },   { "QUIT", SIGQUIT },     { "ILL", SIGILL },
  { "TRAP", SIGTRAP },     { "ABRT", SIGABRT }, { "IOT", SIGIOT },       { "BUS", SIGBUS },
  { "FPE", SIGFPE },       { "KILL", SIGKILL }, { "USR1", SIGUSR1 },     { "SEGV", SIGSEGV },
  { "USR2", SIGUSR2 },     { "PIPE", SIGPIPE }, { "ALRM", SIGALRM },     { "TERM", SIGTERM },
  { "STKFLT", SIGSTKFLT }, { "CHLD", SIGCHLD }, { "CONT", SIGCONT },     { "STOP", SIGSTOP },
  { "TSTP", SIGTSTP },     { "TTIN", SIGTTIN }, { "TTOU", SIGTTOU },     { "URG", SIGURG },
  { "XCPU", SIGXCPU },     { "XFSZ", SIGXFSZ }, { "VTALRM", SIGVTALRM }, { "PROF", SIGPROF },
  { "WINCH", SIGWINCH },   { "IO", SIGIO },     { "POLL", SIGPOLL },     { "PWR", SIGPWR },
  { "SYS", SIGSYS },
};

static int
parse_realtime (const char *s)
{
  long long n = 0;

  if (strcasecmp (s, "RTMIN") == 0)
    return SIGRTMIN;
  if (strcasecmp (s, "RTMAX") == 0)
    return SIGRTMAX;
  if (strncasecmp (s, "RTMIN+", 6) == 0 && ar_parse_int64 (s + 6, 0, SIGRTMAX - SIGRTMIN, &n))
    return SIGRTMIN + (int) n;
  if (strncasecmp (s, "RTMAX-", 6) == 0 && ar_parse_int64 (s + 6, 0, SIGRTMAX - SIGRTMIN, &n))
    return SIGRTMAX - (int) n;
  return -1;
}

int
ar_signal_parse (const char *s)
{
  long long n;

  if (s == NULL || *s == '\0')
    return -1;
  if (ar_parse_int64 (s, 0, SIGRTMAX, &n))
    return (int) n;
  if (strncasecmp (s, "SIG", 3) == 0)
    s += 3;
  for (size_t i = 0; i < ARRAY_SIZE (signals); i++)
    if (strcasecmp (s, signals[i].name) == 0)
      return signals[i].sig;
  return parse_realtime (s);
}
