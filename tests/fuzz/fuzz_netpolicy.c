/* libFuzzer target: any text as an egress allowlist (--net-allow, and io.agentrt.net.allow,
   which config.json's author writes) through sandbox/netpolicy.c, and as a name to normalize.
   Besides crashes, leaks, hangs and sanitizer reports, it aborts when an invariant fails: each
   entry of a list that parses prints to a canonical text that parses back to the same entry,
   and matches what it names; a normalized name is short, lower case, and normalizes to itself.
   Built and run by `make fuzz` (tests/fuzz/run.sh).  */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "sandbox/netpolicy.h"
#include "utils.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

#define EXPECT(cond) \
  do                 \
    {                \
      if (!(cond))   \
        abort ();    \
    }                \
  while (0)

static bool
same_entry (const struct netpolicy_entry *a, const struct netpolicy_entry *b)
{
  return a->kind == b->kind && a->port_lo == b->port_lo && a->port_hi == b->port_hi
         && (a->name == NULL) == (b->name == NULL) && (!a->name || strcmp (a->name, b->name) == 0)
         && (a->program == NULL) == (b->program == NULL)
         && (!a->program || strcmp (a->program, b->program) == 0) && a->family == b->family
         && a->prefix == b->prefix && memcmp (a->addr, b->addr, sizeof a->addr) == 0
         && strcmp (a->text, b->text) == 0;
}

static void
check_entry (const struct netpolicy_entry *e)
{
  struct netpolicy again;
  ar_error_t err = NULL;
  char sub[NETPOLICY_NAME_MAX + 8];

  EXPECT (netpolicy_parse (e->text, "fuzz", &again, &err) == 0);
  EXPECT (again.n == 1 && same_entry (e, &again.entries[0]));
  netpolicy_release (&again);
  EXPECT (e->port_lo >= 1 && e->port_lo <= e->port_hi);
  EXPECT (netpolicy_port_matches (e, e->port_lo) && netpolicy_port_matches (e, e->port_hi));
  if (e->kind == NETPOLICY_NAME)
    EXPECT (netpolicy_name_matches (e, e->name));
  if (e->kind == NETPOLICY_WILDCARD)
    {
      EXPECT (!netpolicy_name_matches (e, e->name));
      snprintf (sub, sizeof sub, "x.%s", e->name);
      EXPECT (strlen (e->name) > NETPOLICY_NAME_MAX - 2 || netpolicy_name_matches (e, sub));
    }
  if (e->kind == NETPOLICY_NET)
    EXPECT (netpolicy_net_matches (e, e->family, e->addr));
}

static void
check_name (const char *text)
{
  char norm[NETPOLICY_NAME_MAX + 1], again[NETPOLICY_NAME_MAX + 1];

  if (!netpolicy_name_normalize (text, norm))
    return;
  EXPECT (strlen (norm) <= NETPOLICY_NAME_MAX);
  for (const char *c = norm; *c; c++)
    EXPECT (!(*c >= 'A' && *c <= 'Z'));
  EXPECT (netpolicy_name_normalize (norm, again) && strcmp (norm, again) == 0);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char *text = xmalloc (size + 1);
  struct netpolicy p;
  ar_error_t err = NULL;

  memcpy (text, data, size);
  text[size] = '\0';
  if (netpolicy_parse (text, "fuzz", &p, &err) == 0)
    {
      EXPECT (p.n >= 1 && p.n <= NETPOLICY_ENTRIES_MAX);
      for (size_t i = 0; i < p.n; i++)
        check_entry (&p.entries[i]);
      (void) netpolicy_first_special (&p);
      netpolicy_release (&p);
    }
  else
    {
      EXPECT (err != NULL && p.n == 0);
      ar_error_release (&err);
    }
  check_name (text);
  free (text);
  return 0;
}
