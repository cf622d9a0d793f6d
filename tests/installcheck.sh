#!/bin/sh
# `make installcheck`: what `make install` put in place works from the installed files alone.
# Run by make with the installed directories in the environment (bindir, mandir, pkgdatadir,
# bashcompletiondir, zshcompletiondir, fishcompletiondir) and the commit this tree was built
# from (commit).
set -u
failed=0
fail () {
  echo "installcheck: $*" >&2
  failed=1
}

v=$("$bindir/agentrt" --version) || fail "$bindir/agentrt --version failed"
echo "$v" | grep -qx "commit: $commit" || fail "--version shows $(echo "$v" | sed -n 2p), not commit: $commit"

for page in agentrt agentrt-run agentrt-policy agentrt.conf agentrt-annotations; do
  p=$(MANPATH=$mandir man -w "$page" 2>/dev/null) || p=
  case "$p" in
    "$mandir"/*) ;;
    *) fail "man -w $page finds \`$p\`, not a page under $mandir" ;;
  esac
done

bash -c '. "$1" && complete -p agentrt' sh "$bashcompletiondir/agentrt" >/dev/null \
  || fail "$bashcompletiondir/agentrt registers no completion for agentrt"
head -1 "$zshcompletiondir/_agentrt" | grep -qx '#compdef agentrt' \
  || fail "$zshcompletiondir/_agentrt is not agentrt's zsh completion"
grep -q '^complete -c agentrt ' "$fishcompletiondir/agentrt.fish" \
  || fail "$fishcompletiondir/agentrt.fish is not agentrt's fish completion"

for f in podman/containers.conf kubernetes/containerd-agentrt.toml kubernetes/agentrt.conf \
  kubernetes/runtimeclass.yaml kubernetes/pod-example.yaml kubernetes/README.md; do
  [ -f "$pkgdatadir/$f" ] || fail "$pkgdatadir/$f is missing"
done
grep -qx "agentrt = \[\"$bindir/agentrt\"\]" "$pkgdatadir/podman/containers.conf" \
  || fail "$pkgdatadir/podman/containers.conf does not name $bindir/agentrt"
grep -Eqx " *BinaryName = \"$bindir/agentrt\"" "$pkgdatadir/kubernetes/containerd-agentrt.toml" \
  || fail "$pkgdatadir/kubernetes/containerd-agentrt.toml does not name $bindir/agentrt"
[ $failed -eq 0 ] && echo "installcheck: the installed agentrt, pages, completion and drop-ins are in place"
exit $failed
