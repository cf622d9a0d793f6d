/* vfiles.c: each renderer fed fixture host text (x86 and arm64 cpuinfo, meminfo, stat,
   loadavg) with exact expected output, then the same renderers on this host's real files, the
   cpuset parser with its errors, limits from config.json, and write_all + refresh keeping the
   inode.  No root needed.  */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "spec/spec.h"
#include "supervisor/vfiles.h"
#include "tap.h"
#include "utils.h"

/* Limits showing host CPUs `ids` (n of them) and `mem` bytes.  */
static struct vfiles_limits
limits (uint64_t mem, unsigned n, const int *ids)
{
  struct vfiles_limits l;

  memset (&l, 0, sizeof l);
  l.mem_limit = mem;
  l.ncpus = n;
  for (unsigned i = 0; i < n; i++)
    l.cpu_ids[i] = ids[i];
  clock_gettime (CLOCK_BOOTTIME, &l.boot);
  return l;
}

/* Render F from HOST with L; compare with EXPECT.  */
static int
check_render (enum vfile f, const struct vfiles_limits *l, const char *host, const char *expect)
{
  cleanup_free char *out = NULL;
  ar_error_t err = NULL;
  size_t len;

  if (vfile_render_text (f, l, host, &out, &len, &err) < 0)
    TAP_FAIL ("render %s: %s", vfile_name (f), err->msg);
  CHECK (len == strlen (out));
  CHECK_STR (out, expect);
  return 0;
}

static const char meminfo[] = "MemTotal:       24731184 kB\n"
                              "MemFree:        24088996 kB\n"
                              "MemAvailable:     300000 kB\n"
                              "Buffers:           24208 kB\n"
                              "Cached:           452632 kB\n"
                              "SwapTotal:       1048576 kB\n"
                              "SwapFree:        1048000 kB\n"
                              "VmallocTotal:   34359738367 kB\n"
                              "HugePages_Total:       0\n"
                              "Hugepagesize:       2048 kB\n"
                              "DirectMap1G:    25165824 kB\n";

static int
test_meminfo_limit (void)
{
  struct vfiles_limits l = limits (512 << 20, 1, (int[]){ 0 });
  return check_render (VF_MEMINFO, &l, meminfo,
                       "MemTotal:         524288 kB\n"
                       "MemFree:          524288 kB\n"
                       "MemAvailable:     300000 kB\n"
                       "Buffers:           24208 kB\n"
                       "Cached:           452632 kB\n"
                       "SwapTotal:             0 kB\n"
                       "SwapFree:              0 kB\n"
                       "VmallocTotal:     524288 kB\n"
                       "HugePages_Total:       0\n"
                       "Hugepagesize:       2048 kB\n"
                       "DirectMap1G:      524288 kB\n");
}

/* With the cgroup's usage known (100 MiB of 512): free is what it leaves, and the host's
   buffers and cache show no more than the usage (busybox free's used was total - free -
   buffers - cached, below 0).  */
static int
test_meminfo_usage (void)
{
  struct vfiles_limits l = limits (512 << 20, 1, (int[]){ 0 });

  l.mem_usage = 100 << 20;
  /* SReclaimable is in busybox's cache too: it gets what Buffers and Cached leave.  */
  if (check_render (VF_MEMINFO, &l,
                    "MemTotal:       24731184 kB\nBuffers:            1000 kB\n"
                    "Cached:            2000 kB\nSReclaimable:     300000 kB\n",
                    "MemTotal:         524288 kB\nBuffers:            1000 kB\n"
                    "Cached:            2000 kB\nSReclaimable:      99400 kB\n")
      < 0)
    return -1;
  return check_render (VF_MEMINFO, &l, meminfo,
                       "MemTotal:         524288 kB\n"
                       "MemFree:          421888 kB\n"
                       "MemAvailable:     421888 kB\n"
                       "Buffers:           24208 kB\n"
                       "Cached:            78192 kB\n"
                       "SwapTotal:             0 kB\n"
                       "SwapFree:              0 kB\n"
                       "VmallocTotal:     524288 kB\n"
                       "HugePages_Total:       0\n"
                       "Hugepagesize:       2048 kB\n"
                       "DirectMap1G:      524288 kB\n");
}

/* A limit above the host's memory shows the host's; no limit shows the host's text.  */
static int
test_meminfo_no_limit (void)
{
  struct vfiles_limits none = limits (0, 1, (int[]){ 0 });
  struct vfiles_limits big = limits (1ull << 50, 1, (int[]){ 0 });
  cleanup_free char *out = NULL;

  if (check_render (VF_MEMINFO, &none, meminfo, meminfo) < 0)
    return -1;
  CHECK (vfile_render_text (VF_MEMINFO, &big, meminfo, &out, NULL, NULL) == 0);
  CHECK (strncmp (out, "MemTotal:       24731184 kB\nMemFree:        24088996 kB\n", 55) == 0);
  CHECK (strstr (out, "SwapTotal:             0 kB\n") != NULL);
  return 0;
}

