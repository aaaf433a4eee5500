"""deploy/ against the built image: entrypoint, ports, probes and env names it really serves.

The manifests are validated offline in tests/deploy; here each Deployment's container is
matched to the image (docker image inspect) and to the compose container of the same
service, running that image: its probes are run inside it, its ports answer, and every
environment name it is given is one the image's code reads.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import yaml

from tests.stack.compose import ROOT, Stack, docker

IMAGE = f"fallen-backend:{os.environ.get('FALLEN_TAG', 'dev')}"


def deployments() -> dict[str, dict[str, Any]]:
    """Return the base Deployments' single containers by name."""
    out = {}
    for path in sorted((ROOT / "deploy" / "base").glob("*.yaml")):
        for doc in yaml.safe_load_all(Path(path).read_text()):
            if doc and doc.get("kind") == "Deployment":
                (container,) = doc["spec"]["template"]["spec"]["containers"]
                out[doc["metadata"]["name"]] = container
    return out


def configmap_names() -> set[str]:
    """Return the keys of the base ConfigMap fallen-config."""
    doc = yaml.safe_load((ROOT / "deploy" / "base" / "configmap.yaml").read_text())
    return set(doc["data"])


def image_config() -> dict[str, Any]:
    """Return the built image's config (docker image inspect)."""
    (info,) = json.loads(docker("image", "inspect", IMAGE))
    return dict(info["Config"])


def in_container(cid: str, *cmd: str) -> tuple[int, str]:
    """Run a command in a running container; return its exit code and output."""
    done = subprocess.run(
        ["docker", "exec", cid, *cmd], capture_output=True, text=True, timeout=60, check=False
    )
    return done.returncode, (done.stdout + done.stderr)[-1000:]


def test_image_entrypoint_ports_and_health_address_match_the_manifests():
    # given the built image and the base Deployments
    config = image_config()
    exposed = {int(p.split("/")[0]) for p in config["ExposedPorts"]}
    env = dict(e.split("=", 1) for e in config["Env"])
    health_port = int(env["FALLEN_HEALTH_ADDR"].rsplit(":", 1)[1])
    # then every serving container keeps the image entrypoint and uses the ports it serves
    for name, container in deployments().items():
        if "command" in container:
            assert container["command"][0] == "fallenctl", name
            continue
        assert config["Entrypoint"] == ["fallenctl", "serve"], config["Entrypoint"]
        ports = {p["containerPort"] for p in container.get("ports", [])}
        assert ports <= exposed, (name, ports, exposed)
        for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
            assert container[probe]["grpc"]["port"] == health_port, (name, probe)
        args = container["args"]
        assert args[args.index("--address") + 1].endswith(f":{health_port}"), name
    assert "services.platform.healthcheck" in " ".join(config["Healthcheck"]["Test"])


def test_probes_and_ports_answer_inside_the_running_image(stack: Stack):
    # given each Deployment's compose twin, running the same image
    for name, container in deployments().items():
        (cid, *_) = stack.containers(name)
        # when its probes run inside it, then they pass
        live = container["livenessProbe"]
        if "exec" in live:
            code, out = in_container(cid, *live["exec"]["command"])
        else:
            port = live["grpc"]["port"]
            code, out = in_container(
                cid, "python", "-m", "services.platform.healthcheck", f"127.0.0.1:{port}"
            )
        assert code == 0, (name, out)
        # and a declared metrics port serves Prometheus text
        metrics = [p["containerPort"] for p in container.get("ports", []) if p["name"] == "metrics"]
        for port in metrics:
            script = (
                "import urllib.request,sys;"
                f"b=urllib.request.urlopen('http://127.0.0.1:{port}/metrics',timeout=5).read();"
                "sys.exit(0 if b'# TYPE' in b else 1)"
            )
            code, out = in_container(cid, "python", "-c", script)
            assert code == 0, (name, port, out)


def test_every_env_name_the_manifests_set_is_read_by_the_image():
    # given every environment name deploy/ gives a container
    names = set(configmap_names())
    for container in deployments().values():
        names |= {e["name"] for e in container.get("env", [])}
    # when the image's own code is searched for each name (quoted, as code reads it)
    script = (
        "import pathlib,sys;"
        "t='\\n'.join(p.read_text() for p in pathlib.Path('/app/services').rglob('*.py'));"
        "print(' '.join(n for n in sys.argv[1:] if repr(n) not in t and f'\"{n}\"' not in t))"
    )
    out = docker("run", "--rm", "--entrypoint", "python", IMAGE, "-c", script, *sorted(names))
    # then none is missing
    assert out.split() == [], f"env names the image never reads: {out.split()}"
