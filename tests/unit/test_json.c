/* Unit tests of the JSON writer and reader (core/json.c).  */
#include <config.h>

#include <stdint.h>
#include <string.h>

#include "json.h"
#include "tap.h"
#include "utils.h"

static int
test_writer_escapes (void)
{
  struct ar_json *j = ar_json_new (NULL);
  cleanup_free char *out = NULL;

  ar_json_obj_open (j);
  ar_json_kstr (j, "s", "a\"b\\c\nd\t");
  ar_json_kint (j, "i", -5);
  ar_json_key (j, "u");
  ar_json_uint (j, UINT64_MAX);
  ar_json_kbool (j, "b", true);
  ar_json_kstr (j, "n", NULL);
  ar_json_obj_close (j);
  out = ar_json_finish (j, NULL);
  CHECK_STR (out, "{\"s\":\"a\\\"b\\\\c\\nd\\t\",\"i\":-5,\"u\":18446744073709551615,"
                  "\"b\":true,\"n\":null}");
  return 0;
}

static int
test_pretty_ends_with_newline (void)
{
  struct ar_json *j = ar_json_new ("  ");
  cleanup_free char *out = NULL;

  ar_json_obj_open (j);
  ar_json_kint (j, "a", 1);
  ar_json_obj_close (j);
  out = ar_json_finish (j, NULL);
  CHECK_STR (out, "{\n  \"a\": 1\n}\n");
  return 0;
}

static int
test_reader (void)
{
  ar_error_t err = NULL;
  cleanup_jnode struct ar_jnode *root = NULL;
  const struct ar_jnode *arr;

  CHECK (ar_jparse ("{\"a\":[1,\"x\",true,null],\"k\":2,\"big\":18446744073709551615}", "t.json",
                    &root, &err)
         == 0);
  arr = ar_jget (root, "a");
  CHECK (ar_jtype (arr) == AR_J_ARRAY && ar_jlen (arr) == 4);
  CHECK_STR (ar_jnum_text (ar_jat (arr, 0)), "1");
  CHECK_STR (ar_jstr (ar_jat (arr, 1)), "x");
  CHECK (ar_jbool (ar_jat (arr, 2)));
  CHECK (ar_jtype (ar_jat (arr, 3)) == AR_J_NULL);
  CHECK_STR (ar_jnum_text (ar_jget (root, "k")), "2");
  CHECK_STR (ar_jnum_text (ar_jget (root, "big")), "18446744073709551615");
  CHECK (ar_jget (root, "missing") == NULL);
  CHECK (ar_jget (arr, "a") == NULL); /* not an object */
  CHECK_STR (ar_jkey_at (root, 0), "a");
  CHECK_STR (ar_jtype_name (AR_J_OBJECT), "an object");
  return 0;
}

static int
test_reader_error (void)
{
  ar_error_t err = NULL;
  struct ar_jnode *root = NULL;
  cleanup_free char *text = NULL;

  CHECK (ar_jparse ("{\"a\": }", "bad.json", &root, &err) < 0 && root == NULL);
  text = ar_error_text (err);
  CHECK (strncmp (text, "bad.json: invalid JSON: ", 24) == 0);
  CHECK (strchr (text, '\n') == NULL); /* one line, for logs */
  ar_error_release (&err);
  return 0;
}

/* A string that is not UTF-8 (a workload's comm or path in the audit log) still gives valid
   JSON: each stray byte becomes U+FFFD, valid sequences stay.  */
