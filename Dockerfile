# The cozy-gw container image: the KRM function, for runs without exec permission
#   kpt fn eval DIR --image ghcr.io/cozystack/cozy-gw:VERSION -- publishing.host=example.org
#   kustomize: config.kubernetes.io/function: {container: {image: ghcr.io/cozystack/cozy-gw:VERSION}}
# and the whole CLI with --entrypoint cozy-gw.
#
# Built by GoReleaser (.goreleaser.yaml, dockers_v2) from the release binary: the standalone
# bun executable of the `cozy-gw` build, which GoReleaser places in the build context under
# $TARGETPLATFORM/ (linux/amd64/cozy-gw, linux/arm64/cozy-gw). The binary needs no files beside
# it (charts, schemas and templates are embedded) and glibc, which distroless/cc carries; the
# debug variant adds a busybox shell (/busybox/sh) for the Argo CD plugin's generate command
# (examples/argocd).
FROM gcr.io/distroless/cc-debian12:debug-nonroot
ARG TARGETPLATFORM
COPY $TARGETPLATFORM/cozy-gw /usr/local/bin/cozy-gw
# A KRM function reads a ResourceList on stdin and writes it on stdout; it runs in an empty
# working directory and writes nothing else.
WORKDIR /tmp
USER nonroot
ENTRYPOINT ["/usr/local/bin/cozy-gw", "fn"]
