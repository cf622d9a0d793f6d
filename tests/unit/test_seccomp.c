/* seccomp/oci.c: profiles parsed from JSON by spec.c, compiled, and installed in forked children
   that set no_new_privs first (so no root is needed); each child makes raw syscalls and exits 0
   when every one behaved as the profile says.  The notify test answers the child's call from the
   parent; the listener test receives what seccomp_oci_send_listener sends.  */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "json.h"
#include "seccomp/oci.h"
#include "spec/spec.h"
#include "tap.h"
#include "fdpass.h"
#include "utils.h"

#ifndef SECCOMP_FILTER_FLAG_LOG
#define SECCOMP_FILTER_FLAG_LOG (1UL << 1)
#endif
#ifndef SECCOMP_FILTER_FLAG_SPEC_ALLOW
#define SECCOMP_FILTER_FLAG_SPEC_ALLOW (1UL << 2)
#endif
#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)
#endif

#define CONFIG(seccomp) \
  "{ 'ociVersion': '1.2.0', 'root': { 'path': 'rootfs' }, 'linux': { 'seccomp': " seccomp " } }"
#define ALLOW_BUT(syscalls) \
  CONFIG ("{ 'defaultAction': 'SCMP_ACT_ALLOW', 'syscalls': [ " syscalls " ] }")

static void
print_error (const char *what, ar_error_t *err)
{
  cleanup_free char *text = ar_error_text (*err);
  printf ("# %s: %s\n", what, text);
  ar_error_release (err);
}

static int
parse_sq (const char *sq, struct spec **out)
{
  cleanup_free char *text = tap_json (sq);
  ar_error_t err = NULL;

  if (spec_parse (text, "config.json", out, &err) < 0)
    {
      print_error ("parse", &err);
      return -1;
    }
  return 0;
}

/* Parse and compile SQ into *prog.  */
static int
compile_sq (const char *sq, struct seccomp_prog *prog)
{
  cleanup_spec struct spec *s = NULL;
  ar_error_t err = NULL;

  if (parse_sq (sq, &s) < 0)
    return -1;
  if (seccomp_oci_compile (&s->linux_.seccomp, prog, &err) < 0)
    {
      print_error ("compile", &err);
      return -1;
    }
  return 0;
}

/* Compiling S fails with exactly MSG.  */
static int
check_compile_error (const struct spec_seccomp *s, const char *msg)
{
  struct seccomp_prog prog = { 0 };
  ar_error_t err = NULL;
  cleanup_free char *text = NULL;

  if (seccomp_oci_compile (s, &prog, &err) == 0)
    {
      seccomp_prog_release (&prog);
      printf ("# compiled, expected: %s\n", msg);
      return -1;
    }
  text = ar_error_text (err);
  ar_error_release (&err);
  if (strcmp (text, msg) != 0)
    {
      printf ("# got:      %s\n# expected: %s\n", text, msg);
      return -1;
    }
  return 0;
}

static int
check_sq_error (const char *sq, const char *msg)
{
  cleanup_spec struct spec *s = NULL;
  return parse_sq (sq, &s) < 0 ? -1 : check_compile_error (&s->linux_.seccomp, msg);
}

/* Wait for PID; 0 if it exited 0, else prints how it ended.  */
static int
wait_ok (pid_t pid)
{
  int st = 0;

  while (waitpid (pid, &st, 0) < 0)
    if (errno != EINTR)
      return -1;
  if (WIFEXITED (st) && WEXITSTATUS (st) == 0)
    return 0;
  if (WIFEXITED (st))
    printf ("# child failed at step %d\n", WEXITSTATUS (st));
  else
    printf ("# child killed by signal %d\n", WTERMSIG (st));
  return -1;
}

/* In a child: no_new_privs, install P, then FN's result is the exit status.  FN runs under the
   filter, so it makes raw syscalls only.  */
static int
run_filtered (const struct seccomp_prog *p, int (*fn) (void))
{
  pid_t pid = fork ();

  if (pid < 0)
    return -1;
  if (pid == 0)
    {
      ar_error_t err = NULL;
      int listener = -1;
      if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0
          || seccomp_prog_install (p, &listener, &err) < 0)
        _exit (100);
      /* Straight to exit_group: under a sanitizer, _exit first runs the runtime's teardown
         (sigaltstack, gettid, mmap), which a filter that allows only the exits refuses.  */
      syscall (SYS_exit_group, fn ());
      _exit (101);
    }
  return wait_ok (pid);
}