static int
test_writer_invalid_utf8 (void)
{
  static const struct
  {
    const char *in, *out;
  } cases[] = {
    { "plain", "\"plain\"" },
    { "caf\xc3\xa9", "\"caf\xc3\xa9\"" },
    { "a\xff"
      "b",
      "\"a\xef\xbf\xbd"
      "b\"" },
    { "\x80", "\"\xef\xbf\xbd\"" },
    { "cut\xe2\x82", "\"cut\xef\xbf\xbd\xef\xbf\xbd\"" },
    { "over\xc0\xaf", "\"over\xef\xbf\xbd\xef\xbf\xbd\"" },
    { "sur\xed\xa0\x80", "\"sur\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"" },
    { "\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"" },
  };

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      struct ar_json *j = ar_json_new (NULL);
      cleanup_free char *out = NULL;
      ar_json_str (j, cases[i].in);
      out = ar_json_finish (j, NULL);
      CHECK_STR (out, cases[i].out);
    }
  return 0;
}

/* The characters that drive or deceive a terminal beyond C0 are written as \uXXXX: C1 (U+009B
   is a CSI), bidi controls, line and paragraph separators; other characters stay as they are.  */
static int
test_writer_escapes_terminal_controls (void)
{
  static const struct
  {
    const char *in, *out;
  } cases[] = {
    { "a\xc2\x9b"
      "31mb",
      "\"a\\u009b31mb\"" },
    { "\xc2\x80\xc2\x9f", "\"\\u0080\\u009f\"" },
    { "evil\xe2\x80\xae"
      "txt.exe",
      "\"evil\\u202etxt.exe\"" },
    { "\xe2\x80\xaa\xe2\x80\xac\xe2\x81\xa6\xe2\x81\xa9", "\"\\u202a\\u202c\\u2066\\u2069\"" },
    { "\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c", "\"\\u200e\\u200f\\u061c\"" },
    { "l1\xe2\x80\xa8l2\xe2\x80\xa9", "\"l1\\u2028l2\\u2029\"" },
    /* Neighbours that are not controls.  */
    { "\xc2\xa0\xc3\xa9\xe2\x80\x8d\xe2\x80\xb0\xe2\x81\xa5\xf0\x9f\x98\x80",
      "\"\xc2\xa0\xc3\xa9\xe2\x80\x8d\xe2\x80\xb0\xe2\x81\xa5\xf0\x9f\x98\x80\"" },
  };

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      struct ar_json *j = ar_json_new (NULL);
      cleanup_free char *out = NULL;
      ar_json_str (j, cases[i].in);
      out = ar_json_finish (j, NULL);
      CHECK_STR (out, cases[i].out);
    }
  return 0;
}

/* Text from elsewhere (a line of an audit log written before): escaped the same, the rest
   untouched, and it still parses to the same string.  */
static int
test_text_safe (void)
{
  const char *line = "{\"comm\":\"x\xc2\x9b\",\"p\":\"\xe2\x80\xae\xc3\xa9\"}";
  cleanup_free char *safe = NULL;
  cleanup_jnode struct ar_jnode *a = NULL;
  cleanup_jnode struct ar_jnode *b = NULL;
  size_t n;

  safe = ar_json_text_safe (line, strlen (line), &n);
  CHECK_STR (safe, "{\"comm\":\"x\\u009b\",\"p\":\"\\u202e\xc3\xa9\"}");
  CHECK (n == strlen (safe));
  CHECK (ar_jparse (line, "a", &a, NULL) == 0 && ar_jparse (safe, "b", &b, NULL) == 0);
  CHECK_STR (ar_jstr (ar_jget (b, "comm")), ar_jstr (ar_jget (a, "comm")));
  CHECK_STR (ar_jstr (ar_jget (b, "p")), ar_jstr (ar_jget (a, "p")));
  return 0;
}

static int
test_control_len (void)
{
  unsigned cp = 0;

  CHECK (ar_json_control_len ("\x1b[", 2, &cp) == 1 && cp == 0x1b);
  CHECK (ar_json_control_len ("\x7f", 1, &cp) == 1);
  CHECK (ar_json_control_len ("\xc2\x9b", 2, &cp) == 2 && cp == 0x9b);
  CHECK (ar_json_control_len ("\xe2\x80\xae", 3, &cp) == 3 && cp == 0x202e);
  CHECK (ar_json_control_len ("\xe2\x80\xae", 2, &cp) == 0); /* cut short */
  CHECK (ar_json_control_len ("a", 1, &cp) == 0);
  CHECK (ar_json_control_len ("\xc3\xa9", 2, &cp) == 0);
  CHECK (ar_json_control_len ("\xe2\x80\xa7", 3, &cp) == 0); /* U+2027, a neighbour */
  return 0;
}

/* A string whose JSON text would pass `max` bytes is cut at a character and ends with "…";
   what it takes is counted as JSON writes it (six bytes for a control, two for a quote).  */
static int
test_str_max (void)
{
  static const struct
  {
    const char *in;
    size_t max;
    const char *out;
    size_t used;
    bool cut;
  } cases[] = {
    { "abcdef", 6, "\"abcdef\"", 6, false },
    { "abcdefg", 6, "\"abc\xe2\x80\xa6\"", 6, true },
    { "\x01\x01", 12, "\"\\u0001\\u0001\"", 12, false },
    { "\x01\x01", 11, "\"\\u0001\xe2\x80\xa6\"", 9, true },
    { "a\"b", 4, "\"a\\\"b\"", 4, false },
    /* é is two bytes: never split.  */
    { "\xc3\xa9\xc3\xa9\xc3\xa9", 6, "\"\xc3\xa9\xc3\xa9\xc3\xa9\"", 6, false },
    { "\xc3\xa9\xc3\xa9\xc3\xa9x", 6, "\"\xc3\xa9\xe2\x80\xa6\"", 5, true },
    { "\xc2\x9b\xc2\x9b", 9, "\"\\u009b\xe2\x80\xa6\"", 9, true },
    { "abcdef", 2, "\"\"", 0, true },
  };

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      struct ar_json *j = ar_json_new (NULL);
      cleanup_free char *out = NULL;
      bool cut;
      size_t used = ar_json_str_max (j, cases[i].in, cases[i].max, &cut);
      out = ar_json_finish (j, NULL);
      CHECK_STR (out, cases[i].out);
      CHECK (used == cases[i].used);
      CHECK (cut == cases[i].cut);
      CHECK (strlen (out) - 2 <= cases[i].max);
    }
  return 0;
}

