/* The upstream client (dns_upstream.h).  Each query has a fresh random id and a socket of its
   own, connected to the server: the kernel delivers only that server's datagrams, from the
   port it was asked on, and the id and question must match besides.  */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "dns/dns_upstream.h"
#include "utils.h"

static int
add_server (struct dns_upstream *u, const char *addr, const char *what, ar_error_t *err)
{
  struct addrinfo hints
      = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV, .ai_socktype = SOCK_DGRAM };
  struct addrinfo *res = NULL;

  if (u->n == DNS_UPSTREAM_SERVERS_MAX)
    return 0;
  if (getaddrinfo (addr, "53", &hints, &res) != 0 || res->ai_addrlen > sizeof u->servers[0])
    {
      if (res)
        freeaddrinfo (res);
      return ar_make_error (err, EINVAL, "%s: nameserver `%s` is not an IP address", what, addr);
    }
  memcpy (&u->servers[u->n], res->ai_addr, res->ai_addrlen);
  u->lens[u->n++] = res->ai_addrlen;
  freeaddrinfo (res);
  return 0;
}

/* `name:N` of an options line into *out, capped at `max` (and at least 1).  */
static void
option_value (const char *word, const char *name, unsigned max, unsigned *out)
{
  size_t n = strlen (name);
  long long v;

  if (strncmp (word, name, n) == 0 && word[n] == ':'
      && ar_parse_int64 (word + n + 1, 0, INT32_MAX, &v))
    *out = v < 1 ? 1 : v > max ? max : (unsigned) v;
}

static int
parse_line (struct dns_upstream *u, char *line, unsigned *timeout, const char *what,
            ar_error_t *err)
{
  char *save = NULL;
  char *key = strtok_r (line, " \t\r", &save);
  char *word;

  if (key == NULL || key[0] == '#' || key[0] == ';')
    return 0;
  if (strcmp (key, "nameserver") == 0)
    {
      word = strtok_r (NULL, " \t\r", &save);
      return word ? add_server (u, word, what, err) : 0;
    }
  if (strcmp (key, "options") == 0)
    while ((word = strtok_r (NULL, " \t\r", &save)))
      {
        option_value (word, "timeout", DNS_UPSTREAM_TIMEOUT_MAX, timeout);
        option_value (word, "attempts", DNS_UPSTREAM_ATTEMPTS_MAX, &u->attempts);
      }
  return 0;
}

int
dns_upstream_parse (const char *text, const char *what, struct dns_upstream *u, ar_error_t *err)
{
  cleanup_free char *copy = xstrdup (text);
  unsigned timeout = DNS_UPSTREAM_TIMEOUT;
  char *save = NULL;

  memset (u, 0, sizeof *u);
  u->attempts = DNS_UPSTREAM_ATTEMPTS;
  for (char *line = strtok_r (copy, "\n", &save); line; line = strtok_r (NULL, "\n", &save))
    if (parse_line (u, line, &timeout, what, err) < 0)
      return -1;
  if (u->n == 0 && add_server (u, "127.0.0.1", what, err) < 0)
    return -1;
  u->timeout_ms = timeout * 1000;
  return 0;
}

int
dns_upstream_load (const char *path, struct dns_upstream *u, ar_error_t *err)
{
  cleanup_free char *text = NULL;

  if (ar_read_file (path, 1 << 16, &text, NULL, err) < 0)
    return -1;
  return dns_upstream_parse (text, path, u, err);
}

