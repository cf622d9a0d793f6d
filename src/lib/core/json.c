/* JSON writer and reader over yajl (its generator and its event parser).  No other file
   includes a yajl header: the rest of agentrt sees struct ar_json and struct ar_jnode only.  */
#include <config.h>

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_parse.h>

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
  *out = ar_json_text_safe ((const char *) buf, n, len);
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

/* Reader.  The tree is built here from yajl's event parser rather than by yajl_tree:
   - depth: a container past AR_JSON_MAX_DEPTH stops the parse before anything deeper exists
     (yajl_tree frees recursively, and 400,000 levels of [[[ ]]] overflowed the stack);
   - time: yajl_tree grows every array and object by one with realloc, quadratic wherever
     realloc moves the block (under ASan, or another allocator); here a container's items
     gather in a vector per level that doubles and is reused, and are copied once, at its end;
   - memory: nodes, strings and item arrays live in one arena owned by the document, freed
     chunk by chunk, with no walk of the tree at all.  */
struct ar_jnode
{
  enum ar_jtype type;
  bool b;     /* AR_J_BOOL */
  size_t len; /* items of an array, members of an object */
  union
  {
    const char *text;              /* AR_J_STRING, AR_J_NUMBER: NUL-terminated */
    const struct ar_jnode **items; /* array items, object values */
  };
  const char **keys; /* object keys */
};

struct chunk
{
  struct chunk *next;
  size_t used, size;
  void *data[]; /* nodes, pointers and strings: pointer alignment is all they need */
};

/* A parsed document: its root node first, so the root is the document.  */
struct jdoc
{
  struct ar_jnode root;
  struct chunk *chunks;
};

#define CHUNK_SIZE (64u << 10)

static void *
arena_alloc (struct jdoc *d, size_t size)
{
  struct chunk *c = d->chunks;
  size = (size + sizeof (void *) - 1) & ~(sizeof (void *) - 1);
  if (c == NULL || c->size - c->used < size)
    {
      size_t want = size > CHUNK_SIZE ? size : CHUNK_SIZE;
      c = xmalloc (sizeof *c + want);
      c->size = want;
      c->used = 0;
      /* A chunk for one large block goes second, so the current one keeps its room.  */
      if (d->chunks && size > CHUNK_SIZE)
        {
          c->next = d->chunks->next;
          d->chunks->next = c;
        }
      else
        {
          c->next = d->chunks;
          d->chunks = c;
        }
    }
  c->used += size;
  return (char *) c->data + c->used - size;
}

static const char *
arena_str (struct jdoc *d, const unsigned char *s, size_t len)
{
  char *p = arena_alloc (d, len + 1);
  memcpy (p, s, len);
  p[len] = '\0';
  return p;
}

/* An open container: its items so far, in a vector kept for the next one at this depth.  */
struct level
{
  struct ar_jnode *node;
  const struct ar_jnode **items;
  const char **keys;
  const char *key; /* the member being read */
  size_t n, cap;
};

struct build
{
  struct jdoc *doc;
  bool have_root;
  bool too_deep;
  char *duplicate; /* the error text of a key given twice in one object, or NULL */
  int depth;       /* containers open */
  struct level at[AR_JSON_MAX_DEPTH];
};

static struct ar_jnode *
add_node (struct build *b, enum ar_jtype type)
{
  struct ar_jnode *n;
  struct level *l;

  if (b->depth == 0)
    {
      /* yajl refuses a second top-level value itself.  */
      n = &b->doc->root;
      b->have_root = true;
    }
  else
    {
      l = &b->at[b->depth - 1];
      if (l->n == l->cap)
        {
          l->cap = l->cap ? l->cap * 2 : 16;
          /* Both, whatever this container is: the vectors serve the next one too.  */
          l->items = xrealloc (l->items, l->cap * sizeof *l->items);
          l->keys = xrealloc (l->keys, l->cap * sizeof *l->keys);
        }
      n = arena_alloc (b->doc, sizeof *n);
      if (l->node->type == AR_J_OBJECT)
        l->keys[l->n] = l->key;
      l->items[l->n++] = n;
    }
  *n = (struct ar_jnode){ .type = type };
  return n;
}

static int
on_null (void *ctx)
{
  add_node (ctx, AR_J_NULL);
  return 1;
}

static int
on_bool (void *ctx, int v)
{
  add_node (ctx, AR_J_BOOL)->b = v != 0;
  return 1;
}

static int
on_number (void *ctx, const char *v, size_t len)
{
  struct build *b = ctx;
  add_node (b, AR_J_NUMBER)->text = arena_str (b->doc, (const unsigned char *) v, len);
  return 1;
}

