/* Unit tests of owners.c: a slot per live container in a registry, the lowest free first, a
   slot freed when its state directory is gone; the reserved range refused in configs.  Runs
   without root in a temp dir.  */
#include <config.h>

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spec/spec.h"
#include "state/owners.h"
#include "tap.h"
#include "utils.h"

static char tmp_root[] = "/tmp/agentrt-test-owners.XXXXXX";

static char *
make_dir (const char *name)
{
  char *p = xasprintf ("%s/%s", tmp_root, name);
  if (mkdir (p, 0700) < 0)
    abort ();
  return p;
}

static int
test_claim_distinct_and_reused (void)
{
  cleanup_free char *reg = xasprintf ("%s/registry", tmp_root);
  cleanup_free char *a = make_dir ("a");
  cleanup_free char *b = make_dir ("b");
  cleanup_free char *c = make_dir ("c");
  ar_error_t err = NULL;
  uid_t oa, ob, oc, od;

  CHECK (owners_claim (reg, a, &oa, &err) == 0 && oa == OWNERS_BASE);
  CHECK (owners_claim (reg, b, &ob, &err) == 0 && ob == OWNERS_BASE + 1);
  /* a's container is deleted (its state directory gone): its slot is the lowest free.  */
  CHECK (rmdir (a) == 0);
  CHECK (owners_claim (reg, c, &oc, &err) == 0 && oc == OWNERS_BASE);
  /* Held slots are never handed out again while their directories exist.  */
  CHECK (owners_claim (reg, c, &od, &err) == 0 && od == OWNERS_BASE + 2);
  return 0;
}

static int
test_release (void)
{
  cleanup_free char *reg = xasprintf ("%s/registry-release", tmp_root);
  cleanup_free char *e = make_dir ("e");
  cleanup_free char *f = make_dir ("f");
  cleanup_free char *slot0 = xasprintf ("%s/0", reg);
  ar_error_t err = NULL;
  uid_t oe, of, og;

  /* A registry that does not exist holds nothing.  */
  CHECK (owners_release (reg, e, &err) == 0);
  CHECK (owners_claim (reg, e, &oe, &err) == 0 && oe == OWNERS_BASE);
  CHECK (owners_claim (reg, f, &of, &err) == 0 && of == OWNERS_BASE + 1);
  CHECK (owners_release (reg, e, &err) == 0);
  CHECK (access (slot0, F_OK) < 0);
  /* e's directory still exists, its slot is free all the same.  */
  CHECK (owners_claim (reg, f, &og, &err) == 0 && og == OWNERS_BASE);
  return 0;
}

static int
test_map_covers (void)
{
  CHECK (owners_map_covers ("         0          0 4294967295\n"));
  CHECK (owners_map_covers ("0 0 4278190080\n4278190080 4278190080 16711680\n"));
  /* Lines in any order.  */
  CHECK (owners_map_covers ("4278190080 1 100\n0 0 4278190180\n4278190180 7 16711580\n"));
  CHECK (!owners_map_covers ("         0     100000      65536\n"));
  CHECK (!owners_map_covers ("0 0 4278190080\n4278190080 4278190080 16711679\n"));
  CHECK (!owners_map_covers (""));
  return 0;
}

static int
test_registry_writable_by_others (void)
{
  cleanup_free char *reg = make_dir ("open");
  cleanup_free char *d = make_dir ("d");
  ar_error_t err = NULL;
  uid_t o;

  CHECK (chmod (reg, 0777) == 0);
  CHECK (owners_claim (reg, d, &o, &err) < 0 && err != NULL);
  ar_error_release (&err);
  CHECK (owners_claim (reg, "relative", &o, &err) < 0 && err != NULL);
  ar_error_release (&err);
  return 0;
}

static int
check_config (const char *sq, const char *want)
{
  cleanup_free char *json = tap_json (sq);
  struct spec *s = NULL;
  ar_error_t err = NULL;
  int ret = 0;

  if (spec_parse (json, "config.json", &s, &err) < 0)
    {
      cleanup_free char *text = ar_error_text (err);
      printf ("# parse: %s\n", text);
      ar_error_release (&err);
      return -1;
    }
  if (owners_check_spec (s, &err) < 0)
    {
      cleanup_free char *text = ar_error_text (err);
      if (want == NULL || strstr (text, want) == NULL)
        {
          printf ("# error `%s`, expected `%s`\n", text, want ? want : "none");
          ret = -1;
        }
      ar_error_release (&err);
    }
  else if (want)
    {
      printf ("# accepted, expected `%s`\n", want);
      ret = -1;
    }
  spec_free (s);
  return ret;
}

#define CONFIG(rest) "{'ociVersion': '1.0.2', 'root': {'path': 'rootfs'}, " rest "}"
#define USER(uid) "'process': {'cwd': '/', 'args': ['sh'], 'user': {'uid': " uid ", 'gid': 0}}"

static int
test_reserved_range_refused (void)
{
  CHECK (check_config (CONFIG (USER ("4278190079")), NULL) == 0);
  CHECK (check_config (CONFIG (USER ("4278190080")), "process.user.uid: 4278190080") == 0);
  CHECK (check_config (CONFIG ("'linux': {'uidMappings': [{'containerID': 0, 'hostID': "
                               "4278124544, 'size': 65536}]}"),
                       NULL)
         == 0);
  CHECK (check_config (CONFIG ("'linux': {'uidMappings': [{'containerID': 0, 'hostID': "
                               "4278124544, 'size': 65537}]}"),
                       "linux.uidMappings[0]: host ids 4278124544-4278190080")
         == 0);
  CHECK (check_config (CONFIG ("'linux': {'gidMappings': [{'containerID': 0, 'hostID': "
                               "4294967295, 'size': 1}]}"),
                       "linux.gidMappings[0]")
         == 0);
  CHECK (check_config (CONFIG ("'mounts': [{'destination': '/m', 'type': 'bind', 'source': '/s', "
                               "'options': ['bind', 'idmap'], 'uidMappings': [{'containerID': 0, "
                               "'hostID': 4278190085, 'size': 1}], 'gidMappings': "
                               "[{'containerID': 0, 'hostID': 0, 'size': 1}]}]"),
                       "mounts[0].uidMappings[0]: host ids 4278190085-4278190085")
         == 0);
  return 0;
}

int
main (void)
{
  if (mkdtemp (tmp_root) == NULL)
    return 1;
  RUN_TEST (test_claim_distinct_and_reused);
  RUN_TEST (test_release);
  RUN_TEST (test_map_covers);
  RUN_TEST (test_registry_writable_by_others);
  RUN_TEST (test_reserved_range_refused);
  {
    cleanup_free char *cmd = xasprintf ("rm -rf '%s'", tmp_root);
    if (system (cmd) != 0)
      return 1;
  }
  TAP_END ();
}
