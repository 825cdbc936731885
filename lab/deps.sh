#!/bin/sh
# Installs the Debian packages in lab/packages.txt that are missing, and
# says which installed versions differ from the tested ones. Needs root
# only when something is missing.
set -eu
cd "$(dirname "$0")"
missing=
while read -r pkg ver; do
  case $pkg in ''|'#'*) continue ;; esac
  have=$(dpkg-query -W -f='${Status} ${Version}' "$pkg" 2>/dev/null || true)
  case $have in
    "install ok installed "*)
      [ "${have#install ok installed }" = "$ver" ] || echo "deps: $pkg is ${have#install ok installed } (tested with $ver)" ;;
    *) missing="$missing $pkg" ;;
  esac
done < packages.txt
[ -n "$missing" ] || { echo "deps: all Debian packages present"; exit 0; }
echo "deps: installing$missing"
if [ "$(id -u)" != 0 ]; then
  echo "deps: installing packages needs root: run 'sudo make deps' (or make as root)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "deps: installed$missing"
