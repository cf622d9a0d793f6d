/* JSON writer and reader over yajl.  No other file includes a yajl header: the rest of agentrt
   sees struct ar_json and struct ar_jnode only.  */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

#include "json.h"
#include "utils.h"

struct ar_json
{
  yajl_gen gen;
};

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

/* Beyond C0 (which JSON escapes anyway), the characters that drive or deceive a terminal: the
   C1 controls (U+0080-U+009F; U+009B is a CSI, as ESC [ is), the bidi embeddings, overrides,
   isolates and marks (U+202A-U+202E, U+2066-U+2069, U+200E/F, U+061C, which reorder what is
   shown: "Trojan Source", CVE-2021-42574), and the line and paragraph separators (U+2028/9,
   line breaks to some viewers).  All are two or three bytes in UTF-8.  */
static bool
unsafe_cp (unsigned cp)
{
  return (cp >= 0x80 && cp <= 0x9f) || cp == 0x61c || cp == 0x200e || cp == 0x200f
         || (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

size_t
ar_json_control_len (const char *s, size_t len, unsigned *cp)
{
  const unsigned char *p = (const unsigned char *) s;
  unsigned c;

  if (len == 0)
    return 0;
  if (p[0] < 0x20 || p[0] == 0x7f)
    {
      *cp = p[0];
      return 1;
    }
  if ((p[0] & 0xe0) == 0xc0 && len >= 2 && (p[1] & 0xc0) == 0x80)
    {
      c = ((p[0] & 0x1fu) << 6) | (p[1] & 0x3fu);
      *cp = c;
      return c >= 0x80 && unsafe_cp (c) ? 2 : 0;
    }
  if ((p[0] & 0xf0) == 0xe0 && len >= 3 && (p[1] & 0xc0) == 0x80 && (p[2] & 0xc0) == 0x80)
    {
      c = ((p[0] & 0x0fu) << 12) | ((p[1] & 0x3fu) << 6) | (p[2] & 0x3fu);
      *cp = c;
      return c >= 0x800 && unsafe_cp (c) ? 3 : 0;
    }
  return 0;
}

/* Such characters can only be inside strings (JSON's own syntax is ASCII), so each becomes
   \uXXXX wherever it is, and the text means what it meant.  */
static char *
escape_unsafe (const char *in, size_t n, size_t *out_len)
{
  char *out = xmalloc (n * 3 + 1); /* two or three bytes become six */
  size_t o = 0;
  unsigned cp;

  for (size_t i = 0; i < n;)
    {
      size_t k = (unsigned char) in[i] >= 0x80 ? ar_json_control_len (in + i, n - i, &cp) : 0;
      if (k)
        {
          o += (size_t) sprintf (out + o, "\\u%04x", cp);
          i += k;
        }
      else
        out[o++] = in[i++];
    }
  out[o] = '\0';
  *out_len = o;
  return out;
}

char *
ar_json_text_safe (const char *text, size_t n, size_t *out_len)
{
  size_t len;
  char *out;

  for (size_t i = 0; i < n; i++)
    {
      unsigned cp;
      if ((unsigned char) text[i] >= 0x80 && ar_json_control_len (text + i, n - i, &cp))
        {
          out = escape_unsafe (text, n, &len);
          if (out_len)
            *out_len = len;
          return out;
        }
    }
  if (out_len)
    *out_len = n;
  return xstrndup (text, n);
}

char *
ar_json_finish (struct ar_json *j, size_t *len)
{
  const unsigned char *buf = NULL;
  size_t n = 0;
  char *out;

  yajl_gen_get_buf (j->gen, &buf, &n);
  /* yajl's beautifier already ends a document with a newline.  */
  out = ar_json_text_safe ((const char *) buf, n, len);
  ar_json_free (j);
  return out;
}

void
ar_json_obj_open (struct ar_json *j)
{
  yajl_gen_map_open (j->gen);
}

void
ar_json_obj_close (struct ar_json *j)
{
  yajl_gen_map_close (j->gen);
}

void
ar_json_arr_open (struct ar_json *j)
{
  yajl_gen_array_open (j->gen);
}

void
ar_json_arr_close (struct ar_json *j)
{
  yajl_gen_array_close (j->gen);
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
      yajl_gen_null (j->gen);
      return;
    }
  len = strlen (s);
  if (utf8_valid_len (s, len) == len)
    {
      yajl_gen_string (j->gen, (const unsigned char *) s, len);
      return;
    }
  fixed = utf8_fix (s, len);
  yajl_gen_string (j->gen, (const unsigned char *) fixed, strlen (fixed));
  free (fixed);
}

/* What a code point at p (valid UTF-8) costs in the JSON text, quotes aside, as yajl and
   ar_json_finish write it; *adv: its bytes.  */
static size_t
encoded_len (const char *p, size_t left, size_t *adv)
{
  unsigned char c = (unsigned char) *p;
  unsigned cp;
  size_t k;

  if (c < 0x80)
    {
      *adv = 1;
      if (c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t')
        return 2;
      return c < 0x20 ? 6 : 1;
    }
  k = ar_json_control_len (p, left, &cp);
  if (k)
    {
      *adv = k;
      return 6;
    }
  k = (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : 4;
  *adv = k < left ? k : left;
  return *adv;
}

#define ELLIPSIS "\xe2\x80\xa6" /* U+2026, which marks a string that was cut */

size_t
ar_json_str_max (struct ar_json *j, const char *s, size_t max, bool *cut)
{
  cleanup_free char *fixed = NULL;
  cleanup_free char *buf = NULL;
  size_t len, keep = 0, enc = 0, whole = 0, adv;

  *cut = false;
  if (s == NULL)
    {
      yajl_gen_null (j->gen);
      return 4;
    }
  len = strlen (s);
  if (utf8_valid_len (s, len) != len)
    {
      fixed = utf8_fix (s, len);
      s = fixed;
      len = strlen (s);
    }
  /* keep: the longest prefix that leaves room for the ellipsis.  */
  for (size_t i = 0; i < len; i += adv)
    {
      size_t e = encoded_len (s + i, len - i, &adv);
      if (keep == i && enc + e + (sizeof ELLIPSIS - 1) <= max)
        {
          enc += e;
          keep = i + adv;
        }
      whole += e;
      if (whole > max)
        break;
    }
  if (whole <= max)
    {
      yajl_gen_string (j->gen, (const unsigned char *) s, len);
      return whole;
    }
  *cut = true;
  if (max < sizeof ELLIPSIS - 1)
    {
      yajl_gen_string (j->gen, (const unsigned char *) "", 0);
      return 0;
    }
  buf = xmalloc (keep + sizeof ELLIPSIS);
  memcpy (buf, s, keep);
  memcpy (buf + keep, ELLIPSIS, sizeof ELLIPSIS);
  yajl_gen_string (j->gen, (const unsigned char *) buf, keep + sizeof ELLIPSIS - 1);
  return enc + sizeof ELLIPSIS - 1;
}

void
ar_json_key (struct ar_json *j, const char *key)
{
  ar_json_str (j, key);
}

void
ar_json_int (struct ar_json *j, long long v)
{
  yajl_gen_integer (j->gen, v);
}

void
ar_json_uint (struct ar_json *j, uint64_t v)
{
  char buf[24];
  int n = snprintf (buf, sizeof buf, "%llu", (unsigned long long) v);
  yajl_gen_number (j->gen, buf, n);
}

/* yajl_gen_number copies its text as it is: the one way to splice in a value that is JSON
   already (a document built elsewhere).  The caller vouches that it is valid JSON.  */
void
ar_json_raw (struct ar_json *j, const char *json)
{
  yajl_gen_number (j->gen, json, strlen (json));
}

void
ar_json_bool (struct ar_json *j, bool v)
{
  yajl_gen_bool (j->gen, v);
}

void
ar_json_null (struct ar_json *j)
{
  yajl_gen_null (j->gen);
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

int
ar_jparse (const char *text, const char *what, struct ar_jnode **root, ar_error_t *err)
{
  char msg[512] = "";
  yajl_val tree = yajl_tree_parse (text, msg, sizeof msg);

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
