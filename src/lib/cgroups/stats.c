/* Statistics of the container's cgroups in runc's JSON shapes (`events --stats`: the "data"
   of a {"type":"stats"} event), and the OOM-kill count `events` watches.  */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroups/cgroup.h"
#include "cgroups/cgroup_internal.h"
#include "json.h"
#include "utils.h"

/* One number from DIR/FILE ("max" is 0); 0 when unreadable.  */
static uint64_t
read_u64 (const char *dir, const char *file)
{
  uint64_t v;

  return dir && cg_read_u64 (dir, file, &v) ? v : 0;
}

/* The value of KEY in a "key value" file (memory.stat, cpu.stat, memory.events…).  */
static uint64_t
read_keyed (const char *dir, const char *file, const char *key)
{
  cleanup_free char *path = dir ? xasprintf ("%s/%s", dir, file) : NULL;
  cleanup_free char *text = NULL;
  size_t kl = strlen (key);

  if (path == NULL || ar_read_file (path, 1 << 16, &text, NULL, NULL) < 0)
    return 0;
  for (char *l = text; l && *l; l = strchr (l, '\n') ? strchr (l, '\n') + 1 : NULL)
    if (strncmp (l, key, kl) == 0 && l[kl] == ' ')
      return strtoull (l + kl + 1, NULL, 10);
  return 0;
}

static void
kv (struct ar_json *j, const char *k, uint64_t v)
{
  ar_json_key (j, k);
  ar_json_uint (j, v);
}

static void
cpu_v1 (struct ar_json *j, const struct cgroup *cg)
{
  const char *acct = cg_dir_with (cg, "cpuacct.usage");

  ar_json_key (j, "usage");
  ar_json_obj_open (j);
  kv (j, "total", read_u64 (acct, "cpuacct.usage"));
  kv (j, "kernel", read_u64 (acct, "cpuacct.usage_sys"));
  kv (j, "user", read_u64 (acct, "cpuacct.usage_user"));
  ar_json_obj_close (j);
  ar_json_key (j, "throttling");
  ar_json_obj_open (j);
  kv (j, "periods", read_keyed (cg->cpu, "cpu.stat", "nr_periods"));
  kv (j, "throttled_periods", read_keyed (cg->cpu, "cpu.stat", "nr_throttled"));
  kv (j, "throttled_time", read_keyed (cg->cpu, "cpu.stat", "throttled_time"));
  ar_json_obj_close (j);
}

static void
cpu_v2 (struct ar_json *j, const char *d)
{
  ar_json_key (j, "usage");
  ar_json_obj_open (j);
  kv (j, "total", read_keyed (d, "cpu.stat", "usage_usec") * 1000);
  kv (j, "kernel", read_keyed (d, "cpu.stat", "system_usec") * 1000);
  kv (j, "user", read_keyed (d, "cpu.stat", "user_usec") * 1000);
  ar_json_obj_close (j);
  ar_json_key (j, "throttling");
  ar_json_obj_open (j);
  kv (j, "periods", read_keyed (d, "cpu.stat", "nr_periods"));
  kv (j, "throttled_periods", read_keyed (d, "cpu.stat", "nr_throttled"));
  kv (j, "throttled_time", read_keyed (d, "cpu.stat", "throttled_usec") * 1000);
  ar_json_obj_close (j);
}

static void
mem_entry (struct ar_json *j, const char *name, uint64_t usage, uint64_t max, uint64_t limit,
           uint64_t failcnt)
{
  ar_json_key (j, name);
  ar_json_obj_open (j);
  kv (j, "usage", usage);
  kv (j, "max", max);
  kv (j, "failcnt", failcnt);
  kv (j, "limit", limit);
  ar_json_obj_close (j);
}

static void
memory (struct ar_json *j, const struct cgroup *cg)
{
  bool v2 = cg->layout == CGROUP_V2;
  const char *d = v2 ? cg->unified : cg->memory;

  ar_json_kint (j, "cache", (long long) read_keyed (d, "memory.stat", v2 ? "file" : "cache"));
  if (v2)
    {
      mem_entry (j, "usage", read_u64 (d, "memory.current"), read_u64 (d, "memory.peak"),
                 read_u64 (d, "memory.max"), read_keyed (d, "memory.events", "max"));
      mem_entry (j, "swap", read_u64 (d, "memory.swap.current"), 0, read_u64 (d, "memory.swap.max"),
                 0);
    }
  else
    {
      mem_entry (j, "usage", read_u64 (d, "memory.usage_in_bytes"),
                 read_u64 (d, "memory.max_usage_in_bytes"), read_u64 (d, "memory.limit_in_bytes"),
                 read_u64 (d, "memory.failcnt"));
      mem_entry (j, "swap", read_u64 (d, "memory.memsw.usage_in_bytes"),
                 read_u64 (d, "memory.memsw.max_usage_in_bytes"),
                 read_u64 (d, "memory.memsw.limit_in_bytes"), read_u64 (d, "memory.memsw.failcnt"));
    }
  ar_json_key (j, "raw");
  ar_json_obj_open (j);
  {
    cleanup_free char *path = d ? xasprintf ("%s/memory.stat", d) : NULL;
    cleanup_free char *text = NULL;
    char *save = NULL;
    if (path && ar_read_file (path, 1 << 16, &text, NULL, NULL) == 0)
      for (char *l = strtok_r (text, "\n", &save); l; l = strtok_r (NULL, "\n", &save))
        {
          char *sp = strchr (l, ' ');
          if (sp == NULL)
            continue;
          *sp = '\0';
          kv (j, l, strtoull (sp + 1, NULL, 10));
        }
  }
  ar_json_obj_close (j);
}

char *
cgroup_stats_json (const struct cgroup *cg)
{
  struct ar_json *j = ar_json_new (NULL);
  bool v2 = cg->layout == CGROUP_V2;
  const char *pids = v2 ? cg->unified : cg->pids;

  ar_json_obj_open (j);
  ar_json_key (j, "cpu");
  ar_json_obj_open (j);
  if (v2)
    cpu_v2 (j, cg->unified);
  else
    cpu_v1 (j, cg);
  ar_json_obj_close (j);
  ar_json_key (j, "memory");
  ar_json_obj_open (j);
  memory (j, cg);
  ar_json_obj_close (j);
  ar_json_key (j, "pids");
  ar_json_obj_open (j);
  kv (j, "current", read_u64 (pids, "pids.current"));
  kv (j, "limit", read_u64 (pids, "pids.max"));
  ar_json_obj_close (j);
  ar_json_obj_close (j);
  return ar_json_finish (j, NULL);
}

uint64_t
cgroup_oom_kills (const struct cgroup *cg)
{
  if (cg->layout == CGROUP_V2)
    return read_keyed (cg->unified, "memory.events", "oom_kill");
  return read_keyed (cg->memory, "memory.oom_control", "oom_kill");
}
