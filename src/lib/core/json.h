/* JSON for the whole runtime, the only place that knows yajl: a writer (state, features, spec,
   logs, list output) and a read-only tree (config.json, process.json, state.json).  */
#ifndef AGENTRT_JSON_H
#define AGENTRT_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agentrt/error.h"

/* Writer.  Keys and values must alternate inside objects (OOM aborts).  A call that yajl refuses
(nesting past its 128 levels, a value where a key belongs, a second document) is kept: nothing
more is written, and finishing reports it.  */
struct ar_json;
/* indent NULL: compact, one line; otherwise pretty-printed with that indent ("\t", "  ").  */
struct ar_json *ar_json_new (const char *indent);
void ar_json_free (struct ar_json *j);
void ar_json_freep (void *p);
#define cleanup_json __attribute__ ((cleanup (ar_json_freep)))
/* Takes the text out (caller frees; pretty text ends with '\n') and frees the writer.  A writer
   whose shape comes from its input (profile.c copies a whole config.json) must use the checked
   form, which fails with "WHAT: cannot write JSON: …" if a call was refused.  The plain form is
   for documents whose shape the code fixes (state, features, logs, audit records): a refused
   call there is a bug in agentrt, and it aborts, as on OOM, rather than return an invalid
   document.  Besides the C0 controls, which JSON escapes, the characters that drive or
   deceive a terminal (C1 controls, bidi controls, line and paragraph separators) are written as
   \uXXXX, so that JSON lines a workload's strings went into are safe to print (`cat
   audit.jsonl`).  */
char *ar_json_finish (struct ar_json *j, size_t *len);
int ar_json_finish_checked (struct ar_json *j, const char *what, char **out, size_t *len,
                            ar_error_t *err);
/* The same for JSON text from elsewhere (a line of a file): a copy with those characters
   escaped; the text means what it meant.  */
char *ar_json_text_safe (const char *text, size_t n, size_t *out_len);
/* The length in bytes of the terminal control at s (len bytes left): a C0 control or DEL (1), a
   C1 control (2), a bidi control or separator (2 or 3); 0 for anything else.  *cp: the code
   point when it is one.  */
size_t ar_json_control_len (const char *s, size_t len, unsigned *cp);

void ar_json_obj_open (struct ar_json *j);
void ar_json_obj_close (struct ar_json *j);
void ar_json_arr_open (struct ar_json *j);
void ar_json_arr_close (struct ar_json *j);
void ar_json_key (struct ar_json *j, const char *key);
void ar_json_str (struct ar_json *j, const char *s); /* NULL writes null */
/* A string whose JSON form (quotes aside) takes at most `max` bytes: one that would take more is
   cut at a character and ends with "…" (U+2026), and *cut says so.  The bytes it takes.  */
size_t ar_json_str_max (struct ar_json *j, const char *s, size_t max, bool *cut);
void ar_json_int (struct ar_json *j, long long v);
void ar_json_uint (struct ar_json *j, uint64_t v);
void ar_json_bool (struct ar_json *j, bool v);
void ar_json_raw (struct ar_json *j, const char *json); /* a value that is valid JSON text */
void ar_json_null (struct ar_json *j);
void ar_json_strv (struct ar_json *j, const char *const *v, size_t n); /* an array of strings */
/* Key + value shorthands.  */
void ar_json_kstr (struct ar_json *j, const char *key, const char *s);
void ar_json_kint (struct ar_json *j, const char *key, long long v);
void ar_json_kbool (struct ar_json *j, const char *key, bool v);

/* Reader.  A parsed document is a tree of nodes owned by its root, built in time and memory
   linear in the text (json.c says how).  */
enum ar_jtype
{
  AR_J_NULL,
  AR_J_BOOL,
  AR_J_NUMBER,
  AR_J_STRING,
  AR_J_ARRAY,
  AR_J_OBJECT,
};
struct ar_jnode;
/* Documents nest at most this deep: real configs nest less than 10 levels, and this leaves room
   below the writer's 128 for a copy with edits (profile.c).  Deeper text is refused as it is
   read, before anything deeper is built.  */
#define AR_JSON_MAX_DEPTH 64
/* `what` names the document in errors: "config.json: invalid JSON: …", "config.json:
   a.b[0]: nested deeper than 64 levels".  */
int ar_jparse (const char *text, const char *what, struct ar_jnode **root, ar_error_t *err);
void ar_jfree (struct ar_jnode *root);
void ar_jfreep (void *p);
#define cleanup_jnode __attribute__ ((cleanup (ar_jfreep)))

enum ar_jtype ar_jtype (const struct ar_jnode *n);
const char *ar_jtype_name (enum ar_jtype t); /* "a string", "an object", … */
const struct ar_jnode *ar_jget (const struct ar_jnode *obj, const char *key); /* NULL if absent */
size_t ar_jlen (const struct ar_jnode *n); /* object members, array items */
const char *ar_jkey_at (const struct ar_jnode *obj, size_t i);
const struct ar_jnode *ar_jat (const struct ar_jnode *n, size_t i); /* object value or item */
const char *ar_jstr (const struct ar_jnode *n);                     /* NULL unless a string */
bool ar_jbool (const struct ar_jnode *n);
const char *ar_jnum_text (const struct ar_jnode *n); /* the number as written; NULL if none */

#endif
