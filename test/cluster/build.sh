#!/usr/bin/env bash
# Builds etcd, kube-apiserver, kube-controller-manager and kube-scheduler from Go modules into a cache folder
# outside the repo, once, and kubectl of the same version, which the end-to-end tests run beside the plugin to
# compare their answers (kubectl rollout status), helm, which runs docs/ci.md's recipes as written, and the real Argo
# Rollouts controller with its CRDs (argo-crds/), which decides a Rollout's steps, pauses and promotion, and k9s, in
# which test/e2e/k9s.test.ts runs the plugin from its plugin file (plugin-manifest/k9s-plugins.yaml). Later runs
# find the binaries there and return at once.
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-1.36.3}"
ETCD_VERSION="${ETCD_VERSION:-3.6.16}"
HELM_VERSION="${HELM_VERSION:-4.3.2}"
# v1.10.2 needs go >= 1.26.10; this machine's Go is 1.26.8
ARGO_ROLLOUTS_VERSION="${ARGO_ROLLOUTS_VERSION:-1.10.1}"
K9S_VERSION="${K9S_VERSION:-0.50.16}"
CACHE="${KUBECTL_HAPTIC_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kubectl-haptic}"
BIN="$CACHE/testbin/v$K8S_VERSION"
export GOFLAGS="${GOFLAGS:--mod=mod}" CGO_ENABLED=0

want=(etcd kube-apiserver kube-controller-manager kube-scheduler kubectl helm rollouts-controller k9s)
missing=0
for b in "${want[@]}"; do [ -x "$BIN/$b" ] || missing=1; done
[ -f "$BIN/argo-crds/rollout-crd.yaml" ] || missing=1
if [ "$missing" = 0 ]; then echo "$BIN"; exit 0; fi

command -v go >/dev/null || { echo "build.sh: Go is needed to build the test control plane (apt-get install golang or use /usr/local/go)" >&2; exit 3; }
mkdir -p "$BIN"
log() { echo "[cluster build] $*" >&2; }

if [ ! -x "$BIN/etcd" ]; then
  log "building etcd v$ETCD_VERSION from Go modules (first run only)..."
  work="$CACHE/build/etcd"; rm -rf "$work"; mkdir -p "$work"
  (cd "$work" && go mod init etcdtools >/dev/null 2>&1 && go get "go.etcd.io/etcd/server/v3@v$ETCD_VERSION" >&2 \
    && go build -trimpath -ldflags "-s -w" -o "$BIN/etcd.tmp" go.etcd.io/etcd/server/v3 && mv "$BIN/etcd.tmp" "$BIN/etcd")
fi

if [ ! -x "$BIN/helm" ]; then
  log "building helm v$HELM_VERSION from Go modules (first run only)..."
  rm -rf "$BIN/.helm"
  GOFLAGS= GOBIN="$BIN/.helm" go install -trimpath -ldflags "-s -w" "helm.sh/helm/v4/cmd/helm@v$HELM_VERSION" >&2 \
    && mv "$BIN/.helm/helm" "$BIN/helm" && rmdir "$BIN/.helm"
fi

if [ ! -x "$BIN/k9s" ]; then
  log "building k9s v$K9S_VERSION from Go modules (first run only)..."
  rm -rf "$BIN/.k9s"
  GOFLAGS= GOBIN="$BIN/.k9s" go install -trimpath -ldflags "-s -w" "github.com/derailed/k9s@v$K9S_VERSION" >&2 \
    && mv "$BIN/.k9s/k9s" "$BIN/k9s" && rmdir "$BIN/.k9s"
fi

