"""With a gateway, a docker sandbox reaches the gateway and nothing else: not the host's other services (which
a plain `--internal` network would expose through the bridge address), not the relay's other side."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator

import docker
import pytest

from tests.sandbox._support import PROBE, SandboxFactory, TcpServer, assert_no_name_resolution, host_addresses

pytestmark = pytest.mark.docker


class _Gateway(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = f"gateway-ok {self.path}".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def gateway() -> Iterator[http.server.ThreadingHTTPServer]:
    server = http.server.ThreadingHTTPServer(("0.0.0.0", 0), _Gateway)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


FETCH = """
import sys, urllib.request
print(urllib.request.urlopen(sys.argv[1] + "/models", timeout=10).read().decode())
"""


def test_only_the_gateway_is_reachable(make_sandbox: SandboxFactory, gateway, tcp_server: TcpServer) -> None:
    port = gateway.server_address[1]
    sb = make_sandbox("docker", gateway_url=f"http://127.0.0.1:{port}/v1")
    assert sb.gateway_url == "http://gateway:8080/v1"

    r = sb.exec(["python3", "-c", FETCH, sb.gateway_url], timeout_s=60)
    assert r.exit_code == 0, r.stderr
    assert r.stdout.strip() == "gateway-ok /v1/models"
    env = sb.exec(["sh", "-c", "echo $CMB_GATEWAY_URL"], timeout_s=30)
    assert env.stdout.strip() == sb.gateway_url

    # Every host address, on the other service's port and on the gateway's own port (only the relay may use it),
    # the addresses docker gave the internal network, and the relay on any other port.
    client = docker.from_env()
    net = client.networks.get(f"{sb.spec.name}-net")
    ipam = [c.get("Gateway") for c in net.attrs["IPAM"]["Config"] if c.get("Gateway")]
    addresses = sorted(set(host_addresses()) | set(ipam))
    targets = [f"{a}:{p}" for a in addresses for p in (tcp_server.port, port)]
    targets += ["gateway:22", "gateway:80", f"gateway:{tcp_server.port}"]
    r = sb.exec(["python3", "-c", PROBE, *targets], timeout_s=120)
    assert r.exit_code == 0, r.stderr
    assert "REACHED" not in r.stdout, r.stdout
    assert r.stdout.count("blocked") == len(targets)
    assert tcp_server.hits == 0

    # No IPv6 at all: the host bridge's link-local address would otherwise be a way out.
    v6 = sb.exec(["sh", "-c", "cat /proc/net/if_inet6 2>/dev/null | grep -v ' lo$' || true"], timeout_s=30)
    assert v6.stdout.strip() == ""
    # And no name resolution to the outside.
    assert_no_name_resolution(sb)


def test_gateway_sandbox_teardown_removes_relay_and_network(make_sandbox: SandboxFactory, gateway) -> None:
    sb = make_sandbox("docker", gateway_url=f"http://127.0.0.1:{gateway.server_address[1]}")
    client = docker.from_env()
    labelled = {"label": ["cmb=1", f"cmb.name={sb.spec.name}"]}
    roles = sorted(c.labels["cmb.role"] for c in client.containers.list(all=True, filters=labelled))
    assert roles == ["relay", "sandbox"]
    assert [n.name for n in client.networks.list(filters=labelled)] == [f"{sb.spec.name}-net"]
    sb.teardown()
    assert client.containers.list(all=True, filters=labelled) == []
    assert client.networks.list(filters=labelled) == []
    assert client.volumes.list(filters=labelled) == []
