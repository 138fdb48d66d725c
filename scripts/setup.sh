#!/usr/bin/env bash
# Install what cmb needs on a fresh Debian 12 machine: the simulation codes and the Python package.
set -euo pipefail
cd "$(dirname "$0")/.."

export DEBIAN_FRONTEND=noninteractive
need_apt=()
command -v pw.x >/dev/null || need_apt+=(quantum-espresso)
[ -d /usr/share/doc/quantum-espresso/examples ] || need_apt+=(quantum-espresso-data)
command -v lmp >/dev/null || need_apt+=(lammps)
command -v chromium >/dev/null || need_apt+=(chromium fonts-dejavu-core)
command -v bwrap >/dev/null || need_apt+=(bubblewrap)
command -v debootstrap >/dev/null || need_apt+=(debootstrap)
command -v dockerd >/dev/null || need_apt+=(docker.io)
command -v prometheus >/dev/null || need_apt+=(prometheus)  # the live-dashboard test runs one of its own
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  echo "installing Debian packages: ${need_apt[*]}"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
  # Debian's prometheus starts a service on :9090 where the machine lets packages start services; the test starts
  # its own (own port, config and storage), so the service is stopped and kept from starting at boot.
  if [[ " ${need_apt[*]} " == *" prometheus "* ]]; then
    $SUDO service prometheus stop >/dev/null 2>&1 || true
    if command -v systemctl >/dev/null; then $SUDO systemctl disable --now prometheus >/dev/null 2>&1 || true; fi
  fi
fi

python3 -m pip install -q -e '.[dev]'
# The MLflow web UI: cmb depends on mlflow-skinny (tracking client and server, no web pages); the full wheel of the
# same version adds only the UI's files. --no-deps: its pins for model flavours (pyarrow<26) don't concern cmb.
skinny=$(python3 -c 'import importlib.metadata as m; print(m.version("mlflow-skinny"))')
python3 -c 'import importlib.metadata as m, sys; sys.exit(m.version("mlflow") != m.version("mlflow-skinny"))' 2>/dev/null \
  || python3 -m pip install -q --no-deps "mlflow==$skinny"

# Docker Compose v2 (`docker compose`), which Harbor's docker environment drives: Debian 12 has only v1, so the
# plugin is Debian 13's package, from a source pinned below every Debian 12 one so that it upgrades nothing else.
if ! docker compose version >/dev/null 2>&1; then
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  mirror="$(bash deploy/image/debian-mirror.sh main)"  # the Debian archive this machine's apt already uses
  printf 'Types: deb\nURIs: %s\nSuites: trixie\nComponents: main\nSigned-By: %s\n' \
    "$mirror" /usr/share/keyrings/debian-archive-keyring.gpg | $SUDO tee /etc/apt/sources.list.d/cmb-trixie.sources >/dev/null
  printf 'Package: *\nPin: release n=trixie\nPin-Priority: 50\n' | $SUDO tee /etc/apt/preferences.d/cmb-trixie >/dev/null
  $SUDO apt-get update -qq
  # --no-install-recommends: its recommended docker-cli of Debian 13 would replace Debian 12's docker.io
  $SUDO apt-get install -y -qq --no-install-recommends docker-compose/trixie >/dev/null
fi

# The Docker engine, and the agent images built locally (no registry needed; cached by content hash).
# A daemon killed without cleaning up (a machine restored from a snapshot) leaves its pid files, and a new dockerd
# refuses to start over them; they are removed only when no dockerd or containerd runs. The first start on a fresh
# machine can take longer than a minute (iptables chains, storage driver probe), and a failed start prints its log.
start_dockerd() {
  if ! pgrep -x dockerd >/dev/null; then
    pgrep -x containerd >/dev/null || rm -f /var/run/docker/containerd/containerd.pid
    rm -f /var/run/docker.pid
  fi
  (dockerd "$@" >>/var/log/dockerd.log 2>&1 &)
  for _ in $(seq 180); do docker info >/dev/null 2>&1 && return 0; pgrep -x dockerd >/dev/null || break; sleep 1; done
  docker info >/dev/null 2>&1
}
if ! docker info >/dev/null 2>&1; then
  if ! start_dockerd; then
    echo "setup: dockerd did not start; the end of /var/log/dockerd.log:" >&2
    tail -n 25 /var/log/dockerd.log >&2 || true
    # overlay2 needs a kernel and a backing filesystem that allow it; vfs works everywhere, only slower.
    pkill -x dockerd 2>/dev/null || true; sleep 2
    echo "setup: retrying dockerd with the vfs storage driver" >&2
    start_dockerd --storage-driver=vfs || { echo "setup: dockerd did not start (see /var/log/dockerd.log)" >&2; exit 1; }
  fi
