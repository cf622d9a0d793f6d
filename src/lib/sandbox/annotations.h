/* The io.agentrt.* annotation keys agentrt knows, and who may ask for what through them.

   config.json is untrusted, annotations included: an engine copies a pod's annotations into it
   (contrib/kubernetes), so whoever may create a pod writes them.  A key is the pod's when every
   value of it only tightens the sandbox or changes nothing outside the container.  Some values
   of some keys name a host path, turn the supervisor off or loosen the policy: those are the
   operator's (agentrt's flags, agentrt.conf, operator.h) and fail create when config.json asks
   for them, unless the operator lists the key in agentrt.conf's pod_annotations.  Every other
   io.agentrt.* key (a typo) fails create too, and so do the keys agentrt itself writes into
   `state`: a copy in config.json would stand beside the real one and contradict it.

     key                        the operator's                      the pod's
     io.agentrt.platform        none                                seccomp, ptrace
     io.agentrt.audit           every value (a path on the host)    -
     io.agentrt.policy          default, under the agent profile    strict; default without it
     io.agentrt.policy.ptrace   allow                               deny
     io.agentrt.ephemeral       false, under the agent profile      true; false without it
     io.agentrt.net.allow       an address of the host itself       any other endpoint
                                (sandbox.c, after names resolve)
     io.agentrt.net.allow.containers                                every value (which of a
                                                                    pod's containers the list
                                                                    isolates: sandbox.c)
     io.agentrt.uname.release, timeout, disk, canary, profile       every value
     io.agentrt.audit.alerts, io.agentrt.stop.reason               written by agentrt: refused  */
#ifndef AGENTRT_ANNOTATIONS_H
#define AGENTRT_ANNOTATIONS_H

#include <stdbool.h>

#define ANNOTATION_PREFIX "io.agentrt."
/* The systemd driver's unit properties (sandbox_check_systemd_properties): one entry of
   pod_annotations for the whole family.  */
#define ANNOTATION_SYSTEMD_PROPERTIES "org.systemd.property.*"

struct annotation_key
{
  const char *key;
  /* Some values are the operator's: the key may be listed in pod_annotations.  */
  bool has_operator_values;
  /* Is `value` (with or without the agent profile) the operator's?  NULL: decided elsewhere
     (net.allow), or no value is.  */
  bool (*operators) (const char *value, bool agent);
  /* For the error: what such a value does ("turns the supervisor off"), the flag that asks for
     it instead (or NULL), and whether the value is worth showing (not a path).  */
  const char *what;
  const char *flag;
  bool show_value;
  bool output; /* written by agentrt into `state`, never read from config.json */
};

/* Does `key` claim agentrt's namespace (io.agentrt., in any case)?  */
bool annotation_is_ours (const char *key);
/* The entry of `key` (exact), or NULL.  */
const struct annotation_key *annotation_lookup (const char *key);
/* "io.agentrt.audit, io.agentrt.ephemeral, …": the keys pod_annotations may list (caller
   frees).  */
char *annotation_operator_keys (void);

#endif