#define X86_CPU(n, core)                           \
  "processor\t: " #n "\n"                          \
  "vendor_id\t: GenuineIntel\n"                    \
  "model name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\n" \
  "core id\t\t: " #core "\n"                       \
  "flags\t\t: fpu vme de pse\n"                    \
  "\n"

static const char cpuinfo_x86[] = X86_CPU (0, 0) X86_CPU (1, 1) X86_CPU (2, 2) X86_CPU (3, 3);

static int
test_cpuinfo_x86 (void)
{
  struct vfiles_limits one = limits (0, 1, (int[]){ 1 });
  struct vfiles_limits two = limits (0, 2, (int[]){ 0, 3 });

  if (check_render (VF_CPUINFO, &one, cpuinfo_x86, X86_CPU (0, 1)) < 0)
    return -1;
  return check_render (VF_CPUINFO, &two, cpuinfo_x86, X86_CPU (0, 0) X86_CPU (1, 3));
}

#define ARM_CPU(n)                 \
  "processor\t: " #n "\n"          \
  "BogoMIPS\t: 50.00\n"            \
  "Features\t: fp asimd evtstrm\n" \
  "CPU part\t: 0xd0c\n"            \
  "\n"

/* Current arm64: one block per CPU.  Older arm: a shared trailing "Hardware" block, and the
   pre-3.19 arm64 layout with the processor lines together above one shared block.  */
static int
test_cpuinfo_arm (void)
{
  struct vfiles_limits one = limits (0, 1, (int[]){ 1 });
  const char *trailing = ARM_CPU (0) ARM_CPU (1) "Hardware\t: BCM2835\nRevision\t: a02082\n";
  const char *old = "Processor\t: AArch64 Processor rev 0 (aarch64)\n"
                    "processor\t: 0\n"
                    "processor\t: 1\n"
                    "Features\t: fp asimd\n"
                    "CPU part\t: 0xd03\n"
                    "\n"
                    "Hardware\t: Juno\n";

  if (check_render (VF_CPUINFO, &one, ARM_CPU (0) ARM_CPU (1), ARM_CPU (0)) < 0
      || check_render (VF_CPUINFO, &one, trailing,
                       ARM_CPU (0) "Hardware\t: BCM2835\nRevision\t: a02082\n")
             < 0)
    return -1;
  return check_render (VF_CPUINFO, &one, old,
                       "Processor\t: AArch64 Processor rev 0 (aarch64)\n"
                       "processor\t: 0\n"
                       "Features\t: fp asimd\n"
                       "CPU part\t: 0xd03\n"
                       "\n"
                       "Hardware\t: Juno\n");
}

static const char stat_host[] = "cpu  300 1 70 1300 13 0 17 26 0 0\n"
                                "cpu0 100 0 30 600 7 0 8 13 0 0\n"
                                "cpu1 200 1 40 700 6 0 9 13 0 0\n"
                                "intr 6706969 0 0 1\n"
                                "ctxt 11328430\n"
                                "btime 1796107707\n"
                                "processes 332123\n"
                                "procs_running 3\n"
                                "procs_blocked 0\n"
                                "softirq 4048929 0 344924\n";

#define STAT_REST                                                                            \
  "intr 6706969 0 0 1\nctxt 11328430\nbtime 1796107707\nprocesses 332123\nprocs_running 3\n" \
  "procs_blocked 0\nsoftirq 4048929 0 344924\n"

static int
test_stat (void)
{
  struct vfiles_limits one = limits (0, 1, (int[]){ 1 });
  struct vfiles_limits two = limits (0, 2, (int[]){ 0, 1 });

  if (check_render (VF_STAT, &one, stat_host,
                    "cpu  200 1 40 700 6 0 9 13 0 0\ncpu0 200 1 40 700 6 0 9 13 0 0\n" STAT_REST)
      < 0)
    return -1;
  return check_render (VF_STAT, &two, stat_host,
                       "cpu  300 1 70 1300 13 0 17 26 0 0\n"
                       "cpu0 100 0 30 600 7 0 8 13 0 0\n"
                       "cpu1 200 1 40 700 6 0 9 13 0 0\n" STAT_REST);
}

static int
test_loadavg (void)
{
  struct vfiles_limits one = limits (0, 1, (int[]){ 0 });
  struct vfiles_limits four = limits (0, 4, (int[]){ 0, 1, 2, 3 });
  cleanup_free char *out = NULL;
  ar_error_t err = NULL;

  if (check_render (VF_LOADAVG, &one, "3.50 1.00 0.40 2/100 999\n", "1.00 1.00 0.40 2/100 999\n")
          < 0
      || check_render (VF_LOADAVG, &four, "3.50 12.25 0.40 2/100 999\n",
                       "3.50 4.00 0.40 2/100 999\n")
             < 0)
    return -1;
  CHECK (vfile_render_text (VF_LOADAVG, &one, "3.5 1 1 2/100 9\n", &out, NULL, &err) < 0);
  CHECK_STR (err->msg, "parse `/proc/loadavg`");
  ar_error_release (&err);
  return 0;
}

