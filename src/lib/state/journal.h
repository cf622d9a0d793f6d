/* ROOT/ID/journal: what the container's commands made or are about to make, so that a command
   killed part-way (a timeout in an engine, an OOM kill, a reboot of the runtime's host process)
   leaves a directory that delete can clean from, whatever became of state.json.  One line per
   record, appended with O_APPEND in a single write:

     cgroup PATH           before the directory is made (create)
     unit NAME             before the systemd cgroup driver asks systemd for the unit (create)
     init PID START        once the init exists (it is born in the cgroups above)
     supervisor PID START  written by the supervisor itself, first thing after its fork, while
                           its copy of create's fd still holds the container's lock
     delete                a delete has begun: a later delete finishes it, start and exec refuse

   START is field 22 of /proc/PID/stat, so that a reused pid is never taken for ours.  The
   journal never replaces state.json, which the other commands read; it is what delete reads
   besides it.  It never starts or signals processes.  */
#ifndef AGENTRT_JOURNAL_H
#define AGENTRT_JOURNAL_H

#include <stdbool.h>
#include <sys/types.h>

#include "agentrt/error.h"

#define STATE_JOURNAL "journal"

struct state_journal
{
  bool present;       /* the file exists (a directory made by this agentrt) */
  char **cgroup_dirs; /* NULL-terminated; NULL: none recorded */
  char *unit;         /* the systemd driver's unit, or NULL */
  pid_t init_pid;     /* 0: none */
  unsigned long long init_start;
  pid_t sv_pid; /* 0: none */
  unsigned long long sv_start;
  bool deleting;
};
void state_journal_release (struct state_journal *j);

/* Create (or open) the journal of the state directory `dirfd`, for appending.  */
int state_journal_open (int dirfd, ar_error_t *err);
/* The cgroup directories about to be made, in one write.  A path holding a newline is refused
   (cgroup_resolve refuses such a cgroupsPath before).  */
int state_journal_cgroups (int fd, char *const *dirs, ar_error_t *err);
/* The systemd unit about to be started (a unit name holds no newline: systemd.c).  */
int state_journal_unit (int fd, const char *unit, ar_error_t *err);
/* `role` is "init" or "supervisor".  */
int state_journal_process (int fd, const char *role, pid_t pid, unsigned long long start,
                           ar_error_t *err);
int state_journal_deleting (int dirfd, ar_error_t *err);

/* Read what the journal of `dirfd` holds; a missing or unreadable journal reads as empty (with
   j->present false).  Malformed lines (none are written) are skipped.  */
void state_journal_read (int dirfd, struct state_journal *j);

#endif
