/* Allocation that aborts on OOM, cleanup attributes and ownership moves (steal_ptr, steal_fd).
   Nothing here prints or exits, except ar_oom.  */
#ifndef AGENTRT_ALLOC_H
#define AGENTRT_ALLOC_H

#include <stddef.h>

#define UNLIKELY(x) __builtin_expect (!!(x), 0)
#define ARRAY_SIZE(a) (sizeof (a) / sizeof ((a)[0]))

void ar_oom (void) __attribute__ ((noreturn));
void *xmalloc (size_t n);
void *xzalloc (size_t n);
void *xrealloc (void *p, size_t n);
char *xstrdup (const char *s);
char *xstrndup (const char *s, size_t n);
char *xasprintf (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

void ar_freep (void *p);
void ar_closep (int *fd);
void ar_fclosep (void *f);
void ar_strv_freep (void *p);
void ar_strv_free (char **v);

#define cleanup_free __attribute__ ((cleanup (ar_freep)))
#define cleanup_close __attribute__ ((cleanup (ar_closep)))
#define cleanup_file __attribute__ ((cleanup (ar_fclosep)))
#define cleanup_strv __attribute__ ((cleanup (ar_strv_freep)))
#define steal_ptr(pp)              \
  ({                               \
    __typeof__ (*(pp)) p_ = *(pp); \
    *(pp) = NULL;                  \
    p_;                            \
  })
#define steal_fd(fp) \
  ({                 \
    int f_ = *(fp);  \
    *(fp) = -1;      \
    f_;              \
  })

size_t ar_strv_len (char *const *v);

#endif