static int
test_uptime (void)
{
  struct vfiles_limits l = limits (0, 2, (int[]){ 0, 1 });
  cleanup_free char *out = NULL;
  unsigned long up, upc, idle, idlec;

  l.boot.tv_sec -= 100;
  CHECK (vfile_render (VF_UPTIME, &l, &out, NULL) == 0);
  CHECK (sscanf (out, "%lu.%2lu %lu.%2lu\n", &up, &upc, &idle, &idlec) == 4);
  CHECK (up == 100 && upc < 50);
  CHECK (idle * 100 + idlec == 2 * (up * 100 + upc));
  CHECK (out[strlen (out) - 1] == '\n');
  return 0;
}

static int
test_cpu_online (void)
{
  struct vfiles_limits one = limits (0, 1, (int[]){ 1 });
  struct vfiles_limits four = limits (0, 4, (int[]){ 0, 1, 2, 3 });

  if (check_render (VF_CPU_ONLINE, &one, NULL, "0\n") < 0
      || check_render (VF_CPU_POSSIBLE, &four, NULL, "0-3\n") < 0)
    return -1;
  return check_render (VF_CPU_ONLINE, &four, NULL, "0-3\n");
}

static int
test_names (void)
{
  CHECK_STR (vfile_target (VF_MEMINFO), "/proc/meminfo");
  CHECK_STR (vfile_target (VF_CPU_POSSIBLE), "/sys/devices/system/cpu/possible");
  CHECK_STR (vfile_name (VF_CPU_ONLINE), "cpu_online");
  CHECK (vfile_host_path (VF_UPTIME) == NULL);
  CHECK (vfile_name (VF__N) == NULL && vfile_target ((enum vfile) - 1) == NULL);
  for (int f = 0; f < VF__N; f++)
    CHECK (vfile_name (f) != NULL && vfile_target (f)[0] == '/');
  return 0;
}

/* cpuset lists.  */

static int
check_cpus (const char *list, const char *expect_ids)
{
  char got[256] = "";
  cpu_set_t set;
  ar_error_t err = NULL;

  if (vfiles_parse_cpus (list, &set, &err) < 0)
    TAP_FAIL ("`%s`: %s", list, err->msg);
  for (int c = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET (c, &set))
      snprintf (got + strlen (got), sizeof got - strlen (got), "%s%d", got[0] ? " " : "", c);
  CHECK_STR (got, expect_ids);
  return 0;
}

static int
check_cpus_error (const char *list, const char *msg)
{
  cpu_set_t set;
  ar_error_t err = NULL;

  if (vfiles_parse_cpus (list, &set, &err) == 0)
    TAP_FAIL ("`%s` accepted", list);
  CHECK (err->status == EINVAL);
  CHECK_STR (err->msg, msg);
  ar_error_release (&err);
  return 0;
}

#define BAD(l) "linux.resources.cpu.cpus: `" l "`: expected a CPU list such as 0-3,5"

static int
test_parse_cpus (void)
{
  if (check_cpus ("0", "0") < 0 || check_cpus ("0-3,5", "0 1 2 3 5") < 0
      || check_cpus ("7,1-2,2", "1 2 7") < 0 || check_cpus ("3-3", "3") < 0
      || check_cpus ("1023", "1023") < 0)
    return -1;
  if (check_cpus_error ("", BAD ("")) < 0 || check_cpus_error ("a", BAD ("a")) < 0
      || check_cpus_error ("1-", BAD ("1-")) < 0 || check_cpus_error ("-1", BAD ("-1")) < 0
      || check_cpus_error ("1,,2", BAD ("1,,2")) < 0 || check_cpus_error ("1,", BAD ("1,")) < 0
      || check_cpus_error ("0 ", BAD ("0 ")) < 0 || check_cpus_error (" 0", BAD (" 0")) < 0
      || check_cpus_error ("0-1-2", BAD ("0-1-2")) < 0 || check_cpus_error ("0\n", BAD ("0\n")) < 0)
    return -1;
  if (check_cpus_error ("3-1", "linux.resources.cpu.cpus: `3-1`: range 3-1 runs backwards") < 0)
    return -1;
  return check_cpus_error ("0-1024", "linux.resources.cpu.cpus: `0-1024`: CPU 1024 is past "
                                     "the last one supported (1023)");
}

/* Limits from config.json.  */

