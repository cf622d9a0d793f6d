/* Diagnostics (not the audit log): levels, and a sink that is stderr or the --log file, in runc's
   text or JSON line format.  The sink is process-wide state, set once by main before any command
   runs: every process of agentrt has exactly one stderr, so it is the one global of the library.
   ar_debug/ar_warn test the level before formatting (nsjail's logs.h).  */
#ifndef AGENTRT_LOG_H
#define AGENTRT_LOG_H

#include <stdbool.h>

#include "agentrt/error.h"

enum ar_log_level
{
  AR_LOG_ERROR,
  AR_LOG_WARN,
  AR_LOG_INFO,
  AR_LOG_DEBUG,
};

enum ar_log_format
{
  AR_LOG_TEXT,
  AR_LOG_JSON,
};

extern enum ar_log_level ar_log_level_current;

/* path NULL or "": log to stderr only.  */
int ar_log_init (const char *path, enum ar_log_format format, enum ar_log_level level,
                 ar_error_t *err);
void ar_log_close (void);
int ar_log_parse_format (const char *s, enum ar_log_format *out);
int ar_log_parse_level (const char *s, enum ar_log_level *out);

void ar_log_write (enum ar_log_level level, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));
/* To the --log file only, if there is one (for text already shown on stderr).  */
void ar_log_to_file (enum ar_log_level level, const char *msg);
/* Print a failure once: to stderr as "agentrt: MSG", and to the --log file if one is set.  */
void ar_log_error_release (ar_error_t *err);

#define ar_debug(...)                                      \
  do                                                       \
    {                                                      \
      if (UNLIKELY (ar_log_level_current >= AR_LOG_DEBUG)) \
        ar_log_write (AR_LOG_DEBUG, __VA_ARGS__);          \
    }                                                      \
  while (0)
#define ar_warn(...)                             \
  do                                             \
    {                                            \
      if (ar_log_level_current >= AR_LOG_WARN)   \
        ar_log_write (AR_LOG_WARN, __VA_ARGS__); \
    }                                            \
  while (0)

#endif