/* SQ compiles, and FN passes under it.  */
static int
check_filtered (const char *sq, int (*fn) (void))
{
  struct seccomp_prog prog = { 0 };
  int ret;

  if (compile_sq (sq, &prog) < 0)
    return -1;
  ret = run_filtered (&prog, fn);
  seccomp_prog_release (&prog);
  return ret;
}

/* syscall() returned -1 with errno E.  */
static int
failed_with (long r, int e)
{
  return r == -1 && errno == e;
}

static int
child_getppid_exdev (void)
{
  if (!failed_with (syscall (SYS_getppid), EXDEV))
    return 1;
  if (syscall (SYS_getpid) <= 0) /* the default action is ALLOW */
    return 2;
  return 0;
}

static int
test_errno_ret (void)
{
  return check_filtered (ALLOW_BUT ("{ 'names': ['getppid'], 'action': 'SCMP_ACT_ERRNO', "
                                    "'errnoRet': 18 }"),
                         child_getppid_exdev);
}

static int
child_default_errno (void)
{
  if (!failed_with (syscall (SYS_getppid), EPERM))
    return 1;
  if (!failed_with (syscall (SYS_gettid), ENOSYS))
    return 2;
  return 0;
}

/* A default SCMP_ACT_ERRNO without defaultErrnoRet is EPERM; a rule equal to the default
   (getppid) is skipped rather than refused; _exit works because exit_group is allowed.  */
static int
test_default_errno_is_eperm (void)
{
  return check_filtered (
      CONFIG ("{ 'defaultAction': 'SCMP_ACT_ERRNO', 'syscalls': ["
              "  { 'names': ['exit_group', 'exit'], 'action': 'SCMP_ACT_ALLOW' },"
              "  { 'names': ['getppid'], 'action': 'SCMP_ACT_ERRNO' },"
              "  { 'names': ['gettid'], 'action': 'SCMP_ACT_ERRNO', "
              "    'errnoRet': 38 } ] }"),
      child_default_errno);
}

static int
child_personality_8 (void)
{
  if (!failed_with (syscall (SYS_personality, 8UL), EACCES))
    return 1;
  if (syscall (SYS_personality, 0xffffffffUL) < 0) /* a query: arg 0 is not 8 */
    return 2;
  if (syscall (SYS_personality, 0UL) < 0)
    return 3;
  return 0;
}

static int
test_arg_equal (void)
{
  return check_filtered (
      ALLOW_BUT ("{ 'names': ['personality'], 'action': 'SCMP_ACT_ERRNO', "
                 "  'errnoRet': 13, "
                 "  'args': [ { 'index': 0, 'value': 8, 'op': 'SCMP_CMP_EQ' } ] }"),
      child_personality_8);
}

static int
child_masked (void)
{
  if (!failed_with (syscall (SYS_personality, 0x40000UL), EPERM))
    return 1;
  if (!failed_with (syscall (SYS_personality, 0x40008UL), EPERM))
    return 2;
  if (syscall (SYS_personality, 8UL) < 0 || syscall (SYS_personality, 0UL) < 0)
    return 3;
  return 0;
}

/* (arg0 & ADDR_NO_RANDOMIZE) == ADDR_NO_RANDOMIZE: value is the mask, valueTwo the result.  */
static int
test_arg_masked_eq (void)
{
  return check_filtered (ALLOW_BUT ("{ 'names': ['personality'], 'action': 'SCMP_ACT_ERRNO', "
                                    "  'args': [ { 'index': 0, 'value': 262144, "
                                    "              'valueTwo': 262144, "
                                    "              'op': 'SCMP_CMP_MASKED_EQ' } ] }"),
                         child_masked);
}

static int
child_and (void)
{
  long pgrp = syscall (SYS_getpgid, 0);

  if (!failed_with (syscall (SYS_getpriority, PRIO_PGRP, 0), EXDEV))
    return 1;
  if (syscall (SYS_getpriority, PRIO_PROCESS, 0) < 0)
    return 2;
  if (syscall (SYS_getpriority, PRIO_PGRP, pgrp) < 0)
    return 3;
  return 0;
}

/* Two conditions on different arguments: both must hold.  */
static int
test_args_are_anded (void)
{
  return check_filtered (ALLOW_BUT ("{ 'names': ['getpriority'], 'action': 'SCMP_ACT_ERRNO', "
                                    "  'errnoRet': 18, 'args': ["
                                    "    { 'index': 0, 'value': 1, 'op': 'SCMP_CMP_EQ' },"
                                    "    { 'index': 1, 'value': 0, 'op': 'SCMP_CMP_EQ' } ] }"),
                         child_and);
}

