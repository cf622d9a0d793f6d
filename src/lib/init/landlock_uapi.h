/* The part of <linux/landlock.h> agentrt uses, written out here: Debian 12's linux-libc-dev
   (6.1) stops at ABI 2, and these are what ABI 4 (TCP ports), 6 (scopes) and 7 (audit flags)
   added.  Values from the kernel's include/uapi/linux/landlock.h, described in
   Documentation/userspace-api/landlock.rst ("Backward and forward compatibility" lists what
   each ABI adds).  The syscall numbers are the same on every architecture.  */
#ifndef AGENTRT_LANDLOCK_UAPI_H
#define AGENTRT_LANDLOCK_UAPI_H

#include <stdint.h>

#define AR_NR_landlock_create_ruleset 444
#define AR_NR_landlock_add_rule 445
#define AR_NR_landlock_restrict_self 446

/* landlock_create_ruleset (NULL, 0, this) returns the ABI version.  */
#define AR_LANDLOCK_CREATE_RULESET_VERSION (1U << 0)

/* Its size grew with the ABI: 8 bytes up to 3, 16 from 4, 24 from 6.  A kernel takes a larger
   struct as long as the fields it does not know are zero.  */
struct ar_landlock_ruleset_attr
{
  uint64_t handled_access_fs;
  uint64_t handled_access_net; /* ABI 4 */
  uint64_t scoped;             /* ABI 6 */
};

/* ABI 1: the one filesystem right the ptrace wall handles (landlock.h), and the rule that
   gives it back beneath the container's root.  */
#define AR_LANDLOCK_ACCESS_FS_MAKE_BLOCK (1ULL << 11)
#define AR_LANDLOCK_RULE_PATH_BENEATH 1

struct ar_landlock_path_beneath_attr
{
  uint64_t allowed_access;
  int32_t parent_fd;
} __attribute__ ((packed));

/* ABI 4.  */
#define AR_LANDLOCK_ACCESS_NET_BIND_TCP (1ULL << 0)
#define AR_LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)

/* ABI 6: refused towards what lies outside the caller's domain (and its nested ones).  */
#define AR_LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define AR_LANDLOCK_SCOPE_SIGNAL (1ULL << 1)

/* ABI 7: landlock_restrict_self flags, for the kernel's audit records of denials.  */
#define AR_LANDLOCK_RESTRICT_SELF_LOG_SAME_EXEC_OFF (1U << 0)
#define AR_LANDLOCK_RESTRICT_SELF_LOG_NEW_EXEC_ON (1U << 1)
#define AR_LANDLOCK_RESTRICT_SELF_LOG_SUBDOMAINS_OFF (1U << 2)

#endif
