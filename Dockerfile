# The cozy-gw container image: the KRM function, for runs without exec permission
#   kpt fn eval DIR --image ghcr.io/cozystack/cozy-gw:VERSION -- publishing.host=example.org
#   kustomize: config.kubernetes.io/function: {container: {image: ghcr.io/cozystack/cozy-gw:VERSION}}
# and the whole CLI with --entrypoint cozy-gw.
#
# The npm package, installed on a maintained Node.js line (docs/decisions.md §C13) as users install
# it: `npm install -g` of the package `npm pack` made of the build, which GoReleaser's before hook
# (scripts/pack-image.js) leaves at image/cozy-gw.tgz and dockers_v2's extra_files put in the build
# context. The package needs nothing beside it (its libraries are bundled), and npm links
# /usr/local/bin/cozy-gw. The image's /bin/sh runs the Argo CD plugin's generate command
# (examples/argocd).
FROM node:24-bookworm-slim
COPY image/cozy-gw.tgz /tmp/cozy-gw.tgz
RUN npm install -g --no-audit --no-fund /tmp/cozy-gw.tgz && rm /tmp/cozy-gw.tgz && npm cache clean --force
# A KRM function reads a ResourceList on stdin and writes it on stdout; it runs in an empty
# working directory and writes nothing else.
WORKDIR /tmp
USER node
ENTRYPOINT ["/usr/local/bin/cozy-gw", "fn"]
