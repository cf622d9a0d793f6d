/* JSON writer and reader over yajl.  No other file includes a yajl header: the rest of agentrt
   sees struct ar_json and struct ar_jnode only.  */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_parse.h>
#include <yajl/yajl_tree.h>

#include "json.h"
#include "utils.h"

struct ar_json
{
  yajl_gen gen;
  /* The first call that failed, kept: yajl does not stop on its own, and a call after
     yajl_max_depth_exceeded writes past the end of its 128-level state array.  */
  yajl_gen_status status;
};

/* Every writer call goes through this: nothing more is written once one call has failed.  */
#define GEN(j, call)                         \
  do                                         \
    {                                        \
      if ((j)->status == yajl_gen_status_ok) \
        (j)->status = (call);                \
    }                                        \
  while (0)

struct ar_json *
ar_json_new (const char *indent)
{
  struct ar_json *j = xzalloc (sizeof *j);
  j->gen = yajl_gen_alloc (NULL);
  if (j->gen == NULL)
    ar_oom ();
  yajl_gen_config (j->gen, yajl_gen_beautify, indent ? 1 : 0);
  if (indent)
    yajl_gen_config (j->gen, yajl_gen_indent_string, indent);
  return j;
}

void
ar_json_free (struct ar_json *j)
{
  if (j == NULL)
    return;
  yajl_gen_free (j->gen);
  free (j);
}

void
ar_json_freep (void *p)
{
  ar_json_free (*(struct ar_json **) p);
}

static const char *
gen_status_text (yajl_gen_status st)
{
  switch (st)
    {
    case yajl_max_depth_exceeded:
      return "nested deeper than 128 levels";
    case yajl_gen_keys_must_be_strings:
      return "a key that is not a string";
    case yajl_gen_generation_complete:
      return "a second value after the document";
    case yajl_gen_invalid_number:
      return "an invalid number";
    case yajl_gen_invalid_string:
      return "a string that is not UTF-8";
    default:
      return "invalid document";
    }
}

int
ar_json_finish_checked (struct ar_json *j, const char *what, char **out, size_t *len,
                        ar_error_t *err)
{
  const unsigned char *buf = NULL;
  size_t n = 0;
  yajl_gen_status st = j->status;

  if (st == yajl_gen_status_ok)
    st = yajl_gen_get_buf (j->gen, &buf, &n);
  if (st != yajl_gen_status_ok)
    {
      ar_json_free (j);
      return ar_make_error (err, 0, "%s: cannot write JSON: %s", what, gen_status_text (st));
    }
  /* yajl's beautifier already ends a document with a newline.  */
  *out = xstrndup ((const char *) buf, n);
  if (len)
    *len = n;
  ar_json_free (j);
  return 0;
}

char *
ar_json_finish (struct ar_json *j, size_t *len)
{
  char *out = NULL;

  if (j->status != yajl_gen_status_ok)
    {
      /* As ar_oom: a document whose shape the code fixes was refused, a bug in agentrt, and an
         invalid document must never be written or parsed as if it were whole.  */
      char msg[128];
      int n = snprintf (msg, sizeof msg, "agentrt: bug: JSON writer: %s\n",
                        gen_status_text (j->status));
      (void) !write (2, msg, (size_t) n);
      abort ();
    }
  (void) ar_json_finish_checked (j, "", &out, len, NULL);
  return out;
}

void
ar_json_obj_open (struct ar_json *j)
{
  GEN (j, yajl_gen_map_open (j->gen));
}

void
ar_json_obj_close (struct ar_json *j)
{
  GEN (j, yajl_gen_map_close (j->gen));
}

void
ar_json_arr_open (struct ar_json *j)
{
  GEN (j, yajl_gen_array_open (j->gen));
}

void
ar_json_arr_close (struct ar_json *j)
{
  GEN (j, yajl_gen_array_close (j->gen));
}

/* yajl writes bytes as they come: a string that is not UTF-8 (a path or a comm a workload
   chose) would make the whole document invalid JSON.  The length of the valid prefix.  */