static int
child_or (void)
{
  if (!failed_with (syscall (SYS_getpriority, PRIO_PGRP, 0), EXDEV))
    return 1;
  if (!failed_with (syscall (SYS_getpriority, PRIO_USER, 0), EXDEV))
    return 2;
  if (syscall (SYS_getpriority, PRIO_PROCESS, 0) < 0)
    return 3;
  return 0;
}

/* The same argument twice: runc and crun make one rule per condition, so either matches.  */
static int
test_same_arg_twice_is_ored (void)
{
  return check_filtered (ALLOW_BUT ("{ 'names': ['getpriority'], 'action': 'SCMP_ACT_ERRNO', "
                                    "  'errnoRet': 18, 'args': ["
                                    "    { 'index': 0, 'value': 1, 'op': 'SCMP_CMP_EQ' },"
                                    "    { 'index': 0, 'value': 2, 'op': 'SCMP_CMP_EQ' } ] }"),
                         child_or);
}

static int
test_unknown_syscall_skipped (void)
{
  return check_filtered (ALLOW_BUT ("{ 'names': ['agentrt_no_such_syscall', 'getppid'], "
                                    "  'action': 'SCMP_ACT_ERRNO', 'errnoRet': 18 },"
                                    "{ 'names': ['agentrt_nor_this'], 'action': 'SCMP_ACT_KILL' }"),
                         child_getppid_exdev);
}

/* Past 32 rules libseccomp builds a binary tree (as runc asks for): the same verdicts.  */
static int
test_many_rules (void)
{
  static const char *const names[] = { "getppid",
                                       "acct",
                                       "add_key",
                                       "bpf",
                                       "clock_adjtime",
                                       "create_module",
                                       "delete_module",
                                       "finit_module",
                                       "get_kernel_syms",
                                       "get_mempolicy",
                                       "init_module",
                                       "ioperm",
                                       "iopl",
                                       "kcmp",
                                       "kexec_file_load",
                                       "kexec_load",
                                       "keyctl",
                                       "lookup_dcookie",
                                       "mbind",
                                       "mount",
                                       "move_pages",
                                       "nfsservctl",
                                       "open_by_handle_at",
                                       "perf_event_open",
                                       "pivot_root",
                                       "process_vm_readv",
                                       "process_vm_writev",
                                       "ptrace",
                                       "query_module",
                                       "quotactl",
                                       "reboot",
                                       "request_key",
                                       "set_mempolicy",
                                       "setns",
                                       "settimeofday",
                                       "swapon",
                                       "swapoff",
                                       "sysfs",
                                       "umount2",
                                       "unshare",
                                       "uselib",
                                       "userfaultfd" };
  cleanup_free char *list = xstrdup ("");
  cleanup_free char *sq = NULL;

  for (size_t i = 0; i < ARRAY_SIZE (names); i++)
    {
      char *next = xasprintf ("%s%s'%s'", list, i ? ", " : "", names[i]);
      free (list);
      list = next;
    }
  sq = xasprintf (ALLOW_BUT ("{ 'names': [ %s ], 'action': 'SCMP_ACT_ERRNO', 'errnoRet': 18 }"),
                  list);
  return check_filtered (sq, child_getppid_exdev);
}

#define ERRNO_ON_READ(args) \
  ALLOW_BUT ("{ 'names': ['read'], 'action': 'SCMP_ACT_ERRNO', 'args': [ " args " ] }")

/* What the parser cannot catch (a hand-built spec) and what libseccomp refuses both name the
   syscall.  */
