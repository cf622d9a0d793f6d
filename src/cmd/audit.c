/* agentrt audit [--follow] [--json] ID: the container's audit log, as a table or as its JSON
   lines.  */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agentrt.h"
#include "json.h"
#include "utils.h"

struct audit_input
{
  const char *id;
  bool follow, json, suggest;
  bool header_done; /* the table's header, printed before the first row */
  char **asks;      /* --suggest: the entries denied traffic asked for, in order, once each */
  size_t n_asks;
};

static void
print_header (struct audit_input *in)
{
  if (in->json || in->suggest || in->header_done)
    return;
  printf ("%-19s  %-5s  %6s  %-15s  %-16s  %-8s  %-18s  %s\n", "TIME", "SEV", "PID", "COMM",
          "SYSCALL", "VERDICT", "RULE", "ARGS");
  in->header_done = true;
}

static const struct argp_option audit_options[] = {
  { "follow", 'f', NULL, 0, "keep printing new records until the container is gone", 0 },
  { "json", 'j', NULL, 0, "print the JSON lines as they are", 0 },
  { "suggest", 's', NULL, 0,
    "print the egress allowlist that would have let the denied traffic through", 0 },
  { NULL, 0, NULL, 0, NULL, 0 },
};

static error_t
parse_audit (int key, char *arg, struct argp_state *state)
{
  struct audit_input *in = state->input;

  switch (key)
    {
    case 'f':
      in->follow = true;
      break;
    case 'j':
      in->json = true;
      break;
    case 's':
      in->suggest = true;
      break;
    default:
      return ar_cmd_positional (key, arg, state, AR_SLOTS (&in->id), 1, 1);
    }
  return 0;
}

/* What a workload chose (paths, argv, comm) reaches a person's terminal here: control
   characters would let it forge rows or move the cursor (C0, DEL, and C1: U+009B is a CSI), bidi
   controls would reorder what the row shows, and line separators break it: each prints as '?'
   (ar_json_control_len says which they are).  */
static void
put_safe (const char *s)
{
  size_t len = strlen (s), k;
  unsigned cp;

  for (size_t i = 0; i < len; i += k ? k : 1)
    {
      k = ar_json_control_len (s + i, len - i, &cp);
      putchar (k ? '?' : s[i]);
    }
}

/* A line as it is (--json, or one that is not JSON): JSON's own escapes for what would reach
   the terminal (lines written before ar_json_finish escaped them, or by hand), and '?' for raw
   controls, which valid JSON never holds but between tokens, where only tab is kept.  */
static void
put_line_safe (const char *line)
{
  size_t n;
  cleanup_free char *safe = ar_json_text_safe (line, strlen (line), &n);

  for (size_t i = 0; i < n; i++)
    putchar (((unsigned char) safe[i] < 0x20 && safe[i] != '\t') || safe[i] == 0x7f ? '?'
                                                                                    : safe[i]);
  putchar ('\n');
}

static void
pad_safe (const char *s, int width)
{
  int n = (int) strlen (s);
  put_safe (s);
  for (; n < width; n++)
    putchar (' ');
}

static const char *
field (const struct ar_jnode *root, const char *key)
{
  const char *v = ar_jstr (ar_jget (root, key));
  return v ? v : "-";
}

/* The arguments, key=value; nested arrays and objects (argv, an address) in brackets.  */
static void
print_args (const struct ar_jnode *args)
{
  bool obj = ar_jtype (args) == AR_J_OBJECT;

  for (size_t i = 0; i < ar_jlen (args); i++)
    {
      const struct ar_jnode *v = ar_jat (args, i);
      const char *t = ar_jstr (v) ? ar_jstr (v) : ar_jnum_text (v);

      fputs (i ? " " : "", stdout);
      if (obj)
        {
          put_safe (ar_jkey_at (args, i));
          putchar ('=');
        }
      if (ar_jtype (v) == AR_J_ARRAY || ar_jtype (v) == AR_J_OBJECT)
        {
          putchar ('[');
          print_args (v);
          putchar (']');
        }
      else
        put_safe (t ? t : "null");
    }
}

/* `ask`'s host, without its port: "pypi.org" of "pypi.org:443@/usr/bin/git".  */
static size_t
ask_host_len (const char *ask)
{
  const char *colon = ask[0] == '[' ? strstr (ask, "]:") : strrchr (ask, ':');

  if (colon && ask[0] == '[')
    colon++;
  return colon ? (size_t) (colon - ask) : strlen (ask);
}