static int
limits_of (const char *resources, struct vfiles_limits *l, ar_error_t *err)
{
  cleanup_free char *sq = xasprintf ("{ 'ociVersion': '1.2.0', 'root': { 'path': 'rootfs' }, "
                                     "'linux': { 'resources': %s } }",
                                     resources);
  cleanup_free char *text = tap_json (sq);
  cleanup_spec struct spec *s = NULL;

  if (spec_parse (text, "config.json", &s, err) < 0)
    return -1;
  return vfiles_limits_from_spec (s, l, err);
}

static unsigned
affinity_count (cpu_set_t *set)
{
  return sched_getaffinity (0, sizeof *set, set) < 0 ? 0 : CPU_COUNT (set);
}

static int
test_limits_from_spec (void)
{
  struct vfiles_limits l;
  ar_error_t err = NULL;
  cpu_set_t aff;
  unsigned host = affinity_count (&aff);
  int first = -1;

  CHECK (host >= 1);
  for (int c = 0; c < CPU_SETSIZE && first < 0; c++)
    if (CPU_ISSET (c, &aff))
      first = c;
  CHECK (limits_of ("{}", &l, &err) == 0);
  CHECK (l.mem_limit == 0 && l.ncpus == host && l.cpu_ids[0] == first);
  CHECK (limits_of ("{ 'memory': { 'limit': 536870912 } }", &l, &err) == 0);
  CHECK (l.mem_limit == 536870912);
  CHECK (limits_of ("{ 'memory': { 'limit': -1 } }", &l, &err) == 0 && l.mem_limit == 0);
  CHECK (limits_of ("{ 'memory': { 'limit': 0 } }", &l, &err) == 0 && l.mem_limit == 0);
  /* ceil (50000/100000) = 1; 150000/100000 → 2 (or fewer CPUs on this host).  */
  CHECK (limits_of ("{ 'cpu': { 'quota': 50000 } }", &l, &err) == 0 && l.ncpus == 1);
  CHECK (limits_of ("{ 'cpu': { 'quota': 150000, 'period': 100000 } }", &l, &err) == 0);
  CHECK (l.ncpus == (host < 2 ? host : 2));
  CHECK (limits_of ("{ 'cpu': { 'quota': -1 } }", &l, &err) == 0 && l.ncpus == host);
  {
    cleanup_free char *r = xasprintf ("{ 'cpu': { 'cpus': '%d' } }", first);
    CHECK (limits_of (r, &l, &err) == 0);
    CHECK (l.ncpus == 1 && l.cpu_ids[0] == first);
  }
  CHECK (limits_of ("{ 'cpu': { 'cpus': '0-1023', 'quota': 100000 } }", &l, &err) == 0);
  CHECK (l.ncpus == 1 && l.cpu_ids[0] == first);
  CHECK (limits_of ("{ 'cpu': { 'cpus': '0-2,x' } }", &l, &err) < 0);
  CHECK_STR (err->msg, BAD ("0-2,x"));
  ar_error_release (&err);
  return 0;
}

/* Live limits from the cgroup's files.  */

/* Base limits as config.json would give them: MEM bytes, CPUs 0-3, a quota of QUOTA CPUs.  */
static struct vfiles_limits
base_limits (uint64_t mem, uint64_t quota)
{
  struct vfiles_limits l;
  cpu_set_t cpus;

  memset (&l, 0, sizeof l);
  CPU_ZERO (&cpus);
  for (int c = 0; c < 4; c++)
    CPU_SET (c, &cpus);
  vfiles_limits_set (&l, mem, &cpus, quota);
  l.boot.tv_sec = 42;
  return l;
}

/* The CPUs shown, as "0 1 3".  */
static const char *
shown (const struct vfiles_limits *l)
{
  static char buf[256];

  buf[0] = '\0';
  for (unsigned i = 0; i < l->ncpus; i++)
    snprintf (buf + strlen (buf), sizeof buf - strlen (buf), "%s%d", i ? " " : "", l->cpu_ids[i]);
  return buf;
}

/* The limits from cgroup texts MEM, CPU_MAX, CFS_QUOTA, CFS_PERIOD, CPUSET (NULL: no such
   file) over base 512 MiB, CPUs 0-3, quota 2.  */
static int
from_cgroup (const char *mem, const char *cpu_max, const char *quota, const char *period,
             const char *cpuset, struct vfiles_limits *l, ar_error_t *err)
{
  struct vfiles_limits base = base_limits (512 << 20, 2);
  const char *text[VCG__N] = { [VCG_MEMORY] = mem,
                               [VCG_CPU_MAX] = cpu_max,
                               [VCG_CFS_QUOTA] = quota,
                               [VCG_CFS_PERIOD] = period,
                               [VCG_CPUSET] = cpuset };

  return vfiles_limits_from_cgroup (&base, text, l, err);
}