static int
test_bad_rules_name_the_syscall (void)
{
  cleanup_spec struct spec *s = NULL;

  if (parse_sq (ERRNO_ON_READ ("{ 'index': 1, 'value': 0, 'op': 'SCMP_CMP_EQ' }"), &s) < 0)
    return -1;
  s->linux_.seccomp.syscalls[0].args[0].index = 6;
  if (check_compile_error (&s->linux_.seccomp, "linux.seccomp: syscall \"read\": argument index 6 "
                                               "is out of range [0, 5]: Invalid argument")
      < 0)
    return -1;
  s->linux_.seccomp.syscalls[0].args[0].index = 1;
  s->linux_.seccomp.syscalls[0].args[0].op = 0; /* not an scmp_compare */
  if (check_compile_error (&s->linux_.seccomp,
                           "linux.seccomp: syscall \"read\": add rule: Invalid argument")
      < 0)
    return -1;
  if (check_sq_error (ALLOW_BUT ("{ 'names': ['read'], 'action': 'SCMP_ACT_KILL', "
                                 "  'errnoRet': 1 }"),
                      "linux.seccomp: syscall \"read\": SCMP_ACT_KILL takes no errno: "
                      "Invalid argument")
      < 0)
    return -1;
  if (check_sq_error (ALLOW_BUT ("{ 'names': ['read'], 'action': 'SCMP_ACT_TRACE', "
                                 "  'errnoRet': 65536 }"),
                      "linux.seccomp: syscall \"read\": errno 65536 does not fit in 16 bits: "
                      "Numerical result out of range")
      < 0)
    return -1;
  if (check_sq_error (CONFIG ("{ 'defaultAction': 'SCMP_ACT_ALLOW', 'defaultErrnoRet': 1 }"),
                      "linux.seccomp: defaultErrnoRet: SCMP_ACT_ALLOW takes no errno: "
                      "Invalid argument")
      < 0)
    return -1;
  return check_sq_error (CONFIG ("{ 'defaultAction': 'SCMP_ACT_NOTIFY' }"),
                         "linux.seccomp: SCMP_ACT_NOTIFY cannot be the default action: "
                         "Invalid argument");
}

static int
child_nothing (void)
{
  return 0;
}

#define ALL_FLAGS                                                            \
  "'flags': [ 'SECCOMP_FILTER_FLAG_LOG', 'SECCOMP_FILTER_FLAG_SPEC_ALLOW', " \
  "'SECCOMP_FILTER_FLAG_TSYNC', 'SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV' ]"

/* All four flags land in out->flags, except WAIT_KILLABLE_RECV without a listener (the kernel
   refuses it there); the kernel takes what is left.  Other architectures are accepted.  */
static int
test_flags (void)
{
  const unsigned int base
      = SECCOMP_FILTER_FLAG_LOG | SECCOMP_FILTER_FLAG_SPEC_ALLOW | SECCOMP_FILTER_FLAG_TSYNC;
  struct seccomp_prog plain = { 0 }, notify = { 0 };
  int ret;

  if (compile_sq (CONFIG ("{ 'defaultAction': 'SCMP_ACT_ALLOW', " ALL_FLAGS ", 'architectures': "
                          "['SCMP_ARCH_X86_64', 'SCMP_ARCH_X86', 'SCMP_ARCH_X32', "
                          "'SCMP_ARCH_AARCH64'] }"),
                  &plain)
      < 0)
    return -1;
  ret = plain.flags == base && !plain.notify && plain.len > 0 ? run_filtered (&plain, child_nothing)
                                                              : -1;
  seccomp_prog_release (&plain);
  if (ret < 0)
    return -1;
  if (compile_sq (CONFIG ("{ 'defaultAction': 'SCMP_ACT_ALLOW', " ALL_FLAGS ", 'syscalls': [ "
                          "{ 'names': ['getppid'], 'action': 'SCMP_ACT_NOTIFY' } ] }"),
                  &notify)
      < 0)
    return -1;
  ret = notify.flags == (base | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV) && notify.notify ? 0 : -1;
  seccomp_prog_release (&notify);
  return ret;
}

static int
recv_fd (int sock, char *buf, size_t size, size_t *len)
{
  char cbuf[CMSG_SPACE (sizeof (int))] = { 0 };
  struct iovec iov = { buf, size };
  struct msghdr mh
      = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf };
  struct cmsghdr *c;
  ssize_t r = recvmsg (sock, &mh, MSG_CMSG_CLOEXEC);
  int fd = -1;

  if (r < 0)
    return -1;
  *len = (size_t) r;
  c = CMSG_FIRSTHDR (&mh);
  if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
    memcpy (&fd, CMSG_DATA (c), sizeof fd);
  return fd;
}

static int
child_getppid_answered (void)
{
  return syscall (SYS_getppid) == 4242 ? 0 : 1;
}