int
dns_upstream_add (struct dns_upstream *u, const char *server, const char *what, ar_error_t *err)
{
  cleanup_free char *host = NULL;
  const char *port = "53";
  const char *colon = strrchr (server, ':');
  struct addrinfo hints
      = { .ai_flags = AI_NUMERICHOST | AI_NUMERICSERV, .ai_socktype = SOCK_DGRAM };
  struct addrinfo *res = NULL;
  long long v;

  if (server[0] == '[')
    {
      const char *close = strchr (server, ']');
      if (close == NULL || (close[1] != '\0' && close[1] != ':'))
        return ar_make_error (err, EINVAL, "%s: `%s`: expected ADDR, ADDR:PORT or [V6]:PORT", what,
                              server);
      host = xstrndup (server + 1, (size_t) (close - server - 1));
      if (close[1] == ':')
        port = close + 2;
    }
  else if (colon && strchr (server, ':') == colon)
    {
      host = xstrndup (server, (size_t) (colon - server));
      port = colon + 1;
    }
  else
    host = xstrdup (server);
  if (!ar_parse_int64 (port, 1, 65535, &v))
    return ar_make_error (err, EINVAL, "%s: `%s`: the port must be 1 to 65535", what, server);
  if (u->n == DNS_UPSTREAM_SERVERS_MAX)
    return ar_make_error (err, E2BIG, "%s: `%s`: %d servers at most", what, server,
                          DNS_UPSTREAM_SERVERS_MAX);
  if (getaddrinfo (host, port, &hints, &res) != 0 || res->ai_addrlen > sizeof u->servers[0])
    {
      if (res)
        freeaddrinfo (res);
      return ar_make_error (err, EINVAL, "%s: `%s` is not an IP address", what, host);
    }
  memcpy (&u->servers[u->n], res->ai_addr, res->ai_addrlen);
  u->lens[u->n++] = res->ai_addrlen;
  freeaddrinfo (res);
  if (u->timeout_ms == 0)
    u->timeout_ms = DNS_UPSTREAM_TIMEOUT * 1000;
  if (u->attempts == 0)
    u->attempts = DNS_UPSTREAM_ATTEMPTS;
  return 0;
}

int
dns_upstream_init_server (struct dns_upstream *u, const struct sockaddr *sa, socklen_t len,
                          ar_error_t *err)
{
  memset (u, 0, sizeof *u);
  if ((sa->sa_family != AF_INET && sa->sa_family != AF_INET6) || len > sizeof u->servers[0])
    return ar_make_error (err, EAFNOSUPPORT, "DNS upstream: not an IP address");
  memcpy (&u->servers[0], sa, len);
  u->lens[0] = len;
  u->n = 1;
  u->timeout_ms = DNS_UPSTREAM_TIMEOUT * 1000;
  u->attempts = DNS_UPSTREAM_ATTEMPTS;
  return 0;
}

static void
server_text (const struct dns_upstream *u, size_t i, char *buf, size_t len)
{
  const struct sockaddr_storage *ss = &u->servers[i];
  char addr[INET6_ADDRSTRLEN] = "?";

  if (ss->ss_family == AF_INET)
    {
      const struct sockaddr_in *in = (const void *) ss;
      inet_ntop (AF_INET, &in->sin_addr, addr, sizeof addr);
      snprintf (buf, len, "%s:%u", addr, (unsigned) ntohs (in->sin_port));
      return;
    }
  inet_ntop (AF_INET6, &((const struct sockaddr_in6 *) ss)->sin6_addr, addr, sizeof addr);
  snprintf (buf, len, "[%s]:%u", addr,
            (unsigned) ntohs (((const struct sockaddr_in6 *) ss)->sin6_port));
}

/* Wait for `events` on fd until the deadline: 0, or -ETIMEDOUT / -errno.  */
static int
wait_fd (int fd, short events, int64_t deadline)
{
  for (;;)
    {
      struct pollfd p = { .fd = fd, .events = events };
      int64_t left = deadline - ar_monotonic_ms ();
      int r;
      if (left <= 0)
        return -ETIMEDOUT;
      r = poll (&p, 1, (int) left);
      if (r > 0)
        return 0;
      if (r < 0 && errno != EINTR)
        return -errno;
    }
}

/* One exchange: the query sent, then a response to *it* awaited until the deadline.  */
struct exchange
{
  const struct dns_upstream *u;
  size_t server;
  uint8_t query[DNS_NAME_WIRE_MAX + 64];
  size_t query_len;
  struct dns_query sent;
  int64_t deadline;
};