static int
test_limits_set (void)
{
  struct vfiles_limits l = base_limits (1 << 20, UINT64_MAX), m;
  cpu_set_t none;

  CHECK (l.mem_limit == 1 << 20 && l.ncpus == 4);
  CHECK_STR (shown (&l), "0 1 2 3");
  l = base_limits (0, 3);
  CHECK_STR (shown (&l), "0 1 2");
  CHECK (l.quota_cpus == 3 && CPU_COUNT (&l.cpus) == 4);
  /* No CPU at all still shows one.  */
  CPU_ZERO (&none);
  vfiles_limits_set (&l, 0, &none, UINT64_MAX);
  CHECK_STR (shown (&l), "0");
  l = base_limits (1 << 20, 2);
  m = base_limits (1 << 20, 2);
  CHECK (vfiles_limits_same (&l, &m));
  m.quota_cpus = 5; /* what is shown is the same: two CPUs */
  CHECK (vfiles_limits_same (&l, &m));
  m = base_limits (2 << 20, 2);
  CHECK (!vfiles_limits_same (&l, &m));
  m = base_limits (1 << 20, 3);
  CHECK (!vfiles_limits_same (&l, &m));
  return 0;
}

/* A set as "0 1 3".  */
static const char *
set_text (const cpu_set_t *set)
{
  static char buf[256];

  buf[0] = '\0';
  for (int c = 0; c < 64; c++)
    if (CPU_ISSET (c, set))
      snprintf (buf + strlen (buf), sizeof buf - strlen (buf), "%s%d", buf[0] ? " " : "", c);
  return buf;
}

/* sched_getaffinity's answer: the task's real mask within the cpuset, cut to the quota.  */
static int
test_affinity (void)
{
  struct vfiles_limits l = base_limits (0, UINT64_MAX);
  cpu_set_t real, out;

  /* No quota: nothing to cut, the kernel answers.  */
  CHECK (!vfiles_quota_cuts (&l));
  l = base_limits (0, 4);
  CHECK (!vfiles_quota_cuts (&l));
  l = base_limits (0, 2);
  CHECK (vfiles_quota_cuts (&l));
  /* The whole cpuset: the lowest two, as cpu/online shows.  */
  CPU_ZERO (&real);
  for (int c = 0; c < 4; c++)
    CPU_SET (c, &real);
  vfiles_affinity (&l, &real, &out);
  CHECK_STR (set_text (&out), "0 1");
  /* taskset -c 3: the task's own CPU, not CPU 0.  */
  CPU_ZERO (&real);
  CPU_SET (3, &real);
  vfiles_affinity (&l, &real, &out);
  CHECK_STR (set_text (&out), "3");
  /* taskset -c 1-3 under a quota of 2: two of its own.  */
  CPU_SET (1, &real);
  CPU_SET (2, &real);
  vfiles_affinity (&l, &real, &out);
  CHECK_STR (set_text (&out), "1 2");
  /* A mask outside the cpuset (the cpuset changed meanwhile): the kernel's, cut.  */
  CPU_ZERO (&real);
  CPU_SET (5, &real);
  CPU_SET (6, &real);
  CPU_SET (7, &real);
  vfiles_affinity (&l, &real, &out);
  CHECK_STR (set_text (&out), "5 6");
  return 0;
}