fi
# The offline manuals library agents read at /opt/manuals (pinned sources, checked by sha256; seconds when current).
# External programs the adapter and export tests drive; network-bound, so they install while the images build.
install_agent_programs() {
  # External agent programs, for the adapter tests (each test skips with its reason when a program is missing).
  if command -v npm >/dev/null; then
    command -v codex >/dev/null || npm install -g -s @openai/codex@0.171.0 || echo "warning: codex CLI not installed"
    command -v claude >/dev/null || npm install -g -s @anthropic-ai/claude-code@2.1.197 \
      || echo "warning: Claude Code not installed"
  fi
  # mini-swe-agent pins libraries of its own (click among them): it lives in its own virtual environment.
  [ -x /opt/cmb-mini/bin/mini ] || { python3 -m venv /opt/cmb-mini && /opt/cmb-mini/bin/pip install -q mini-swe-agent==2.4.6; }

  # Harbor, whose runner the export tests drive and whose ATIF models validate cmb's trajectory.atif.json. Harbor
  # needs Python >= 3.12 (cmb runs on 3.11), so it lives in a virtual environment of its own. About a minute.
  HARBOR_VENV="${XDG_CACHE_HOME:-$HOME/.cache}/cmb/harbor-venv"
  if ! "$HARBOR_VENV/bin/harbor" --version >/dev/null 2>&1; then
    py312=
    for py in python3.12 python3.13 "$(pyenv root 2>/dev/null)"/versions/3.1[2-9]*/bin/python3; do
      if "$py" -c 'import sys; assert sys.version_info >= (3, 12)' 2>/dev/null; then py312=$py; break; fi
    done
    if [ -n "$py312" ]; then
      rm -rf "$HARBOR_VENV"
      "$py312" -m venv "$HARBOR_VENV"
      "$HARBOR_VENV/bin/pip" install -q harbor==0.26.0 2> >(grep -v '^WARNING: Location' >&2)
      "$HARBOR_VENV/bin/harbor" --version >/dev/null
    else
      echo "warning: no Python >= 3.12: the Harbor tests will skip (set CMB_HARBOR_PYTHON to one with harbor)"
    fi
  fi
}

cmb manuals build
# The images build in the background (minutes of debootstrap, apt and pip in a chroot) while the agent programs
# install; a failed build stops setup with its log.
images_log="$(mktemp)"
(bash deploy/image/build-local.sh slim && bash deploy/image/build-local.sh full) >"$images_log" 2>&1 &
images=$!
install_agent_programs
if ! wait "$images"; then
  echo "setup: the agent image build failed; its log:" >&2
  tail -n 40 "$images_log" >&2
  exit 1
fi
cat "$images_log"
rm -f "$images_log"

# Opt-in: a real tiny model served offline (builds llama.cpp, about 20 minutes). Built for a baseline x86-64 CPU,
# not for this one's instruction set: a wheel built with the build machine's AVX-512 dies on a machine without it.
SMOLLM_CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=OFF -DGGML_AVX2=OFF -DGGML_AVX512=OFF -DGGML_FMA=OFF -DGGML_F16C=OFF"
if [ "${CMB_TEST_SMOLLM:-}" = 1 ]; then
  CMAKE_ARGS="$SMOLLM_CMAKE_ARGS" python3 -m pip install -q --no-cache-dir -e '.[smollm]'
fi