if [ ! -x "$BIN/rollouts-controller" ] || [ ! -f "$BIN/argo-crds/rollout-crd.yaml" ]; then
  log "building the Argo Rollouts controller v$ARGO_ROLLOUTS_VERSION from Go modules (first run only, ~10 minutes)..."
  work="$CACHE/build/argo-rollouts"; rm -rf "$work"; mkdir -p "$work"
  (
    cd "$work"
    go mod init argotools >/dev/null 2>&1
    mod="github.com/argoproj/argo-rollouts"
    GOMOD=$(go mod download -json "$mod@v$ARGO_ROLLOUTS_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')
    DIR=$(go mod download -json "$mod@v$ARGO_ROLLOUTS_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')
    [ -f "$GOMOD" ] && [ -d "$DIR" ] || { echo "build.sh: could not download $mod@v$ARGO_ROLLOUTS_VERSION" >&2; exit 4; }
    # a module's replace lines hold only in its own build: the wrapper copies them (k8s.io/* pinned to its versions)
    sed -n 's|^[[:space:]]*\([^[:space:]/]*\.[^[:space:]]*\)[[:space:]]*=>[[:space:]]*\([^[:space:]]*\)[[:space:]]\{1,\}\(v[^[:space:]]*\)$|\1=\2@\3|p' "$GOMOD" \
      | while read -r r; do go mod edit "-replace=$r"; done
    go mod edit "-require=$mod@v$ARGO_ROLLOUTS_VERSION"
    printf '//go:build tools\n\npackage tools\n\nimport _ "%s/cmd/rollouts-controller"\n' "$mod" > tools.go
    go mod tidy >&2
    go build -trimpath -ldflags "-s -w" -o "$BIN/rollouts-controller.tmp" "$mod/cmd/rollouts-controller"
    mkdir -p "$BIN/argo-crds.tmp" && cp "$DIR"/manifests/crds/*.yaml "$BIN/argo-crds.tmp/" && chmod u+w "$BIN"/argo-crds.tmp/*
    rm -rf "$BIN/argo-crds" && mv "$BIN/argo-crds.tmp" "$BIN/argo-crds" && mv "$BIN/rollouts-controller.tmp" "$BIN/rollouts-controller"
  )
fi

k8s=()
for c in kube-apiserver kube-controller-manager kube-scheduler kubectl; do [ -x "$BIN/$c" ] || k8s+=("$c"); done
if [ "${#k8s[@]}" -gt 0 ]; then
  log "building Kubernetes v$K8S_VERSION (${k8s[*]}) from Go modules;"
  log "the first build takes 10-25 minutes on 2 cores, later runs reuse $BIN"
  STAGING="0.${K8S_VERSION#*.}"
  work="$CACHE/build/k8s-$K8S_VERSION"; rm -rf "$work"; mkdir -p "$work"
  cd "$work"
  go mod init k8stools >/dev/null 2>&1
  GOMOD=$(go mod download -json "k8s.io/kubernetes@v$K8S_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')
  [ -f "$GOMOD" ] || { echo "build.sh: could not download k8s.io/kubernetes@v$K8S_VERSION's go.mod" >&2; exit 4; }
  for m in $(sed -n 's|^[[:space:]]*\(k8s\.io/[^[:space:]]*\) => \./staging/src/.*|\1|p' "$GOMOD"); do
    go mod edit "-replace=$m=$m@v$STAGING"
  done
  go mod edit "-require=k8s.io/kubernetes@v$K8S_VERSION"
  cat > tools.go <<'GO'
//go:build tools

package tools

import (
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kube-controller-manager"
	_ "k8s.io/kubernetes/cmd/kube-scheduler"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
GO
  go mod tidy >&2
  ldflags="-s -w -X k8s.io/component-base/version.gitVersion=v$K8S_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=${STAGING#0.}"
  for c in "${k8s[@]}"; do
    log "compiling $c..."
    go build -trimpath -ldflags "$ldflags" -o "$BIN/$c.tmp" "k8s.io/kubernetes/cmd/$c" && mv "$BIN/$c.tmp" "$BIN/$c"
  done
fi
log "binaries ready in $BIN"
echo "$BIN"
