#!/bin/sh
# Prints the kubeconfig the bridge in the hub uses to read one spoke, from the read-only identity that
# manifests/optional/spoke-reader gives it there (docs/fleet.md). Self-contained: the server, the spoke's CA and the
# reader's token, nothing else (no exec, no file paths), so the bridge accepts it.
#   scripts/spoke-kubeconfig.sh <cluster-name> [<kubectl context of the spoke>] [<server URL as the hub reaches it>] > clusters/<cluster-name>
# then, in the hub:
#   kubectl -n flux-system create secret generic github-deployment-bridge-clusters --from-file=clusters/
# The server defaults to the one of the context; give it when the hub reaches the spoke by another address.
set -eu

usage() {
  echo "usage: $0 <cluster-name> [<kubectl context of the spoke>] [<server URL as the hub reaches it>]" >&2
  exit 2
}
[ $# -ge 1 ] && [ $# -le 3 ] || usage
cluster=$1
context=${2:-}
# The file's name is the cluster's name, also a key of the Secret: letters, digits, '-', '_' and '.'.
case $cluster in
  '' | .* | *[!A-Za-z0-9._-]*)
    echo "$0: '$cluster' cannot name a cluster's kubeconfig file (letters, digits, '-', '_', '.'; not starting with '.')" >&2
    exit 2
    ;;
esac

k() {
  if [ -n "$context" ]; then kubectl --context "$context" "$@"; else kubectl "$@"; fi
}

server=${3:-$(k config view --minify -o 'jsonpath={.clusters[0].cluster.server}')}
bad_server() {
  echo "$0: the spoke's server must be an https:// URL without spaces, quotes or '#', got '$server'" >&2
  exit 1
}
case $server in
  https://?*) ;;
  *) bad_server ;;
esac
case $server in
  *[!]A-Za-z0-9.:/_%@[-]*) bad_server ;;
esac

secret='-n github-deployment-bridge get secret github-deployment-bridge-reader-token'
# shellcheck disable=SC2086
token=$(k $secret -o 'jsonpath={.data.token}')
# shellcheck disable=SC2086
ca=$(k $secret -o 'jsonpath={.data.ca\.crt}')
if [ -z "$token" ] || [ -z "$ca" ]; then
  echo "$0: the Secret github-deployment-bridge-reader-token has no token or ca.crt yet: apply manifests/optional/spoke-reader in the spoke and wait for its token controller" >&2
  exit 1
fi

cat <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
  - name: $cluster
    cluster:
      server: $server
      certificate-authority-data: $ca
users:
  - name: github-deployment-bridge-reader
    user:
      token: $(printf '%s' "$token" | base64 -d)
contexts:
  - name: $cluster
    context: { cluster: $cluster, user: github-deployment-bridge-reader }
current-context: $cluster
KUBECONFIG
