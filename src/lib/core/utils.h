/* Small shared helpers: fd and file I/O, times, parsing (and, through alloc.h, allocation and
   the cleanup attributes).  Nothing here prints or exits.  */
#ifndef AGENTRT_UTILS_H
#define AGENTRT_UTILS_H

#include <stdbool.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "agentrt/error.h"
#include "alloc.h"

/* Flags to open a file that is then read whole: O_NONBLOCK, so that a FIFO with no writer
   does not block the open (reading a regular file ignores the flag); O_NOCTTY, so that a
   terminal named there never becomes ours.  */
#define AR_O_READ_FILE (O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
/* A file named where the runtime reads a document must be a regular file: a FIFO, a device or a
   socket would block it or feed it without end.  */
int ar_check_regular (int fd, const char *what, ar_error_t *err);
/* CLOCK_MONOTONIC in nanoseconds: for deadlines and intervals, never for dates.  */
uint64_t ar_monotonic_ns (void);
/* The same in milliseconds (deadlines for poll).  */
int64_t ar_monotonic_ms (void);
/* Read a whole regular file (opened with AR_O_READ_FILE; at most `max` bytes, 0 means 16 MiB)
   into a NUL-terminated buffer.  */
int ar_read_file (const char *path, size_t max, char **out, size_t *len, ar_error_t *err);
/* The same from an open fd of any kind (a pipe on stdin).  */
int ar_read_fd (int fd, const char *what, size_t max, char **out, size_t *len, ar_error_t *err);
/* Write all of buf, retrying short writes and EINTR.  */
int ar_write_all (int fd, const char *buf, size_t len, const char *what, ar_error_t *err);
/* Write path atomically: a temporary file in the same directory, fsync, rename.  For files meant
   to outlast a reboot (a bundle's config.json).  */
int ar_write_file_atomic (int dirfd, const char *name, const char *buf, size_t len, mode_t mode,
                          ar_error_t *err);
/* The same without the fsync: readers see the old file or the new one, never part of one, but
   a crash may lose it.  For the runtime's state (state.json, pid files, the supervisor's
   files), which means nothing after a reboot (its processes are gone): runc and crun do not
   sync theirs either, and on a disk-backed --root each fsync cost 0.3-20 ms here.  */
int ar_replace_file (int dirfd, const char *name, const char *buf, size_t len, mode_t mode,
                     ar_error_t *err);
/* The same for a file rewritten again and again in a directory of the runtime's own (a
   container's state.json): the new content goes into a companion `.NAME.next`, kept from the
   last time and rewritten in place, which is then swapped with `name` (renameat2
   RENAME_EXCHANGE); readers still see the old file or the new one.  No inode is freed and none
   is renamed over: on ext4 a rename over a file flushes the new one (auto_da_alloc) and, with
   the discard mount option (this VM's root), waits for the old one's blocks to be discarded,
   ~0.4 ms a save against ~0.06 ms so.  Falls back to ar_replace_file where the exchange is
   not supported.  */
int ar_rewrite_file (int dirfd, const char *name, const char *buf, size_t len, mode_t mode,
                     ar_error_t *err);

/* "2006-01-02T15:04:05.000000000Z", as runc writes times (UTC).  */
char *ar_time_rfc3339 (const struct timespec *ts);

/* A child, as fork() or clone(flags) (namespace flags only; its exit signal is SIGCHLD), born
   in the cgroup2 directory `cgroup_fd` when that is >= 0 (clone3's CLONE_INTO_CGROUP, Linux
   5.7: moving it there afterwards would cost an RCU grace period).  -1 and errno on failure.  */
pid_t ar_clone (unsigned long flags, int cgroup_fd);

bool ar_str_has_prefix (const char *s, const char *prefix);
bool ar_str_has_suffix (const char *s, const char *suffix);
/* Parse a whole decimal string into [min, max]; false on junk or overflow.  */
bool ar_parse_int64 (const char *s, long long min, long long max, long long *out);

#endif