/* yajl's writer stops at 128 levels, and a call past that wrote beyond its state array (the
   agent profile's copy of a deep config corrupted the heap): the first refusal is kept, nothing
   more is written, and the checked finish reports it.  */
static int
test_writer_depth (void)
{
  struct ar_json *j = ar_json_new ("  ");
  ar_error_t err = NULL;
  char *out = NULL;
  cleanup_free char *text = NULL;

  for (int i = 0; i < 200; i++)
    {
      ar_json_obj_open (j);
      ar_json_key (j, "a");
    }
  ar_json_int (j, 1);
  for (int i = 0; i < 200; i++)
    ar_json_obj_close (j);
  CHECK (ar_json_finish_checked (j, "deep.json", &out, NULL, &err) < 0);
  CHECK (out == NULL);
  text = ar_error_text (err);
  ar_error_release (&err);
  CHECK_STR (text, "deep.json: cannot write JSON: nested deeper than 128 levels");
  return 0;
}

/* Any refused call, not only depth: a value where a key belongs, a second document.  */
static int
test_writer_sticky_error (void)
{
  struct ar_json *j = ar_json_new (NULL);
  ar_error_t err = NULL;
  char *out = NULL;
  cleanup_free char *text = NULL;

  ar_json_obj_open (j);
  ar_json_int (j, 5); /* not a key */
  ar_json_kstr (j, "k", "v");
  ar_json_obj_close (j);
  CHECK (ar_json_finish_checked (j, "t", &out, NULL, &err) < 0 && out == NULL);
  text = ar_error_text (err);
  ar_error_release (&err);
  CHECK_STR (text, "t: cannot write JSON: a key that is not a string");

  j = ar_json_new (NULL);
  ar_json_int (j, 1);
  ar_json_int (j, 2);
  CHECK (ar_json_finish_checked (j, "t", &out, NULL, NULL) < 0 && out == NULL);

  j = ar_json_new (NULL);
  ar_json_arr_open (j);
  ar_json_arr_close (j);
  CHECK (ar_json_finish_checked (j, "t", &out, NULL, &err) == 0 && err == NULL);
  CHECK_STR (out, "[]");
  free (out);
  return 0;
}

static char *
nested (int levels, const char *open, const char *inner, const char *close)
{
  size_t lo = strlen (open), li = strlen (inner), lc = strlen (close);
  char *s = xmalloc (levels * (lo + lc) + li + 1), *p = s;

  for (int i = 0; i < levels; i++, p += lo)
    memcpy (p, open, lo);
  memcpy (p, inner, li);
  p += li;
  for (int i = 0; i < levels; i++, p += lc)
    memcpy (p, close, lc);
  *p = '\0';
  return s;
}

static int
parse_error (const char *text, char **msg)
{
  struct ar_jnode *root = NULL;
  ar_error_t err = NULL;

  if (ar_jparse (text, "t.json", &root, &err) == 0)
    {
      ar_jfree (root);
      return -1;
    }
  *msg = ar_error_text (err);
  ar_error_release (&err);
  return 0;
}

/* 400,000 levels overflowed the stack in yajl_tree_free; the text is refused before a tree is
   built, naming where the nesting starts.  */
static int
test_reader_depth (void)
{
  cleanup_free char *deep = nested (400000, "[", "", "]");
  cleanup_free char *limit = nested (AR_JSON_MAX_DEPTH, "[", "1", "]");
  cleanup_free char *over = nested (AR_JSON_MAX_DEPTH + 1, "[", "1", "]");
  cleanup_free char *inner = nested (AR_JSON_MAX_DEPTH, "{\"k\":", "1", "}");
  cleanup_free char *in_obj = xasprintf ("{\"a\":[0,{\"b\":%s}]}", inner);
  cleanup_free char *msg1 = NULL;
  cleanup_free char *msg2 = NULL;
  cleanup_free char *msg3 = NULL;
  cleanup_jnode struct ar_jnode *root = NULL;

  CHECK (parse_error (deep, &msg1) == 0);
  CHECK_STR (msg1, "t.json: [0][0][0][0][0][0][0][0]...: nested deeper than 64 levels");
  CHECK (ar_jparse (limit, "t.json", &root, NULL) == 0);
  CHECK (parse_error (over, &msg2) == 0);
  CHECK (strstr (msg2, "nested deeper than 64 levels") != NULL);
  CHECK (parse_error (in_obj, &msg3) == 0);
  CHECK_STR (msg3, "t.json: a[1].b.k.k.k.k.k...: nested deeper than 64 levels");
  return 0;
}