/* Answer one notification for getppid from CHILD with 4242.  */
static int
answer_getppid (int listener, pid_t child)
{
  struct seccomp_notif req;
  struct seccomp_notif_resp resp;
  struct pollfd pfd = { .fd = listener, .events = POLLIN };

  if (poll (&pfd, 1, 10000) != 1)
    TAP_FAIL ("no notification within 10 s");
  memset (&req, 0, sizeof req);
  if (ioctl (listener, SECCOMP_IOCTL_NOTIF_RECV, &req) < 0)
    TAP_FAIL ("SECCOMP_IOCTL_NOTIF_RECV: %s", strerror (errno));
  CHECK (req.data.nr == SYS_getppid && (pid_t) req.pid == child);
  resp = (struct seccomp_notif_resp){ .id = req.id, .val = 4242, .error = 0, .flags = 0 };
  if (ioctl (listener, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0)
    TAP_FAIL ("SECCOMP_IOCTL_NOTIF_SEND: %s", strerror (errno));
  return 0;
}

/* NOTIFY (with TSYNC, which needs TSYNC_ESRCH beside NEW_LISTENER): the child's listener reaches
   the parent over a socketpair, and the parent answers the child's getppid.  */
static void
notify_child (const struct seccomp_prog *p, int sock)
{
  ar_error_t err = NULL;
  int listener = -1;

  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || seccomp_prog_install (p, &listener, &err) < 0)
    _exit (100);
  if (listener < 0 || ar_send_fd (sock, listener, "L", 1, "the listener", &err) < 0)
    _exit (101);
  close (listener);
  _exit (child_getppid_answered ());
}