static int
on_string (void *ctx, const unsigned char *v, size_t len)
{
  struct build *b = ctx;
  add_node (b, AR_J_STRING)->text = arena_str (b->doc, v, len);
  return 1;
}

static int
on_key (void *ctx, const unsigned char *key, size_t len)
{
  struct build *b = ctx;
  b->at[b->depth - 1].key = arena_str (b->doc, key, len);
  return 1;
}

static int
on_open (struct build *b, enum ar_jtype type)
{
  struct level *l;

  if (b->depth == AR_JSON_MAX_DEPTH)
    {
      b->too_deep = true;
      return 0; /* yajl_status_client_canceled: the rest is not read */
    }
  l = &b->at[b->depth];
  l->node = add_node (b, type);
  l->n = 0;
  l->key = NULL;
  b->depth++;
  return 1;
}

static int
on_start_map (void *ctx)
{
  return on_open (ctx, AR_J_OBJECT);
}

static int
on_start_array (void *ctx)
{
  return on_open (ctx, AR_J_ARRAY);
}

static void
doc_free (struct jdoc *d)
{
  while (d && d->chunks)
    {
      struct chunk *c = d->chunks;
      d->chunks = c->next;
      free (c);
    }
  free (d);
}

/* Paths in errors name the first levels only: enough to find the place.  Keys are cut short
   and their controls replaced, for a one-line error.  */
#define PATH_LEVELS 8
#define PATH_KEY_MAX 40

static void
show_key (const char *k, char out[PATH_KEY_MAX + 4])
{
  size_t len = strlen (k ? k : ""), n = len > PATH_KEY_MAX ? PATH_KEY_MAX : len;

  for (size_t j = 0; j < n; j++)
    out[j] = (unsigned char) k[j] < 0x20 || k[j] == 0x7f ? '?' : k[j];
  strcpy (out + n, len > n ? "..." : "");
}

/* The path to the container at level `levels` (so many levels above it).  `pending`: that
   container was refused, and is not among its parent's items (too deep); else it is the
   parent's last item.  */
static char *
path_to (const struct build *b, int levels, bool pending)
{
  char *path = xstrdup ("");

  for (int i = 0; i < levels && i <= PATH_LEVELS; i++)
    {
      const struct level *l = &b->at[i];
      char *next;

      if (i == PATH_LEVELS)
        next = xasprintf ("%s...", path);
      else if (l->node->type == AR_J_ARRAY)
        next = xasprintf ("%s[%zu]", path, pending && i == levels - 1 ? l->n : l->n - 1);
      else
        {
          char key[PATH_KEY_MAX + 4];
          show_key (l->key, key);
          next = xasprintf ("%s%s%s", path, i ? "." : "", key);
        }
      free (path);
      path = next;
    }
  return path;
}

