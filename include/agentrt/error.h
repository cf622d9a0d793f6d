/* The one error type of agentrt (crun's contract): a fallible function takes `ar_error_t *err`
   last, returns < 0 (or NULL) with *err set on failure, and leaves *err untouched on success.
   Messages name the action and the object; `status` holds the errno, and the printer adds its
   text.  Errors are printed once, by main.  */
#ifndef AGENTRT_ERROR_H
#define AGENTRT_ERROR_H

struct ar_error
{
  int status; /* errno value, 0 if none */
  char *msg;
};
typedef struct ar_error *ar_error_t;

int ar_make_error (ar_error_t *err, int status, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));
/* Prefix context: "ctx: old msg".  Returns < 0.  */
int ar_error_wrap (ar_error_t *err, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));
void ar_error_release (ar_error_t *err);
/* The full text: "msg: strerror (status)" (caller frees).  */
char *ar_error_text (ar_error_t err);

#endif
