/* Capability names and numbers: OCI names ("CAP_CHOWN") to a bit mask, and the highest
   capability the running kernel knows.  Used by creds.c and by `exec --cap`.  Nothing here
   changes the process's capabilities.  */
#ifndef AGENTRT_CAPS_H
#define AGENTRT_CAPS_H

#include <stdint.h>

#include "agentrt/error.h"
#include "spec/spec.h"

/* The highest capability number the kernel knows (/proc/sys/kernel/cap_last_cap, or probed with
   PR_CAPBSET_READ when /proc is not mounted).  */
int caps_last_cap (void);
/* Bits 0..caps_last_cap (): every capability the kernel knows.  */
uint64_t caps_known_mask (void);
/* OR the bits of NAMES into *MASK (which the caller initialises).  A name this program does
   not know fails; a name it knows but the kernel does not is kept, so callers mask with
   caps_known_mask () (runc ignores such names too).  */
int caps_from_names (const struct spec_strv *names, uint64_t *mask, ar_error_t *err);

#endif
