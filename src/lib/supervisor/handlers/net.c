/* connect and bind: audited with the address, then done by the kernel, which confines them to
   the container's network namespace (loopback only unless the config gives it a network).  The
   egress broker (egress.c) takes connect over here when an allowlist is set.  */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "json.h"
#include "supervisor/sv.h"
#include "utils.h"

static void
inet_json (struct ar_json *j, const struct sockaddr_storage *ss, size_t len)
{
  char addr[INET6_ADDRSTRLEN] = "";

  if (ss->ss_family == AF_INET && len >= sizeof (struct sockaddr_in))
    {
      const struct sockaddr_in *in = (const void *) ss;
      inet_ntop (AF_INET, &in->sin_addr, addr, sizeof addr);
      ar_json_kstr (j, "family", "inet");
      ar_json_kstr (j, "address", addr);
      ar_json_kint (j, "port", ntohs (in->sin_port));
    }
  else if (ss->ss_family == AF_INET6 && len >= sizeof (struct sockaddr_in6))
    {
      const struct sockaddr_in6 *in6 = (const void *) ss;
      inet_ntop (AF_INET6, &in6->sin6_addr, addr, sizeof addr);
      ar_json_kstr (j, "family", "inet6");
      ar_json_kstr (j, "address", addr);
      ar_json_kint (j, "port", ntohs (in6->sin6_port));
    }
}

char *
sv_sockaddr_json (const void *sa, size_t len)
{
  const struct sockaddr_storage *ss = sa;
  struct ar_json *j = ar_json_new (NULL);
  bool cut;

  ar_json_obj_open (j);
  if (len < sizeof ss->ss_family)
    ar_json_kstr (j, "family", "none");
  else if (ss->ss_family == AF_INET || ss->ss_family == AF_INET6)
    inet_json (j, ss, len);
  else if (ss->ss_family == AF_UNIX)
    {
      const struct sockaddr_un *un = sa;
      size_t n = len - offsetof (struct sockaddr_un, sun_path);
      char path[sizeof un->sun_path + 2] = "";
      /* An abstract name starts with a NUL byte: shown with a leading '@', as ss(8) does.  */
      if (n > 0 && un->sun_path[0] == '\0')
        snprintf (path, sizeof path, "@%.*s", (int) (n - 1), un->sun_path + 1);
      else
        snprintf (path, sizeof path, "%.*s", (int) strnlen (un->sun_path, n), un->sun_path);
      ar_json_kstr (j, "family", "unix");
      ar_json_key (j, "path");
      /* 108 bytes at most, but of any kind: capped as every string of a record is.  */
      ar_json_str_max (j, path, AUDIT_STR_MAX, &cut);
    }
  else
    ar_json_kint (j, "family", ss->ss_family);
  ar_json_obj_close (j);
  return ar_json_finish (j, NULL);
}

/* The kernel takes addrlen as an int (the low 32 bits) and refuses more than a
   sockaddr_storage; an address the supervisor cannot read is one the kernel could not either,
   so the call fails as the kernel would fail it, rather than going on unaudited.  */
static void
audit_address (struct sv_call *c, bool connect_call)
{
  struct sockaddr_storage ss;
  int32_t len = (int32_t) (uint32_t) c->req->data.args[2];
  cleanup_free char *addr = NULL;
  cleanup_free char *args = NULL;
  int r;

  if (len < 0 || (size_t) len > sizeof ss)
    {
      sv_reply_error (c, EINVAL);
      return;
    }
  memset (&ss, 0, sizeof ss);
  if (c->sv->net && connect_call)
    r = len ? sv_mem_read (c, c->req->data.args[1], &ss, (size_t) len) : 0;
  else
    {
      /* Only recorded: sv_audit's check vouches for it (and a record over the rate limit needs
         no check at all).  */
      struct iovec local = { &ss, (size_t) len },
                   remote = { (void *) (uintptr_t) c->req->data.args[1], (size_t) len };
      c->unchecked = true;
      r = len && sv_mem_readv_unchecked (c, &local, &remote, 1) != 1 ? -EFAULT : 0;
    }
  if (r < 0)
    {
      sv_reply_error (c, r == -ENOENT ? EINTR : EFAULT);
      sv_audit (c, "deny", EFAULT, NULL);
      return;
    }
  addr = sv_sockaddr_json (&ss, (size_t) len);
  args = xasprintf ("{\"fd\":%d,\"addr\":%s}", (int) c->req->data.args[0], addr);
  /* Connects to different places are not aggregated.  */
  c->subject = addr;
  /* Brokered: the broker acts on this copy of the address, never on the workload's memory.  */
  if (c->sv->net && connect_call)
    {
      sv_egress_connect (c, &ss, (size_t) len, args);
      return;
    }
  sv_reply_continue (c);
  sv_audit (c, "allow", 0, args);
}

void
sv_handle_connect (struct sv_call *c)
{
  audit_address (c, true);
}

void
sv_handle_bind (struct sv_call *c)
{
  audit_address (c, false);
}
