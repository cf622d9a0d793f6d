# zsh -f tests/lib/zsh_complete.zsh FPATH_DIR PATH_DIR "LINE": what zsh's completion offers for
# LINE, one a line, as an interactive zsh computes it: a zsh in a pty (zpty) with compinit and
# FPATH_DIR first in fpath, whose compadd also prints each match it adds; LINE is typed with a
# tab, and the matches are read until the pty has been quiet for 2 s.
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "PROMPT= ; RPROMPT= ; PATH=$2:\$PATH; fpath=($1 \$fpath); autoload -U compinit; compinit -u -D"
zpty -w z 'compadd () {
  if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return $?; fi
  typeset -a __hits
  builtin compadd -A __hits "$@"
  local h; for h in $__hits; do print -r -- "HIT:$h"; done
}'
zpty -w z "zstyle ':completion:*' list-grouped false; zstyle ':completion:*' insert-tab false"
zpty -w z "bindkey '^I' complete-word; print READY"
zpty -r z line '*READY*'
zpty -r z line '*READY*'
zpty -n -w z "$3"$'\t'
local out= chunk
integer idle=0
while (( idle < 20 )); do
  if zpty -r -t z chunk; then out+=$chunk; idle=0; else sleep 0.1; (( idle++ )); fi
done
zpty -d z
local l
for l in ${(f)out}; do
  [[ $l == *HIT:* ]] && print -r -- "${${l#*HIT:}%%$'\r'*}"
done | sort -u