/* Only containers count: brackets in strings and comments, and long flat lists, do not.  */
static int
test_reader_depth_counts_containers (void)
{
  cleanup_free char *brackets = nested (1000, "[", "", "");
  cleanup_free char *in_string = xasprintf ("{\"s\":\"%s\"}", brackets);
  cleanup_free char *in_comment = xasprintf ("/* %s */ [1]", brackets);
  cleanup_free char *flat = xmalloc (1 + 3 * 100000 + 1);
  struct ar_jnode *root = NULL;

  CHECK (ar_jparse (in_string, "t.json", &root, NULL) == 0);
  ar_jfree (root);
  CHECK (ar_jparse (in_comment, "t.json", &root, NULL) == 0);
  ar_jfree (root);
  flat[0] = '[';
  for (int i = 0; i < 100000; i++)
    memcpy (flat + 1 + 3 * i, "[],", 3);
  strcpy (flat + 3 * 100000, "]"); /* over the last ',' */
  CHECK (ar_jparse (flat, "t.json", &root, NULL) == 0);
  CHECK (ar_jlen (root) == 100000);
  ar_jfree (root);
  return 0;
}

/* A key given twice in one object is refused, naming the object and the key: a reader that took
   the first member and one that took the last would see two documents in one text.  */
static int
test_reader_duplicate_keys (void)
{
  static const struct
  {
    const char *text, *msg;
  } cases[] = {
    { "{\"process\":{},\"linux\":{},\"process\":{\"user\":{}}}",
      "t.json: duplicate key `process`" },
    { "{\"linux\":{\"resources\":{\"memory\":{\"limit\":1,\"limit\":0}}}}",
      "t.json: linux.resources.memory: duplicate key `limit`" },
    { "{\"mounts\":[{},{\"type\":\"bind\",\"type\":\"x\"}]}",
      "t.json: mounts[1]: duplicate key `type`" },
    /* One key to every reader of C strings.  */
    { "{\"a\\u0000b\":1,\"a\":2}", "t.json: duplicate key `a`" },
    /* Written differently, the same key.  */
    { "{\"ab\":1,\"a\\u0062\":2}", "t.json: duplicate key `ab`" },
    { "{\"\\u001b[31m\":1,\"\\u001b[31m\":2}", "t.json: duplicate key `?[31m`" },
  };
  cleanup_free char *many = xstrdup ("{");
  cleanup_free char *msg = NULL;
  struct ar_jnode *root = NULL;

  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      cleanup_free char *m = NULL;
      CHECK (parse_error (cases[i].text, &m) == 0);
      CHECK_STR (m, cases[i].msg);
    }
  /* Keys that differ, in objects large enough to be sorted, pass; one repeated far apart does
     not.  */
  for (int i = 0; i < 5000; i++)
    {
      char *next = xasprintf ("%s\"k%d\":%d,", many, i, i);
      free (many);
      many = next;
    }
  many[strlen (many) - 1] = '}';
  CHECK (ar_jparse (many, "t.json", &root, NULL) == 0);
  CHECK (ar_jlen (root) == 5000);
  ar_jfree (root);
  many[strlen (many) - 1] = ',';
  {
    char *next = xasprintf ("%s\"k17\":0}", many);
    free (many);
    many = next;
  }
  CHECK (parse_error (many, &msg) == 0);
  CHECK_STR (msg, "t.json: duplicate key `k17`");
  /* Equal keys in different objects are not duplicates.  */
  CHECK (ar_jparse ("{\"a\":{\"k\":1},\"b\":{\"k\":1},\"k\":[{\"k\":1},{\"k\":2}]}", "t.json",
                    &root, NULL)
         == 0);
  ar_jfree (root);
  return 0;
}

int
main (void)
{
  RUN_TEST (test_writer_invalid_utf8);
  RUN_TEST (test_writer_escapes);
  RUN_TEST (test_pretty_ends_with_newline);
  RUN_TEST (test_reader);
  RUN_TEST (test_reader_error);
  RUN_TEST (test_writer_escapes_terminal_controls);
  RUN_TEST (test_text_safe);
  RUN_TEST (test_control_len);
  RUN_TEST (test_str_max);
  RUN_TEST (test_writer_depth);
  RUN_TEST (test_writer_sticky_error);
  RUN_TEST (test_reader_depth);
  RUN_TEST (test_reader_depth_counts_containers);
  RUN_TEST (test_reader_duplicate_keys);
  TAP_END ();
}
