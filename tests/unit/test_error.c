/* Unit tests of the error type, the small utilities and signal names.  */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agentrt/container.h"
#include "agentrt/error.h"
#include "tap.h"
#include "utils.h"

static int
test_make_and_wrap (void)
{
  ar_error_t err = NULL;
  cleanup_free char *text = NULL;

  CHECK (ar_make_error (&err, ENOENT, "open `%s`", "/x") < 0);
  CHECK (err->status == ENOENT);
  CHECK (ar_error_wrap (&err, "load %s", "config") < 0);
  text = ar_error_text (err);
  CHECK_STR (text, "load config: open `/x`: No such file or directory");
  ar_error_release (&err);
  CHECK (err == NULL);
  ar_error_release (&err); /* twice is harmless */
  CHECK (ar_make_error (NULL, 0, "dropped") < 0);
  return 0;
}

static int
test_text_without_errno (void)
{
  ar_error_t err = NULL;
  cleanup_free char *text = NULL;

  ar_make_error (&err, 0, "plain");
  text = ar_error_text (err);
  CHECK_STR (text, "plain");
  ar_error_release (&err);
  return 0;
}

static int
test_parse_int64 (void)
{
  long long v = 0;

  CHECK (ar_parse_int64 ("42", 0, 100, &v) && v == 42);
  CHECK (!ar_parse_int64 ("101", 0, 100, &v));
  CHECK (!ar_parse_int64 ("4x", 0, 100, &v));
  CHECK (!ar_parse_int64 ("", 0, 100, &v));
  CHECK (!ar_parse_int64 ("99999999999999999999", 0, 100, &v));
  return 0;
}

static int
test_atomic_write (void)
{
  char dir[] = "/tmp/agentrt-test-util.XXXXXX";
  ar_error_t err = NULL;
  cleanup_free char *got = NULL;
  cleanup_free char *path = NULL;
  cleanup_close int fd = -1;

  CHECK (mkdtemp (dir) != NULL);
  fd = open (dir, O_RDONLY | O_DIRECTORY);
  CHECK (ar_write_file_atomic (fd, "f", "one", 3, 0600, &err) == 0);
  CHECK (ar_write_file_atomic (fd, "f", "two!", 4, 0600, &err) == 0);
  CHECK (ar_replace_file (fd, "g", "three", 5, 0600, &err) == 0);
  CHECK (ar_replace_file (fd, "g", "four", 4, 0600, &err) == 0);
  path = xasprintf ("%s/g", dir);
  CHECK (ar_read_file (path, 0, &got, NULL, &err) == 0);
  CHECK_STR (got, "four");
  CHECK (unlink (path) == 0);
  free (path);
  free (got);
  got = NULL;
  path = xasprintf ("%s/f", dir);
  CHECK (ar_read_file (path, 0, &got, NULL, &err) == 0);
  CHECK_STR (got, "two!");
  CHECK (unlink (path) == 0 && rmdir (dir) == 0); /* no temporary file left */
  CHECK (ar_read_file (path, 0, &got, NULL, &err) < 0 && err->status == ENOENT);
  ar_error_release (&err);
  return 0;
}

/* A FIFO with no writer named where a file is read blocked exec --process and update
   --resources for ever; a device would be read without end.  Refused at once, by name.  */
static int
test_read_file_refuses_non_regular (void)
{
  char dir[] = "/tmp/agentrt-test-util.XXXXXX";
  cleanup_free char *fifo = NULL;
  cleanup_free char *file = NULL;
  cleanup_free char *text = NULL;
  cleanup_free char *msg = NULL;
  char *got = NULL;
  ar_error_t err = NULL;
  cleanup_close int fd = -1;
  time_t t0 = time (NULL);

  CHECK (mkdtemp (dir) != NULL);
  fifo = xasprintf ("%s/fifo", dir);
  CHECK (mkfifo (fifo, 0600) == 0);
  alarm (10); /* the old open blocked: fail rather than hang */
  CHECK (ar_read_file (fifo, 0, &got, NULL, &err) < 0 && got == NULL);
  alarm (0);
  CHECK (time (NULL) - t0 < 5);
  msg = ar_error_text (err);
  ar_error_release (&err);
  text = xasprintf ("`%s` is not a regular file", fifo);
  CHECK_STR (msg, text);
  CHECK (ar_read_file ("/dev/zero", 0, &got, NULL, &err) < 0 && got == NULL);
  ar_error_release (&err);

  /* A regular file past the cap names it.  */
  file = xasprintf ("%s/big", dir);
  fd = open (file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  CHECK (fd >= 0 && write (fd, "0123456789", 10) == 10);
  CHECK (ar_read_file (file, 9, &got, NULL, &err) < 0);
  free (msg);
  msg = ar_error_text (err);
  ar_error_release (&err);
  free (text);
  text = xasprintf ("%s: larger than 9 bytes", file);
  CHECK_STR (msg, text);
  CHECK (ar_read_file (file, 10, &got, NULL, &err) == 0);
  CHECK_STR (got, "0123456789");
  free (got);
  CHECK (unlink (fifo) == 0 && unlink (file) == 0 && rmdir (dir) == 0);
  return 0;
}

static int
test_time_format (void)
{
  struct timespec ts = { .tv_sec = 0, .tv_nsec = 5 };
  cleanup_free char *t = ar_time_rfc3339 (&ts);

  CHECK_STR (t, "1970-01-01T00:00:00.000000005Z");
  return 0;
}

static int
test_signals (void)
{
  CHECK (ar_signal_parse ("9") == SIGKILL);
  CHECK (ar_signal_parse ("KILL") == SIGKILL);
  CHECK (ar_signal_parse ("SIGTERM") == SIGTERM);
  CHECK (ar_signal_parse ("sigusr1") == SIGUSR1);
  CHECK (ar_signal_parse ("SIGRTMIN+2") == SIGRTMIN + 2);
  CHECK (ar_signal_parse ("RTMAX-1") == SIGRTMAX - 1);
  CHECK (ar_signal_parse ("0") == 0); /* runc accepts it: only checks the process exists */
  CHECK (ar_signal_parse ("-1") == -1);
  CHECK (ar_signal_parse ("SIGFOO") == -1);
  CHECK (ar_signal_parse ("65") == -1);
  CHECK (ar_signal_parse ("") == -1);
  return 0;
}

int
main (void)
{
  RUN_TEST (test_make_and_wrap);
  RUN_TEST (test_text_without_errno);
  RUN_TEST (test_parse_int64);
  RUN_TEST (test_atomic_write);
  RUN_TEST (test_read_file_refuses_non_regular);
  RUN_TEST (test_time_format);
  RUN_TEST (test_signals);
  TAP_END ();
}
