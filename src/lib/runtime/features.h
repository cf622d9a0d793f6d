/* The OCI features document (runtime-spec features.md) that `agentrt features` prints, and the
   +FEATURE list of `--version`: both from one table of what this build really applies.  */
#ifndef AGENTRT_FEATURES_H
#define AGENTRT_FEATURES_H

char *features_json (void);
/* "+SECCOMP +CAP +YAJL …": what is compiled in and working.  */
char *features_version_tags (void);
/* "2.5.4": the libseccomp this binary runs with.  */
char *features_libseccomp_version (void);

#endif