static int
test_limits_from_cgroup (void)
{
  struct vfiles_limits l;
  ar_error_t err = NULL;

  /* No file: config.json's, boot included.  */
  CHECK (from_cgroup (NULL, NULL, NULL, NULL, NULL, &l, &err) == 0);
  CHECK (l.mem_limit == 512 << 20 && l.boot.tv_sec == 42 && l.mem_usage == 0);
  /* The usage, when the cgroup says it; one that does not parse is not known.  */
  {
    struct vfiles_limits base = l;
    const char *text[VCG__N] = { [VCG_MEM_USAGE] = "104857600\n" };
    CHECK (vfiles_limits_from_cgroup (&base, text, &l, &err) == 0 && l.mem_usage == 100 << 20);
    text[VCG_MEM_USAGE] = "lots\n";
    CHECK (vfiles_limits_from_cgroup (&base, text, &l, &err) == 0 && l.mem_usage == 0);
  }
  CHECK_STR (shown (&l), "0 1");
  /* v1, as the kernel writes the files.  */
  CHECK (from_cgroup ("134217728\n", NULL, "300000\n", "100000\n", "0-2\n", &l, &err) == 0);
  CHECK (l.mem_limit == 128 << 20);
  CHECK_STR (shown (&l), "0 1 2");
  CHECK (from_cgroup ("9223372036854771712\n", NULL, "-1\n", "100000\n", "1,3\n", &l, &err) == 0);
  CHECK (l.mem_limit == 0);
  CHECK_STR (shown (&l), "1 3");
  CHECK (from_cgroup (NULL, NULL, "150000\n", "100000\n", NULL, &l, &err) == 0);
  CHECK (l.mem_limit == 512 << 20);
  CHECK_STR (shown (&l), "0 1");
  CHECK (from_cgroup (NULL, NULL, "50000\n", "100000\n", "2-3\n", &l, &err) == 0);
  CHECK_STR (shown (&l), "2");
  /* A quota without its period: the kernel's default, 100000 µs.  */
  CHECK (from_cgroup (NULL, NULL, "100001", NULL, NULL, &l, &err) == 0);
  CHECK_STR (shown (&l), "0 1");
  /* An empty cpuset (a v1 directory no CPU was given yet) is none.  */
  CHECK (from_cgroup (NULL, NULL, "-1\n", "100000\n", "\n", &l, &err) == 0);
  CHECK_STR (shown (&l), "0 1 2 3");
  /* v2.  */
  CHECK (from_cgroup ("max\n", "max 100000\n", NULL, NULL, "0-1\n", &l, &err) == 0);
  CHECK (l.mem_limit == 0);
  CHECK_STR (shown (&l), "0 1");
  CHECK (from_cgroup ("268435456\n", "100000 100000\n", NULL, NULL, "0-3\n", &l, &err) == 0);
  CHECK (l.mem_limit == 256 << 20);
  CHECK_STR (shown (&l), "0");
  CHECK (from_cgroup ("268435456", "250000 100000", NULL, NULL, "0-7", &l, &err) == 0);
  CHECK_STR (shown (&l), "0 1 2");
  /* cpu.max wins over v1's files (there are never both).  */
  CHECK (from_cgroup (NULL, "max 100000\n", "100000\n", "100000\n", NULL, &l, &err) == 0);
  CHECK_STR (shown (&l), "0 1 2 3");
  /* What does not parse changes nothing and says which file.  */
  l.mem_limit = 7;
  CHECK (from_cgroup ("12k\n", NULL, NULL, NULL, NULL, &l, &err) < 0 && l.mem_limit == 7);
  CHECK (err->status == EINVAL);
  CHECK_STR (err->msg, "the cgroup's memory limit: cannot parse `12k\n`");
  ar_error_release (&err);
  static const char *const bad_cpu_max[]
      = { "max", "100000", "100000 0", "1 2 3", "-1 100000", "max 100000 \n", "" };
  for (size_t i = 0; i < ARRAY_SIZE (bad_cpu_max); i++)
    {
      if (from_cgroup (NULL, bad_cpu_max[i], NULL, NULL, NULL, &l, &err) == 0)
        TAP_FAIL ("cpu.max `%s` accepted", bad_cpu_max[i]);
      ar_error_release (&err);
    }
  CHECK (from_cgroup (NULL, NULL, "-2\n", "100000\n", NULL, &l, &err) < 0);
  CHECK_STR (err->msg, "the cgroup's CPU quota: cannot parse `-2\n`");
  ar_error_release (&err);
  CHECK (from_cgroup (NULL, NULL, "100000\n", "0\n", NULL, &l, &err) < 0);
  ar_error_release (&err);
  CHECK (from_cgroup (NULL, NULL, NULL, NULL, "0-1\n\n", &l, &err) < 0);
  CHECK_STR (err->msg, "the cgroup's cpuset: cannot parse `0-1\n\n`");
  ar_error_release (&err);
  CHECK (from_cgroup ("max \n", NULL, NULL, NULL, NULL, &l, &err) < 0);
  ar_error_release (&err);
  return 0;
}

/* Write TEXT over DIR/NAME in place (the supervisor keeps its fd open, as on a cgroup).  */
static int
put (const char *dir, const char *name, const char *text)
{
  cleanup_free char *path = xasprintf ("%s/%s", dir, name);
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  ssize_t n;

  if (fd < 0)
    return -1;
  n = write (fd, text, strlen (text));
  close (fd);
  return n == (ssize_t) strlen (text) ? 0 : -1;
}

/* vfiles_live on fake v1 directories (memory, cpu, cpuset hierarchies): the tick follows a
   change of each, rewrites the files that do not change with time too, and a file that stops
   parsing changes nothing.  */