static int
open_connected (const struct exchange *x, int type, ar_error_t *err)
{
  const struct sockaddr_storage *ss = &x->u->servers[x->server];
  int fd = socket (ss->ss_family, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

  if (fd < 0)
    return ar_make_error (err, errno, "socket");
  if (connect (fd, (const struct sockaddr *) ss, x->u->lens[x->server]) < 0 && errno != EINPROGRESS)
    {
      int e = errno;
      close (fd);
      return ar_make_error (err, e, "connect");
    }
  return fd;
}

static int
ask_udp (const struct exchange *x, struct dns_result *r, ar_error_t *err)
{
  uint8_t buf[DNS_UDP_MAX];
  cleanup_close int fd = open_connected (x, SOCK_DGRAM, err);

  if (fd < 0)
    return -1;
  if (send (fd, x->query, x->query_len, 0) < 0)
    return ar_make_error (err, errno, "send");
  for (;;)
    {
      ar_error_t ignored = NULL;
      ssize_t n;
      int w = wait_fd (fd, POLLIN, x->deadline);
      if (w < 0)
        return ar_make_error (err, -w, "no answer");
      n = recv (fd, buf, sizeof buf, 0);
      if (n < 0 && (errno == EAGAIN || errno == EINTR))
        continue;
      if (n < 0)
        return ar_make_error (err, errno, "recv");
      /* Not the answer to this query (a forger's guess, a late answer to an earlier one): the
         real one may still come.  */
      if (dns_msg_parse_response (buf, (size_t) n, &x->sent, r, &ignored) == 0)
        return 0;
      ar_error_release (&ignored);
    }
}

/* All of buf over a non-blocking stream, before the deadline.  */
static int
send_all (int fd, const uint8_t *buf, size_t len, int64_t deadline, ar_error_t *err)
{
  while (len > 0)
    {
      ssize_t n = send (fd, buf, len, MSG_NOSIGNAL);
      int w;
      if (n > 0)
        {
          buf += n;
          len -= (size_t) n;
          continue;
        }
      if (n < 0 && errno != EAGAIN && errno != EINTR)
        return ar_make_error (err, errno, "send");
      w = wait_fd (fd, POLLOUT, deadline);
      if (w < 0)
        return ar_make_error (err, -w, "send");
    }
  return 0;
}

static int
recv_all (int fd, uint8_t *buf, size_t len, int64_t deadline, ar_error_t *err)
{
  while (len > 0)
    {
      ssize_t n = recv (fd, buf, len, 0);
      int w;
      if (n > 0)
        {
          buf += n;
          len -= (size_t) n;
          continue;
        }
      if (n == 0)
        return ar_make_error (err, ECONNRESET, "the server closed the connection");
      if (errno != EAGAIN && errno != EINTR)
        return ar_make_error (err, errno, "recv");
      w = wait_fd (fd, POLLIN, deadline);
      if (w < 0)
        return ar_make_error (err, -w, "no answer");
    }
  return 0;
}

static int
ask_tcp (const struct exchange *x, struct dns_result *r, ar_error_t *err)
{
  uint8_t query[sizeof x->query + 2], len[2];
  cleanup_free uint8_t *msg = NULL;
  cleanup_close int fd = open_connected (x, SOCK_STREAM, err);
  size_t n;

  if (fd < 0)
    return -1;
  dns_msg_tcp_prefix (query, x->query_len);
  memcpy (query + 2, x->query, x->query_len);
  if (send_all (fd, query, x->query_len + 2, x->deadline, err) < 0
      || recv_all (fd, len, 2, x->deadline, err) < 0)
    return -1;
  n = (size_t) len[0] << 8 | len[1];
  msg = xmalloc (n ? n : 1);
  if (recv_all (fd, msg, n, x->deadline, err) < 0)
    return -1;
  return dns_msg_parse_response (msg, n, &x->sent, r, err);
}

/* One server, once: UDP, then TCP if truncated.  0 with an answer of NOERROR or NXDOMAIN.  */
static int
ask_server (const struct dns_upstream *u, size_t server, const char *name, uint16_t qtype,
            struct dns_result *r, ar_error_t *err)
{
  struct exchange x = { .u = u, .server = server };
  uint16_t id;
  int len;

  if (getrandom (&id, sizeof id, 0) != sizeof id)
    return ar_make_error (err, errno, "getrandom");
  len = dns_msg_build_query (id, name, qtype, x.query, sizeof x.query, &x.sent, err);
  if (len < 0)
    return -1;
  x.query_len = (size_t) len;
  x.deadline = ar_monotonic_ms () + u->timeout_ms;
  if (ask_udp (&x, r, err) < 0)
    return -1;
  if (r->truncated)
    {
      x.deadline = ar_monotonic_ms () + u->timeout_ms;
      if (ask_tcp (&x, r, err) < 0)
        return ar_error_wrap (err, "over TCP");
      if (r->truncated)
        return ar_make_error (err, EBADMSG, "truncated over TCP");
    }
  if (r->rcode != DNS_NOERROR && r->rcode != DNS_NXDOMAIN)
    return ar_make_error (err, EHOSTUNREACH, "answered rcode %d", r->rcode);
  return 0;
}

/* Every server, for every attempt, until one answers.  */
static int
ask_any (const struct dns_upstream *u, const char *name, uint16_t qtype, struct dns_result *r,
         ar_error_t *err)
{
  ar_error_t last = NULL;
  char server[INET6_ADDRSTRLEN + 16];

  for (unsigned a = 0; a < u->attempts; a++)
    for (size_t s = 0; s < u->n; s++)
      {
        ar_error_release (&last);
        if (ask_server (u, s, name, qtype, r, &last) == 0)
          return 0;
        server_text (u, s, server, sizeof server);
        ar_error_wrap (&last, "%s", server);
      }
  if (last == NULL)
    return ar_make_error (err, EINVAL, "resolve `%s`: no nameserver", name);
  *err = last;
  return ar_error_wrap (err, "resolve `%s`", name);
}

/* Append the answer for the chain's last name (tail) to r.  */
static void
merge_tail (struct dns_result *r, const struct dns_result *tail)
{
  for (size_t i = 1; i < tail->n_chain && r->n_chain <= DNS_CHAIN_MAX; i++)
    {
      r->chain_ttl[r->n_chain - 1] = tail->chain_ttl[i - 1];
      r->chain[r->n_chain++] = tail->chain[i];
    }
  r->rcode = tail->rcode;
  r->n_addrs = tail->n_addrs;
  r->dropped = tail->dropped;
  memcpy (r->addrs, tail->addrs, tail->n_addrs * sizeof *tail->addrs);
  r->ttl = 0;
  if (r->n_addrs == 0)
    return;
  r->ttl = tail->ttl;
  for (size_t i = 0; i + 1 < r->n_chain; i++)
    if (r->chain_ttl[i] < r->ttl)
      r->ttl = r->chain_ttl[i];
}

int
dns_upstream_resolve (const struct dns_upstream *u, const char *name, uint16_t qtype,
                      struct dns_result *r, ar_error_t *err)
{
  cleanup_free struct dns_result *tail = NULL;

  if (ask_any (u, name, qtype, r, err) < 0)
    return -1;
  for (int i = 0; i < DNS_UPSTREAM_FOLLOW_MAX && r->rcode == DNS_NOERROR && r->n_addrs == 0
                  && r->n_chain > 1 && r->n_chain <= DNS_CHAIN_MAX;
       i++)
    {
      char last[DNS_NAME_TEXT_MAX + 1];
      if (!dns_name_text (&r->chain[r->n_chain - 1], last))
        break;
      if (tail == NULL)
        tail = xmalloc (sizeof *tail);
      if (ask_any (u, last, qtype, tail, err) < 0)
        return -1;
      merge_tail (r, tail);
    }
  return 0;
}