static int
cmp_key (const void *a, const void *b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* A key given twice in one object, or NULL.  Compared as C strings, as ar_jget compares them:
   "a" and "a\u0000b" are one key to every reader.  Sorted when there are many: a 4 MiB document
   may hold 200,000 members in one object.  */
static const char *
duplicate_key (const char **keys, size_t n)
{
  cleanup_free const char **sorted = NULL;
  const char *dup = NULL;

  if (n <= 16)
    {
      for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
          if (strcmp (keys[i], keys[j]) == 0)
            return keys[i];
      return NULL;
    }
  sorted = xmalloc (n * sizeof *sorted);
  memcpy (sorted, keys, n * sizeof *sorted);
  qsort (sorted, n, sizeof *sorted, cmp_key);
  for (size_t i = 1; i < n && dup == NULL; i++)
    if (strcmp (sorted[i - 1], sorted[i]) == 0)
      dup = sorted[i];
  return dup;
}

/* An object with a key twice is refused.  Go's encoding/json (runc's) takes the last; every
   reader here must agree with every other on which member counts, and one that took the first
   (a copy that edits the first, profile.c) would check one member while another is used.  */
static int
check_keys (struct build *b, const struct level *l)
{
  const char *dup = duplicate_key (l->keys, l->n);
  cleanup_free char *path = NULL;
  char key[PATH_KEY_MAX + 4];

  if (dup == NULL)
    return 1;
  path = path_to (b, b->depth - 1, false);
  show_key (dup, key);
  b->duplicate = xasprintf ("%s%sduplicate key `%s`", path, path[0] ? ": " : "", key);
  return 0; /* yajl_status_client_canceled: the rest is not read */
}

static int
on_close (void *ctx)
{
  struct build *b = ctx;
  struct level *l = &b->at[b->depth - 1];
  struct ar_jnode *n = l->node;

  if (n->type == AR_J_OBJECT && l->n > 1 && check_keys (b, l) == 0)
    return 0;
  b->depth--;
  n->len = l->n;
  if (l->n == 0)
    return 1;
  n->items = arena_alloc (b->doc, l->n * sizeof *n->items);
  memcpy (n->items, l->items, l->n * sizeof *n->items);
  if (n->type == AR_J_OBJECT)
    {
      n->keys = arena_alloc (b->doc, l->n * sizeof *n->keys);
      memcpy (n->keys, l->keys, l->n * sizeof *n->keys);
    }
  return 1;
}

static int
parse_error (yajl_handle h, const char *text, const char *what, ar_error_t *err)
{
  unsigned char *msg = yajl_get_error (h, 1, (const unsigned char *) text, strlen (text));
  char *m = (char *) msg;
  size_t l = strlen (m);
  int ret;

  while (l > 0 && (m[l - 1] == '\n' || m[l - 1] == ' '))
    m[--l] = '\0';
  for (char *p = m; *p; p++)
    if (*p == '\n')
      *p = ' ';
  ret = ar_make_error (err, 0, "%s: invalid JSON: %s", what, m[0] ? m : "parse error");
  yajl_free_error (h, msg);
  return ret;
}

int
ar_jparse (const char *text, const char *what, struct ar_jnode **root, ar_error_t *err)
{
  static const yajl_callbacks cb = {
    .yajl_null = on_null,
    .yajl_boolean = on_bool,
    .yajl_number = on_number,
    .yajl_string = on_string,
    .yajl_start_map = on_start_map,
    .yajl_map_key = on_key,
    .yajl_end_map = on_close,
    .yajl_start_array = on_start_array,
    .yajl_end_array = on_close,
  };
  struct build *b = xzalloc (sizeof *b);
  yajl_handle h;
  yajl_status st;
  int ret = 0;

  b->doc = xzalloc (sizeof *b->doc);
  h = yajl_alloc (&cb, NULL, b);
  if (h == NULL)
    ar_oom ();
  /* As yajl_tree_parse read it, comments included.  */
  yajl_config (h, yajl_allow_comments, 1);
  st = yajl_parse (h, (const unsigned char *) text, strlen (text));
  if (st == yajl_status_ok)
    st = yajl_complete_parse (h);
  if (b->too_deep)
    {
      cleanup_free char *path = path_to (b, b->depth, true);
      ret = ar_make_error (err, 0, "%s: %s%snested deeper than %d levels", what, path,
                           path[0] ? ": " : "", AR_JSON_MAX_DEPTH);
    }
  else if (b->duplicate)
    ret = ar_make_error (err, 0, "%s: %s", what, b->duplicate);
  else if (st != yajl_status_ok || !b->have_root)
    ret = parse_error (h, text, what, err);
  yajl_free (h);
  for (int i = 0; i < AR_JSON_MAX_DEPTH; i++)
    {
      free (b->at[i].items);
      free (b->at[i].keys);
    }
  if (ret < 0)
    doc_free (b->doc);
  else
    *root = &b->doc->root;
  free (b->duplicate);
  free (b);
  return ret;
}

void
ar_jfree (struct ar_jnode *root)
{
  /* The root is the document's first member.  */
  doc_free ((struct jdoc *) root);
}

void
ar_jfreep (void *p)
{
  ar_jfree (*(struct ar_jnode **) p);
}

enum ar_jtype
ar_jtype (const struct ar_jnode *n)
{
  return n ? n->type : AR_J_NULL;
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
  if (obj == NULL || obj->type != AR_J_OBJECT)
    return NULL;
  /* The last, should an object hold a key twice (ar_jparse refuses that, as Go's encoding/json,
     runc's reader, would take the last).  */
  for (size_t i = obj->len; i-- > 0;)
    if (strcmp (obj->keys[i], key) == 0)
      return obj->items[i];
  return NULL;
}

size_t
ar_jlen (const struct ar_jnode *n)
{
  return n && (n->type == AR_J_OBJECT || n->type == AR_J_ARRAY) ? n->len : 0;
}

const char *
ar_jkey_at (const struct ar_jnode *obj, size_t i)
{
  if (obj == NULL || obj->type != AR_J_OBJECT || i >= obj->len)
    return NULL;
  return obj->keys[i];
}

const struct ar_jnode *
ar_jat (const struct ar_jnode *n, size_t i)
{
  if (n == NULL || (n->type != AR_J_OBJECT && n->type != AR_J_ARRAY) || i >= n->len)
    return NULL;
  return n->items[i];
}

const char *
ar_jstr (const struct ar_jnode *n)
{
  return n && n->type == AR_J_STRING ? n->text : NULL;
}

bool
ar_jbool (const struct ar_jnode *n)
{
  return n && n->type == AR_J_BOOL && n->b;
}

const char *
ar_jnum_text (const struct ar_jnode *n)
{
  return n && n->type == AR_J_NUMBER ? n->text : NULL;
}