static int
test_notify (void)
{
  struct seccomp_prog prog = { 0 };
  cleanup_close int listener = -1;
  int sv[2] = { -1, -1 };
  char buf[4];
  size_t len = 0;
  pid_t pid;
  int ret;

  if (compile_sq (ALLOW_BUT ("{ 'names': ['getppid'], 'action': 'SCMP_ACT_NOTIFY' }"), &prog) < 0)
    return -1;
  prog.flags |= SECCOMP_FILTER_FLAG_TSYNC;
  if (!prog.notify || socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
    {
      seccomp_prog_release (&prog);
      TAP_FAIL ("notify not set, or socketpair: %s", strerror (errno));
    }
  pid = fork ();
  if (pid == 0)
    notify_child (&prog, sv[1]);
  seccomp_prog_release (&prog);
  close (sv[1]);
  listener = pid > 0 ? recv_fd (sv[0], buf, sizeof buf, &len) : -1;
  close (sv[0]);
  if (pid < 0)
    return -1;
  ret = listener >= 0 ? answer_getppid (listener, pid) : -1;
  if (ret < 0)
    kill (pid, SIGKILL);
  return wait_ok (pid) < 0 ? -1 : ret;
}

static char sock_dir[] = "/tmp/agentrt-seccomp-XXXXXX";

static const char state_json[]
    = "{\"ociVersion\":\"1.2.0\",\"id\":\"c1\",\"status\":\"creating\",\"pid\":4422,"
      "\"bundle\":\"/b\",\"annotations\":{\"k\":\"v\"}}";

static int
listen_at (const char *path)
{
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  int sock = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

  snprintf (addr.sun_path, sizeof addr.sun_path, "%s", path);
  unlink (path);
  if (sock < 0 || bind (sock, (struct sockaddr *) &addr, sizeof addr) < 0 || listen (sock, 4) < 0)
    {
      if (sock >= 0)
        close (sock);
      return -1;
    }
  return sock;
}

/* Accept the connection already queued on SRV; the fd and the whole text (to EOF).  */
static int
receive_state (int srv, int *fd, char *buf, size_t size)
{
  cleanup_close int conn = accept4 (srv, NULL, NULL, SOCK_CLOEXEC);
  size_t used = 0, len = 0;

  if (conn < 0)
    return -1;
  *fd = recv_fd (conn, buf, size - 1, &len);
  used = len;
  for (ssize_t r; used < size - 1 && (r = read (conn, buf + used, size - 1 - used)) > 0;)
    used += (size_t) r;
  buf[used] = '\0';
  return 0;
}

static int
same_file (int a, int b)
{
  struct stat sa, sb;
  return fstat (a, &sa) == 0 && fstat (b, &sb) == 0 && sa.st_dev == sb.st_dev
         && sa.st_ino == sb.st_ino;
}

/* Send to a listening socket, then check the fd and every field of the message.  */
static int
check_listener_message (const char *metadata)
{
  cleanup_free char *path = xasprintf ("%s/agent.sock", sock_dir);
  struct spec_seccomp s = { .listener_path = path, .listener_metadata = (char *) metadata };
  cleanup_close int srv = listen_at (path);
  cleanup_close int devnull = open ("/dev/null", O_RDONLY | O_CLOEXEC);
  cleanup_close int got = -1;
  cleanup_jnode struct ar_jnode *root = NULL;
  const struct ar_jnode *fds, *st;
  ar_error_t err = NULL;
  char buf[4096];

  CHECK (srv >= 0 && devnull >= 0);
  if (seccomp_oci_send_listener (&s, devnull, state_json, &err) < 0)
    {
      print_error ("send", &err);
      return -1;
    }
  CHECK (receive_state (srv, &got, buf, sizeof buf) == 0);
  CHECK (got >= 0 && same_file (got, devnull));
  if (ar_jparse (buf, "message", &root, &err) < 0)
    {
      print_error (buf, &err);
      return -1;
    }
  CHECK_STR (ar_jstr (ar_jget (root, "ociVersion")), "1.2.0");
  fds = ar_jget (root, "fds");
  CHECK (fds && ar_jtype (fds) == AR_J_ARRAY && ar_jlen (fds) == 1);
  CHECK_STR (ar_jstr (ar_jat (fds, 0)), "seccompFd");
  CHECK_STR (ar_jnum_text (ar_jget (root, "pid")), "4422");
  if (metadata && *metadata)
    CHECK_STR (ar_jstr (ar_jget (root, "metadata")), metadata);
  else
    CHECK (ar_jget (root, "metadata") == NULL);
  st = ar_jget (root, "state");
  CHECK (st && ar_jtype (st) == AR_J_OBJECT);
  CHECK_STR (ar_jstr (ar_jget (st, "id")), "c1");
  CHECK_STR (ar_jstr (ar_jget (st, "status")), "creating");
  CHECK_STR (ar_jstr (ar_jget (ar_jget (st, "annotations"), "k")), "v");
  CHECK (ar_jlen (root) == (metadata && *metadata ? 5 : 4));
  return 0;
}

static int
test_send_listener (void)
{
  if (check_listener_message ("MKNOD=/dev/null;\"quoted\"") < 0)
    return -1;
  if (check_listener_message (NULL) < 0)
    return -1;
  return check_listener_message ("");
}

static int
check_send_error (const struct spec_seccomp *s, const char *state, const char *msg)
{
  ar_error_t err = NULL;
  cleanup_free char *text = NULL;

  if (seccomp_oci_send_listener (s, 0, state, &err) == 0)
    TAP_FAIL ("sent, expected: %s", msg);
  text = ar_error_text (err);
  ar_error_release (&err);
  if (strcmp (text, msg) != 0)
    TAP_FAIL ("got \"%s\", expected \"%s\"", text, msg);
  return 0;
}

static int
test_send_listener_errors (void)
{
  cleanup_free char *path = xasprintf ("%s/nobody.sock", sock_dir);
  cleanup_free char *no_conn
      = xasprintf ("connect to linux.seccomp.listenerPath `%s`: No such file "
                   "or directory",
                   path);
  cleanup_free char *no_pid = xasprintf ("linux.seccomp.listenerPath `%s`: the container state has "
                                         "no valid pid: Invalid argument",
                                         path);
  struct spec_seccomp s = { .listener_path = path };
  struct spec_seccomp unset = { 0 };

  if (check_send_error (&s, state_json, no_conn) < 0)
    return -1;
  if (check_send_error (&s, "{\"id\":\"c1\"}", no_pid) < 0)
    return -1;
  return check_send_error (&unset, state_json,
                           "linux.seccomp.listenerPath is not set: Invalid argument");
}

int
main (void)
{
  if (mkdtemp (sock_dir) == NULL)
    return 1;
  RUN_TEST (test_errno_ret);
  RUN_TEST (test_default_errno_is_eperm);
  RUN_TEST (test_arg_equal);
  RUN_TEST (test_arg_masked_eq);
  RUN_TEST (test_args_are_anded);
  RUN_TEST (test_same_arg_twice_is_ored);
  RUN_TEST (test_unknown_syscall_skipped);
  RUN_TEST (test_many_rules);
  RUN_TEST (test_bad_rules_name_the_syscall);
  RUN_TEST (test_flags);
  RUN_TEST (test_notify);
  RUN_TEST (test_send_listener);
  RUN_TEST (test_send_listener_errors);
  {
    cleanup_free char *p = xasprintf ("%s/agent.sock", sock_dir);
    unlink (p);
    rmdir (sock_dir);
  }
  TAP_END ();
}
