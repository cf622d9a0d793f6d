/* A tiny TAP producer for the C unit tests (crun's tests/ style): each test_* function returns
   0 (pass), -1 (fail) or 77 (skip, with the reason on stdout).  */
#ifndef AGENTRT_TAP_H
#define AGENTRT_TAP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n, tap_failed;

#define TAP_FAIL(...)                           \
  do                                            \
    {                                           \
      printf ("# %s:%d: ", __FILE__, __LINE__); \
      printf (__VA_ARGS__);                     \
      printf ("\n");                            \
      return -1;                                \
    }                                           \
  while (0)

#define CHECK(cond)                           \
  do                                          \
    {                                         \
      if (!(cond))                            \
        TAP_FAIL ("check failed: %s", #cond); \
    }                                         \
  while (0)

#define CHECK_STR(a, b)                                                                        \
  do                                                                                           \
    {                                                                                          \
      const char *a_ = (a), *b_ = (b);                                                         \
      if (a_ == NULL || b_ == NULL || strcmp (a_, b_) != 0)                                    \
        TAP_FAIL ("%s = \"%s\", expected \"%s\"", #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
    }                                                                                          \
  while (0)

/* JSON written with single quotes, for readability in C strings: a copy with ' → " (caller
   frees).  */
static inline char *
tap_json (const char *sq)
{
  char *s = strdup (sq);
  if (s == NULL)
    abort ();
  for (char *p = s; *p; p++)
    if (*p == '\'')
      *p = '"';
  return s;
}

#define RUN_TEST(fn)                                \
  do                                                \
    {                                               \
      int r_ = fn ();                               \
      tap_n++;                                      \
      if (r_ == 77)                                 \
        printf ("ok %d - %s # SKIP\n", tap_n, #fn); \
      else if (r_ == 0)                             \
        printf ("ok %d - %s\n", tap_n, #fn);        \
      else                                          \
        {                                           \
          printf ("not ok %d - %s\n", tap_n, #fn);  \
          tap_failed++;                             \
        }                                           \
      fflush (stdout);                              \
    }                                               \
  while (0)

#define TAP_END()                \
  do                             \
    {                            \
      printf ("1..%d\n", tap_n); \
      return tap_failed ? 1 : 0; \
    }                            \
  while (0)

#endif
