#!/bin/sh
# Last layer of every agent image, shared by the registry Dockerfile and the registry-free build: the non-root
# user, the workspace, and the offline manuals gathered from the Debian packages under /opt/manuals.
set -eu

# minbase has no useradd (package passwd is not Essential): write the entries directly.
grep -q '^agent:' /etc/group || echo 'agent:x:1000:' >> /etc/group
grep -q '^agent:' /etc/passwd || echo 'agent:x:1000:1000:cmb agent:/home/agent:/bin/bash' >> /etc/passwd
grep -q '^agent:' /etc/shadow 2>/dev/null || echo 'agent:!:19000:0:99999:7:::' >> /etc/shadow
mkdir -p /home/agent /workspace /opt/manuals
chown 1000:1000 /home/agent /workspace

manuals=/opt/manuals
if [ -d /usr/share/doc/quantum-espresso/html ]; then
  mkdir -p "$manuals/quantum-espresso"
  cp -r /usr/share/doc/quantum-espresso/html/. "$manuals/quantum-espresso/"
fi
if [ -d /usr/share/doc/quantum-espresso/examples ]; then
  ln -sfn /usr/share/doc/quantum-espresso/examples "$manuals/quantum-espresso-examples"
fi
# Debian's lammps-doc ships the PDF guides (its HTML manual is a dangling index link): keep what resolves.
if [ -d /usr/share/doc/lammps/html ]; then
  mkdir -p "$manuals/lammps"
  cp -r /usr/share/doc/lammps/html/. "$manuals/lammps/"
  find "$manuals/lammps" -xtype l -delete
fi
if [ -d /usr/share/espresso/pseudo ]; then
  ln -sfn /usr/share/espresso/pseudo "$manuals/qe-pseudopotentials"
fi
{
  echo "Offline manuals of the codes installed in this image."
  echo
  for f in "$manuals"/*; do
    if [ -e "$f" ] && [ "$(basename "$f")" != README.txt ]; then echo "- $(basename "$f")"; fi
  done
  echo
  echo "Python packages:"
  python3 - <<'PY'
import importlib.metadata as md
names = ["numpy", "scipy", "h5py", "ase", "pymatgen", "spglib", "matplotlib", "phonopy", "phono3py"]
for n in names:
    try:
        print(f"- {n} {md.version(n)}")
    except md.PackageNotFoundError:
        pass
PY
} > /tmp/manuals-readme.txt
mv /tmp/manuals-readme.txt "$manuals/README.txt"

# Nothing else is writable at run time (the sandbox mounts the root read-only); drop caches built as root.
rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /root/.cache
