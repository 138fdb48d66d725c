#!/bin/sh
# Last layer of every agent image, shared by the registry Dockerfile and the registry-free build: the non-root
# user, the workspace, and the offline manuals library under /opt/manuals.
set -eu

# minbase has no useradd (package passwd is not Essential): write the entries directly.
grep -q '^agent:' /etc/group || echo 'agent:x:1000:' >> /etc/group
grep -q '^agent:' /etc/passwd || echo 'agent:x:1000:1000:cmb agent:/home/agent:/bin/bash' >> /etc/passwd
grep -q '^agent:' /etc/shadow 2>/dev/null || echo 'agent:!:19000:0:99999:7:::' >> /etc/shadow
mkdir -p /home/agent /workspace /opt/manuals
chown 1000:1000 /home/agent /workspace

# /opt/manuals is the offline manuals library (`cmb manuals build`), copied in by the Dockerfile; the same
# library is bound over it read-only where the sandbox backend can bind host folders.
[ -f /opt/manuals/README.txt ] || { echo "finalize.sh: /opt/manuals holds no library (cmb manuals build)" >&2; exit 1; }
chmod -R a+rX,go-w /opt/manuals

# Nothing else is writable at run time (the sandbox mounts the root read-only); drop caches built as root.
rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /root/.cache
