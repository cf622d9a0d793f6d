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

  CHECK (ar_jparse ("{\"a\":[1,\"x\",true,null],\"k\":1,\"k\":2,\"big\":18446744073709551615}",
                    "t.json", &root, &err)
         == 0);
  arr = ar_jget (root, "a");
  CHECK (ar_jtype (arr) == AR_J_ARRAY && ar_jlen (arr) == 4);
  CHECK_STR (ar_jnum_text (ar_jat (arr, 0)), "1");
  CHECK_STR (ar_jstr (ar_jat (arr, 1)), "x");
  CHECK (ar_jbool (ar_jat (arr, 2)));
  CHECK (ar_jtype (ar_jat (arr, 3)) == AR_J_NULL);
  CHECK_STR (ar_jnum_text (ar_jget (root, "k")), "2"); /* the last duplicate wins */
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

int
main (void)
{
  RUN_TEST (test_writer_invalid_utf8);
  RUN_TEST (test_writer_escapes);
  RUN_TEST (test_pretty_ends_with_newline);
  RUN_TEST (test_reader);
  RUN_TEST (test_reader_error);
  TAP_END ();
}