/* One more entry for --suggest: once each, and none for a host already asked for on any port
   (`*`, which a name refused by the resolver is asked for: no port was tried).  */
static void
add_ask (struct audit_input *in, const char *ask)
{
  size_t hl = ask_host_len (ask);
  bool any = strcmp (ask + hl, ":*") == 0;

  for (size_t i = 0; i < in->n_asks; i++)
    {
      size_t il = ask_host_len (in->asks[i]);
      if (strcmp (in->asks[i], ask) == 0
          || (il == hl && strncmp (in->asks[i], ask, hl) == 0
              && strcmp (in->asks[i] + il, ":*") == 0))
        return;
      if (any && il == hl && strncmp (in->asks[i], ask, hl) == 0)
        {
          free (in->asks[i]);
          in->asks[i] = xstrdup (ask);
          return;
        }
    }
  in->asks = xrealloc (in->asks, (in->n_asks + 1) * sizeof *in->asks);
  in->asks[in->n_asks++] = xstrdup (ask);
}

/* A denied connect's or name's record says what would have allowed it (args.egress.ask,
   args.ask).  */
static void
suggest_line (struct audit_input *in, const char *line)
{
  cleanup_jnode struct ar_jnode *root = NULL;
  const struct ar_jnode *args;
  const char *verdict, *ask;

  if (ar_jparse (line, "audit record", &root, NULL) < 0)
    return;
  verdict = ar_jstr (ar_jget (root, "verdict"));
  args = ar_jget (root, "args");
  if (verdict == NULL || strcmp (verdict, "deny") != 0 || args == NULL)
    return;
  ask = ar_jstr (ar_jget (args, "ask"));
  if (ask == NULL && ar_jget (args, "egress"))
    ask = ar_jstr (ar_jget (ar_jget (args, "egress"), "ask"));
  if (ask)
    add_ask (in, ask);
}

static void
print_line (const char *line, void *data)
{
  struct audit_input *in = data;
  cleanup_jnode struct ar_jnode *root = NULL;
  const char *time, *pid;

  if (in->suggest)
    {
      suggest_line (in, line);
      return;
    }
  print_header (in);
  if (in->json || ar_jparse (line, "audit record", &root, NULL) < 0)
    {
      put_line_safe (line);
      fflush (stdout);
      return;
    }
  time = field (root, "time");
  pid = ar_jnum_text (ar_jget (root, "pid"));
  printf ("%.19s  %-5s  %6s  ", time, field (root, "severity"), pid ? pid : "-");
  pad_safe (field (root, "comm"), 15);
  printf ("  %-16s  %-8s  %-18s  ",
          ar_jget (root, "syscall") ? field (root, "syscall") : field (root, "event"),
          ar_jget (root, "verdict") ? field (root, "verdict") : "-", field (root, "rule"));
  /* An aggregate stands for `count` calls like it, from `first` to its own time.  */
  if (ar_jnum_text (ar_jget (root, "count")))
    {
      printf ("count=%s first=", ar_jnum_text (ar_jget (root, "count")));
      put_safe (field (root, "first"));
      putchar (' ');
    }
  if (ar_jget (root, "args"))
    print_args (ar_jget (root, "args"));
  else if (ar_jget (root, "detail"))
    put_safe (field (root, "detail"));
  putchar ('\n');
  fflush (stdout);
}

int
cmd_audit (struct ar_globals *g, int argc, char **argv, ar_error_t *err)
{
  static const struct argp argp = {
    audit_options,
    parse_audit,
    "CONTAINER",
    "Print the audit log of a container: one record per supervised or denied system call.",
    NULL,
    NULL,
    NULL,
  };
  struct audit_input in = { 0 };

  ar_cmd_parse (&argp, argc, argv, 0, &in);
  /* The header comes with the first row, so a failure prints nothing on stdout.  */
  if (ar_container_audit (g, in.id, in.follow && !in.suggest, print_line, &in, err) < 0)
    return -1;
  print_header (&in);
  for (size_t i = 0; i < in.n_asks; i++)
    {
      fputs (i ? "," : "", stdout);
      put_safe (in.asks[i]);
      free (in.asks[i]);
    }
  if (in.n_asks)
    putchar ('\n');
  free (in.asks);
  return 0;
}