static size_t
utf8_valid_len (const char *s, size_t len)
{
  const unsigned char *p = (const unsigned char *) s;
  size_t i = 0;

  while (i < len)
    {
      unsigned c = p[i], cp;
      size_t n; /* continuation bytes */

      if (c < 0x80)
        {
          i++;
          continue;
        }
      n = (c & 0xe0) == 0xc0 ? 1 : (c & 0xf0) == 0xe0 ? 2 : (c & 0xf8) == 0xf0 ? 3 : 0;
      if (n == 0 || i + n >= len)
        return i; /* a stray continuation byte, 0xf8 and up, or cut short */
      cp = c & (0x3fu >> n);
      for (size_t k = 1; k <= n; k++)
        {
          if ((p[i + k] & 0xc0) != 0x80)
            return i;
          cp = (cp << 6) | (p[i + k] & 0x3f);
        }
      /* Overlong forms, surrogates and values past U+10FFFF are not UTF-8 either.  */
      if ((n == 1 && cp < 0x80) || (n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000)
          || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
        return i;
      i += n + 1;
    }
  return i;
}

/* Each byte that is not part of valid UTF-8 becomes U+FFFD.  */
static char *
utf8_fix (const char *s, size_t len)
{
  char *out = xmalloc (len * 3 + 1);
  size_t o = 0;

  while (len > 0)
    {
      size_t ok = utf8_valid_len (s, len);
      memcpy (out + o, s, ok);
      o += ok;
      s += ok;
      len -= ok;
      if (len > 0)
        {
          memcpy (out + o, "\xef\xbf\xbd", 3);
          o += 3;
          s++;
          len--;
        }
    }
  out[o] = '\0';
  return out;
}

void
ar_json_str (struct ar_json *j, const char *s)
{
  size_t len;
  char *fixed;

  if (s == NULL)
    {
      GEN (j, yajl_gen_null (j->gen));
      return;
    }
  len = strlen (s);
  if (utf8_valid_len (s, len) == len)
    {
      GEN (j, yajl_gen_string (j->gen, (const unsigned char *) s, len));
      return;
    }
  fixed = utf8_fix (s, len);
  GEN (j, yajl_gen_string (j->gen, (const unsigned char *) fixed, strlen (fixed)));
  free (fixed);
}

void
ar_json_key (struct ar_json *j, const char *key)
{
  ar_json_str (j, key);
}

void
ar_json_int (struct ar_json *j, long long v)
{
  GEN (j, yajl_gen_integer (j->gen, v));
}

void
ar_json_uint (struct ar_json *j, uint64_t v)
{
  char buf[24];
  int n = snprintf (buf, sizeof buf, "%llu", (unsigned long long) v);
  GEN (j, yajl_gen_number (j->gen, buf, n));
}

/* yajl_gen_number copies its text as it is: the one way to splice in a value that is JSON
   already (a document built elsewhere).  The caller vouches that it is valid JSON.  */
void
ar_json_raw (struct ar_json *j, const char *json)
{
  GEN (j, yajl_gen_number (j->gen, json, strlen (json)));
}

void
ar_json_bool (struct ar_json *j, bool v)
{
  GEN (j, yajl_gen_bool (j->gen, v));
}

void
ar_json_null (struct ar_json *j)
{
  GEN (j, yajl_gen_null (j->gen));
}

void
ar_json_strv (struct ar_json *j, const char *const *v, size_t n)
{
  ar_json_arr_open (j);
  for (size_t i = 0; i < n; i++)
    ar_json_str (j, v[i]);
  ar_json_arr_close (j);
}

void
ar_json_kstr (struct ar_json *j, const char *key, const char *s)
{
  ar_json_key (j, key);
  ar_json_str (j, s);
}

void
ar_json_kint (struct ar_json *j, const char *key, long long v)
{
  ar_json_key (j, key);
  ar_json_int (j, v);
}

void
ar_json_kbool (struct ar_json *j, const char *key, bool v)
{
  ar_json_key (j, key);
  ar_json_bool (j, v);
}

/* Reader: struct ar_jnode is yajl's node, never dereferenced outside this file.  */
static yajl_val
V (const struct ar_jnode *n)
{
  return (yajl_val) n;
}

/* The depth check: yajl's event parser over the text, building nothing, stopped at the first
   container past AR_JSON_MAX_DEPTH.  It keeps the path to the current value for the error.
   Syntax errors are left to yajl_tree_parse, which words them.  */
#define SCAN_KEY_MAX 40

struct scan_level
{
  bool array;
  size_t index;               /* the current item of an array */
  char key[SCAN_KEY_MAX + 4]; /* the current member of an object, cut short with "..." */
};

struct depth_scan
{
  int depth; /* containers open */
  bool too_deep;
  struct scan_level at[AR_JSON_MAX_DEPTH];
};

static int
scan_value (void *ctx)
{
  struct depth_scan *s = ctx;
  if (s->depth > 0 && s->at[s->depth - 1].array)
    s->at[s->depth - 1].index++;
  return 1;
}

static int
scan_open (struct depth_scan *s, bool array)
{
  if (s->depth == AR_JSON_MAX_DEPTH)
    {
      s->too_deep = true;
      return 0; /* yajl_status_client_canceled: the rest is not read */
    }
  s->at[s->depth++] = (struct scan_level){ .array = array };
  return 1;
}

static int
scan_close (void *ctx)
{
  struct depth_scan *s = ctx;
  s->depth--;
  return scan_value (ctx);
}

static int
scan_start_map (void *ctx)
{
  return scan_open (ctx, false);
}

static int
scan_start_array (void *ctx)
{
  return scan_open (ctx, true);
}

static int
scan_key (void *ctx, const unsigned char *key, size_t len)
{
  struct depth_scan *s = ctx;
  char *k = s->at[s->depth - 1].key;
  size_t n = len > SCAN_KEY_MAX ? SCAN_KEY_MAX : len;

  /* Controls would break the one-line error.  */
  for (size_t i = 0; i < n; i++)
    k[i] = key[i] < 0x20 || key[i] == 0x7f ? '?' : (char) key[i];
  strcpy (k + n, len > n ? "..." : "");
  return 1;
}

static int
scan_bool (void *ctx, int v)
{
  (void) v;
  return scan_value (ctx);
}

static int
scan_number (void *ctx, const char *v, size_t len)
{
  (void) v, (void) len;
  return scan_value (ctx);
}

static int
scan_string (void *ctx, const unsigned char *v, size_t len)
{
  (void) v, (void) len;
  return scan_value (ctx);
}

/* The first levels of the path: enough to find where the nesting starts.  */
#define SCAN_PATH_LEVELS 8

static char *
scan_path (const struct depth_scan *s)
{
  char *path = xstrdup ("");

  for (int i = 0; i < s->depth; i++)
    {
      char *next;

      if (i == SCAN_PATH_LEVELS)
        next = xasprintf ("%s...", path);
      else if (s->at[i].array)
        next = xasprintf ("%s[%zu]", path, s->at[i].index);
      else
        next = xasprintf ("%s%s%s", path, i ? "." : "", s->at[i].key);
      free (path);
      path = next;
      if (i == SCAN_PATH_LEVELS)
        break;
    }
  return path;
}

static int
check_depth (const char *text, const char *what, ar_error_t *err)
{
  static const yajl_callbacks cb = {
    .yajl_null = scan_value,
    .yajl_boolean = scan_bool,
    .yajl_number = scan_number,
    .yajl_string = scan_string,
    .yajl_start_map = scan_start_map,
    .yajl_map_key = scan_key,
    .yajl_end_map = scan_close,
    .yajl_start_array = scan_start_array,
    .yajl_end_array = scan_close,
  };
  struct depth_scan s = { 0 };
  cleanup_free char *path = NULL;
  yajl_handle h = yajl_alloc (&cb, NULL, &s);

  if (h == NULL)
    ar_oom ();
  /* As yajl_tree_parse reads it.  */
  yajl_config (h, yajl_allow_comments, 1);
  if (yajl_parse (h, (const unsigned char *) text, strlen (text)) == yajl_status_ok)
    (void) yajl_complete_parse (h);
  yajl_free (h);
  if (!s.too_deep)
    return 0;
  path = scan_path (&s);
  return ar_make_error (err, 0, "%s: %s%snested deeper than %d levels", what, path,
                        path[0] ? ": " : "", AR_JSON_MAX_DEPTH);
}

int
ar_jparse (const char *text, const char *what, struct ar_jnode **root, ar_error_t *err)
{
  char msg[512] = "";
  yajl_val tree;

  if (check_depth (text, what, err) < 0)
    return -1;
  tree = yajl_tree_parse (text, msg, sizeof msg);
  if (tree == NULL)
    {
      size_t l = strlen (msg);
      while (l > 0 && (msg[l - 1] == '\n' || msg[l - 1] == ' '))
        msg[--l] = '\0';
      for (char *p = msg; *p; p++)
        if (*p == '\n')
          *p = ' ';
      return ar_make_error (err, 0, "%s: invalid JSON: %s", what, msg[0] ? msg : "parse error");
    }
  *root = (struct ar_jnode *) tree;
  return 0;
}

void
ar_jfree (struct ar_jnode *root)
{
  if (root)
    yajl_tree_free (V (root));
}

void
ar_jfreep (void *p)
{
  ar_jfree (*(struct ar_jnode **) p);
}

enum ar_jtype
ar_jtype (const struct ar_jnode *n)
{
  yajl_val v = V (n);
  if (v == NULL)
    return AR_J_NULL;
  switch (v->type)
    {
    case yajl_t_string:
      return AR_J_STRING;
    case yajl_t_number:
      return AR_J_NUMBER;
    case yajl_t_object:
      return AR_J_OBJECT;
    case yajl_t_array:
      return AR_J_ARRAY;
    case yajl_t_true:
    case yajl_t_false:
      return AR_J_BOOL;
    default:
      return AR_J_NULL;
    }
}

const char *
ar_jtype_name (enum ar_jtype t)
{
  static const char *const names[] = {
    [AR_J_NULL] = "null",       [AR_J_BOOL] = "a boolean", [AR_J_NUMBER] = "a number",
    [AR_J_STRING] = "a string", [AR_J_ARRAY] = "an array", [AR_J_OBJECT] = "an object",
  };
  return names[t];
}

const struct ar_jnode *
ar_jget (const struct ar_jnode *obj, const char *key)
{
  yajl_val v = V (obj);
  if (v == NULL || v->type != yajl_t_object)
    return NULL;
  /* The last duplicate wins, as in Go's encoding/json that runc uses.  */
  for (size_t i = v->u.object.len; i-- > 0;)
    if (strcmp (v->u.object.keys[i], key) == 0)
      return (const struct ar_jnode *) v->u.object.values[i];
  return NULL;
}

size_t
ar_jlen (const struct ar_jnode *n)
{
  yajl_val v = V (n);
  if (v == NULL)
    return 0;
  if (v->type == yajl_t_object)
    return v->u.object.len;
  if (v->type == yajl_t_array)
    return v->u.array.len;
  return 0;
}

const char *
ar_jkey_at (const struct ar_jnode *obj, size_t i)
{
  yajl_val v = V (obj);
  if (v == NULL || v->type != yajl_t_object || i >= v->u.object.len)
    return NULL;
  return v->u.object.keys[i];
}

const struct ar_jnode *
ar_jat (const struct ar_jnode *n, size_t i)
{
  yajl_val v = V (n);
  if (v == NULL)
    return NULL;
  if (v->type == yajl_t_object && i < v->u.object.len)
    return (const struct ar_jnode *) v->u.object.values[i];
  if (v->type == yajl_t_array && i < v->u.array.len)
    return (const struct ar_jnode *) v->u.array.values[i];
  return NULL;
}

const char *
ar_jstr (const struct ar_jnode *n)
{
  yajl_val v = V (n);
  return v && v->type == yajl_t_string ? v->u.string : NULL;
}

bool
ar_jbool (const struct ar_jnode *n)
{
  yajl_val v = V (n);
  return v && v->type == yajl_t_true;
}

const char *
ar_jnum_text (const struct ar_jnode *n)
{
  yajl_val v = V (n);
  return v && v->type == yajl_t_number ? v->u.number.r : NULL;
}