static int
test_live (void)
{
  char dir[] = "/tmp/agentrt-vlive-XXXXXX";
  struct vfiles_limits base = base_limits (256 << 20, 1), got;
  static struct vfiles_live v; /* 8 KiB: not on the stack */
  cleanup_free char *mem = NULL, *cpu = NULL, *cpuset = NULL, *vdir = NULL, *online = NULL,
                    *mi = NULL, *text = NULL;
  cleanup_close int dirfd = -1;
  ar_error_t err = NULL;
  unsigned long kb = 0;

  CHECK (mkdtemp (dir) != NULL);
  mem = xasprintf ("%s/memory", dir);
  cpu = xasprintf ("%s/cpu", dir);
  cpuset = xasprintf ("%s/cpuset", dir);
  vdir = xasprintf ("%s/vfs", dir);
  online = xasprintf ("%s/cpu_online", vdir);
  mi = xasprintf ("%s/meminfo", vdir);
  CHECK (mkdir (mem, 0755) == 0 && mkdir (cpu, 0755) == 0 && mkdir (cpuset, 0755) == 0);
  CHECK (put (mem, "memory.limit_in_bytes", "268435456\n") == 0);
  CHECK (put (cpu, "cpu.cfs_quota_us", "100000\n") == 0);
  CHECK (put (cpu, "cpu.cfs_period_us", "100000\n") == 0);
  CHECK (put (cpuset, "cpuset.cpus", "0-3\n") == 0);
  CHECK (put (cpuset, "cpuset.effective_cpus", "0-3\n") == 0);
  if (vfiles_write_all (vdir, &base, &err) < 0)
    TAP_FAIL ("write_all: %s", err->msg);
  dirfd = open (vdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  CHECK (dirfd >= 0);

  vfiles_live_init (&v, &base, &(struct vfiles_cgroup){ mem, cpu, cpuset });
  CHECK (v.fd[VCG_MEMORY] >= 0 && v.fd[VCG_CFS_QUOTA] >= 0 && v.fd[VCG_CFS_PERIOD] >= 0);
  CHECK (v.fd[VCG_CPUSET] >= 0 && v.fd[VCG_CPU_MAX] < 0);
  CHECK (vfiles_live_tick (&v, dirfd, &err) == 0);
  vfiles_live_get (&v, &got);
  CHECK (vfiles_limits_same (&got, &base));

  /* docker update --memory 128m --cpus 2.  */
  CHECK (put (mem, "memory.limit_in_bytes", "134217728\n") == 0);
  CHECK (put (cpu, "cpu.cfs_quota_us", "200000\n") == 0);
  CHECK (vfiles_live_tick (&v, dirfd, &err) == 0);
  vfiles_live_get (&v, &got);
  CHECK (got.mem_limit == 128 << 20 && got.boot.tv_sec == 42);
  CHECK_STR (shown (&got), "0 1");
  CHECK (ar_read_file (online, 0, &text, NULL, NULL) == 0);
  CHECK_STR (text, "0-1\n");
  free (text);
  text = NULL;
  CHECK (ar_read_file (mi, 0, &text, NULL, NULL) == 0);
  CHECK (sscanf (text, "MemTotal: %lu kB", &kb) == 1 && kb == 131072);
  free (text);
  text = NULL;

  /* The effective cpuset, not the one asked for, is what counts.  */
  CHECK (put (cpuset, "cpuset.effective_cpus", "3\n") == 0);
  CHECK (vfiles_live_tick (&v, dirfd, &err) == 0);
  vfiles_live_get (&v, &got);
  CHECK_STR (shown (&got), "3");
  CHECK (ar_read_file (online, 0, &text, NULL, NULL) == 0);
  CHECK_STR (text, "0\n");
  free (text);
  text = NULL;

  /* A file that no longer parses (or reads) keeps what was shown.  */
  CHECK (put (mem, "memory.limit_in_bytes", "garbage\n") == 0);
  CHECK (put (cpuset, "cpuset.effective_cpus", "0-3\n") == 0);
  CHECK (vfiles_live_tick (&v, dirfd, &err) == 0);
  vfiles_live_get (&v, &got);
  CHECK (got.mem_limit == 128 << 20);
  CHECK_STR (shown (&got), "3");

  /* No cgroup: config.json's limits, and the tick still refreshes.  */
  for (int i = 0; i < VCG__N; i++)
    if (v.fd[i] >= 0)
      close (v.fd[i]);
  vfiles_live_init (&v, &base, NULL);
  for (int i = 0; i < VCG__N; i++)
    CHECK (v.fd[i] == -1);
  CHECK (vfiles_live_tick (&v, dirfd, &err) == 0);
  vfiles_live_get (&v, &got);
  CHECK (vfiles_limits_same (&got, &base));

  for (int f = 0; f < VF__N; f++)
    unlinkat (dirfd, vfile_name (f), 0);
  {
    static const char *const made[] = { "vfs",
                                        "memory/memory.limit_in_bytes",
                                        "memory",
                                        "cpu/cpu.cfs_quota_us",
                                        "cpu/cpu.cfs_period_us",
                                        "cpu",
                                        "cpuset/cpuset.cpus",
                                        "cpuset/cpuset.effective_cpus",
                                        "cpuset" };
    cleanup_close int top = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    for (size_t i = 0; top >= 0 && i < ARRAY_SIZE (made); i++)
      (void) (unlinkat (top, made[i], 0) == 0 || unlinkat (top, made[i], AT_REMOVEDIR) == 0);
  }
  rmdir (dir);
  return 0;
}

/* The host's own files.  */

static int
test_host_files (void)
{
  struct vfiles_limits l = limits (256 << 20, 1, (int[]){ 0 });
  cleanup_free char *mem = NULL, *cpu = NULL, *stat = NULL, *online = NULL, *load = NULL;
  ar_error_t err = NULL;
  unsigned long total = 0;
  int procs = 0;
  cpu_set_t aff;

  if (affinity_count (&aff) >= 1)
    for (int c = CPU_SETSIZE - 1; c >= 0; c--)
      if (CPU_ISSET (c, &aff))
        l.cpu_ids[0] = c; /* the lowest CPU this process may use */
  CHECK (vfile_render (VF_MEMINFO, &l, &mem, &err) == 0);
  CHECK (sscanf (mem, "MemTotal: %lu kB", &total) == 1 && total == 262144);
  CHECK (strstr (mem, "\nSwapTotal:             0 kB\n") != NULL);
  CHECK (vfile_render (VF_CPUINFO, &l, &cpu, &err) == 0);
  for (const char *p = cpu; (p = strstr (p, "processor")) != NULL; p++)
    procs += (p == cpu || p[-1] == '\n') && strncmp (p, "processor\t: 0\n", 14) == 0;
  CHECK (procs == 1 && strstr (cpu, "processor\t: 1\n") == NULL);
  CHECK (vfile_render (VF_STAT, &l, &stat, &err) == 0);
  CHECK (strncmp (stat, "cpu  ", 5) == 0 && strstr (stat, "\ncpu0 ") != NULL);
  CHECK (strstr (stat, "\ncpu1 ") == NULL && strstr (stat, "\nbtime ") != NULL);
  CHECK (vfile_render (VF_LOADAVG, &l, &load, &err) == 0 && strchr (load, '/') != NULL);
  CHECK (vfile_render (VF_CPU_ONLINE, &l, &online, &err) == 0);
  CHECK_STR (online, "0\n");
  return 0;
}

static int
test_write_and_refresh (void)
{
  char dir[] = "/tmp/agentrt-vfiles-XXXXXX";
  struct vfiles_limits l = limits (128 << 20, 1, (int[]){ 0 });
  cleanup_free char *sub = NULL, *up = NULL, *text = NULL;
  cleanup_close int dirfd = -1;
  ar_error_t err = NULL;
  struct stat before, after;
  int ret = 0;

  CHECK (mkdtemp (dir) != NULL);
  sub = xasprintf ("%s/vfiles", dir);
  up = xasprintf ("%s/uptime", sub);
  if (vfiles_write_all (sub, &l, &err) < 0)
    TAP_FAIL ("write_all: %s", err->msg);
  dirfd = open (sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  CHECK (dirfd >= 0);
  for (int f = 0; f < VF__N && ret == 0; f++)
    ret = fstatat (dirfd, vfile_name (f), &before, 0) == 0 && S_ISREG (before.st_mode) ? 0 : -1;
  CHECK (ret == 0);
  CHECK (fstatat (dirfd, "uptime", &before, 0) == 0);
  /* Padding the file first shows that refresh cuts it back to the new text.  */
  {
    int fd = openat (dirfd, "uptime", O_WRONLY | O_APPEND | O_CLOEXEC);
    CHECK (fd >= 0 && write (fd, "junk junk junk junk junk\n", 25) == 25);
    close (fd);
  }
  l.boot.tv_sec -= 3600;
  if (vfiles_refresh (dirfd, &l, &err) < 0)
    TAP_FAIL ("refresh: %s", err->msg);
  CHECK (fstatat (dirfd, "uptime", &after, 0) == 0 && after.st_ino == before.st_ino);
  CHECK (ar_read_file (up, 0, &text, NULL, NULL) == 0);
  CHECK (strncmp (text, "3600.", 5) == 0 && strchr (text, '\n')[1] == '\0');
  CHECK (vfiles_write_all (sub, &l, &err) == 0); /* an existing directory is reused */
  for (int f = 0; f < VF__N; f++)
    unlinkat (dirfd, vfile_name (f), 0);
  rmdir (sub);
  rmdir (dir);
  return 0;
}

int
main (void)
{
  RUN_TEST (test_meminfo_limit);
  RUN_TEST (test_meminfo_no_limit);
  RUN_TEST (test_meminfo_usage);
  RUN_TEST (test_cpuinfo_x86);
  RUN_TEST (test_cpuinfo_arm);
  RUN_TEST (test_stat);
  RUN_TEST (test_loadavg);
  RUN_TEST (test_uptime);
  RUN_TEST (test_cpu_online);
  RUN_TEST (test_names);
  RUN_TEST (test_parse_cpus);
  RUN_TEST (test_limits_from_spec);
  RUN_TEST (test_limits_set);
  RUN_TEST (test_affinity);
  RUN_TEST (test_limits_from_cgroup);
  RUN_TEST (test_live);
  RUN_TEST (test_host_files);
  RUN_TEST (test_write_and_refresh);
  TAP_END ();
}
