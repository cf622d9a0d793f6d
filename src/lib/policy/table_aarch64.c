/* aarch64's table.  arm64 uses the asm-generic syscall list and nothing of its own (no legacy
   open/stat/fork, no I/O ports), so its table is the generic part alone.  */
#include <config.h>

#include <seccomp.h>

#include "policy/table.h"

static const struct sc_entry *const aarch64_parts[] = { sc_generic_entries, NULL };

const struct sc_table sc_table_aarch64 = {
  .arch = "aarch64",
  .scmp_arch = SCMP_ARCH_AARCH64,
  .parts = aarch64_parts,
};
