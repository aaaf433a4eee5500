"""Offline checks of the deployment files: docker-compose.yml, deploy/ (kustomize), Dockerfile.

No Docker engine and no cluster here: compose is checked structurally (and by
`docker-compose config` when that binary exists), the kustomize output is rendered by a
small Python renderer below and schema-validated with kubernetes_validate.
"""

from __future__ import annotations

import copy
import inspect
import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import typer.main
import yaml
from kubernetes_validate.utils import all_versions

from services.app import ALL, BOT_POOLS, SINGLE_SERVICES, bot_pool
from services.cli.main import app as fallenctl
from services.dice import seeds
from services.platform import heartbeat
from services.platform.store.redis import feed_key
from services.platform.stream.kafka_topics import PARTITIONS as RELAY_PARTITIONS
from services.projections import wiring
from services.projections.faust_app import FaustConfig
from services.projections.open_views import open_view_store

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"

# The services `fallenctl serve` runs. The bot worker pools (one per rules pool) serve gRPC
# health and metrics like the others; their workers run inside them.
FALLEN_SERVICES = (
    "dice",
    "deck",
    "rules-fallen",
    "bots-fallen",
    "rules-worlds",
    "bots-worlds",
    "rules-land",
    "bots-land",
    "rules-land-epic",
    "bots-land-epic",
    "projections",
    "relay",
    "matchmaking",
)
# Workers: they run the same image with its ENTRYPOINT (`fallenctl serve`) replaced by
# another fallenctl command, and serve neither gRPC nor metrics. They are exempt, by name
# and only from these checks, from what is specific to `fallenctl serve`: gRPC probes
# (nothing listens; in compose the image's gRPC HEALTHCHECK is disabled instead), a
# Service, container ports, Prometheus scrape annotations, a `SERVICE --address ...`
# argument list, and the JWT secret (they make no authenticated calls, so they must not
# get it). Every other check (image, security context, limits, scratch dirs, config,
# depends_on, CLI flags) applies to them too.
WORKERS = {"projections-worker": ("fallenctl", "projections", "faust")}
SERVE = ("fallenctl", "serve")  # the image ENTRYPOINT
# HPAs present in every render (the stateless pools) and only in prod (the faust workers:
# dev scales them to 0, base leaves replicas to the overlays).
# Bot pools: the rules service they play through (FALLEN_RULES_ADDR) and their Redis group
# (the pool's name). Every dedicated rules pool has one (a worker talks to one endpoint).
BOT_RULES = {
    "bots-fallen": "rules-fallen",
    "bots-worlds": "rules-worlds",
    "bots-land": "rules-land",
    "bots-land-epic": "rules-land-epic",
}
POOL_HPA = {"rules-fallen", "rules-land", "rules-land-epic", "rules-worlds", *BOT_RULES}
# Pools that prod scales with a KEDA ScaledObject instead (its HPA is KEDA's, the base CPU
# HPA is deleted there): the bot worker pools, on their consumer group's lag.
KEDA_SCALED = set(BOT_RULES)
KEDA_API = "keda.sh/v1alpha1"
PROD_ONLY_HPA = {"projections-worker"}
# The one front door (deploy/door) is the only service with host ports: container port ->
# the variable that sets its host port (default: the same number).
DOOR = "door"
DOOR_PORTS = {
    50051: "FALLEN_DOOR_PORT",
    50443: "FALLEN_DOOR_TLS_PORT",
    8080: "FALLEN_DOOR_WEB_PORT",
}
WEB_PORT = 8080  # projections serves the web page here (--web-port), behind the door's 8080
NEEDS_DICE = {"deck", "rules-fallen", "rules-worlds", "rules-land", "rules-land-epic"}
NEEDS_DECK = NEEDS_DICE - {"deck"}  # the rules pools deal through the deck service (gRPC)
GRPC_PORT = 50051
METRICS_PORT = 9100
SECRET_NAME = "fallen-secrets"
WORKLOAD_KINDS = {"Deployment", "StatefulSet"}
# Partitions of the topics the faust workers share: the relay's fallen.events.* topics,
# co-partitioned by game id (FaustConfig.partitions; with --route also the by-game topic).
BY_GAME_PARTITIONS = FaustConfig("", "", "").partitions


# --------------------------------------------------------------------------- compose


def _fallen(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Return the compose services that run `fallenctl serve SERVICE`."""
    return {n: s for n, s in compose["services"].items() if n in FALLEN_SERVICES}


def _workers(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Return the compose services that run a worker command of the image."""
    return {n: s for n, s in compose["services"].items() if n in WORKERS}


def test_compose_has_every_service(compose: dict[str, Any]) -> None:
    services = compose["services"]
    wanted = set(FALLEN_SERVICES) | set(WORKERS) | {"redis", "kafka", DOOR}
    missing = wanted - set(services)
    assert not missing, f"missing compose services: {sorted(missing)}"
    assert set(services) == wanted


def test_compose_every_service_has_a_healthcheck(compose: dict[str, Any]) -> None:
    for name, svc in compose["services"].items():
        hc = svc.get("healthcheck")
        assert hc, f"{name}: no healthcheck"
        if name in WORKERS:
            # A worker serves no gRPC: its healthcheck is the heartbeat file it touches.
            assert hc["test"][:4] == ["CMD", "python", "-m", "services.platform.heartbeat"], name
            assert hc["test"][4] == svc["environment"]["FALLEN_HEARTBEAT_FILE"], name
            continue
        assert not hc.get("disable", False), name
        test = hc["test"]
        assert isinstance(test, list) and test[0] in ("CMD", "CMD-SHELL"), name
    for name, svc in _fallen(compose).items():
        assert svc["healthcheck"]["test"] == [
            "CMD",
            "python",
            "-m",
            "services.platform.healthcheck",
            f"127.0.0.1:{GRPC_PORT}",
        ], name


def test_compose_depends_on_healthy_infra(compose: dict[str, Any]) -> None:
    services = compose["services"]
    for name, svc in {**_fallen(compose), **_workers(compose)}.items():
        deps = svc.get("depends_on")
        assert isinstance(deps, dict), f"{name}: depends_on must use the long form"
        for infra in ("redis", "kafka"):
            assert deps.get(infra, {}).get("condition") == "service_healthy", (name, infra)
        for dep, cond in deps.items():
            assert dep in services, (name, dep)
            assert dep not in WORKERS, f"{name} waits for {dep}, a worker"
            assert cond == {"condition": "service_healthy"}, (name, dep)
            assert "healthcheck" in services[dep], (name, dep)
    # No cycles: repeatedly remove services whose dependencies are all removed.
    pending = {n: set(s.get("depends_on") or {}) for n, s in services.items()}
    while pending:
        ready = [n for n, deps in pending.items() if not deps & set(pending)]
        assert ready, f"depends_on cycle among {sorted(pending)}"
        for n in ready:
            del pending[n]


def test_compose_one_image_built_from_the_repo(compose: dict[str, Any]) -> None:
    images = set()
    for name, svc in {**_fallen(compose), **_workers(compose)}.items():
        build = svc.get("build")
        context = build.get("context") if isinstance(build, dict) else build
        assert context in (".", "./"), f"{name}: build context {context!r}"
        if isinstance(build, dict):
            assert build.get("dockerfile", "Dockerfile") == "Dockerfile", name
        images.add(svc["image"])
        command = svc["command"]
        if name in WORKERS:
            assert svc.get("entrypoint") == list(WORKERS[name]), f"{name}: entrypoint"
            assert command and str(command[0]).startswith("--"), f"{name}: flags only"
            assert "ports" not in svc and "--address" not in command, f"{name}: serves nothing"
            continue
        assert command[0] == name, f"{name}: command must start with the service name"
        assert command[command.index("--address") + 1] == f"0.0.0.0:{GRPC_PORT}", name
        assert str(command[command.index("--metrics-port") + 1]) == str(METRICS_PORT), name
        assert "entrypoint" not in svc, f"{name}: the image's ENTRYPOINT is the contract"
    assert len(images) == 1, f"services must share one image: {images}"


def test_compose_redis_and_kafka(compose: dict[str, Any]) -> None:
    redis = compose["services"]["redis"]
    assert str(redis["image"]).startswith("redis:7")
    cmd = redis["command"]
    assert cmd[cmd.index("--appendonly") + 1] == "yes"
    assert any(str(v).endswith(":/data") for v in redis.get("volumes", [])), "AOF not persisted"
    kafka = compose["services"]["kafka"]
    assert str(kafka["image"]).startswith("apache/kafka:")
    env = kafka["environment"]
    assert set(str(env["KAFKA_PROCESS_ROLES"]).split(",")) == {"broker", "controller"}
    assert "PLAINTEXT://kafka:9092" in str(env["KAFKA_ADVERTISED_LISTENERS"])
    assert "CONTROLLER" in str(env["KAFKA_CONTROLLER_LISTENER_NAMES"])
    assert env.get("CLUSTER_ID") and env.get("KAFKA_NODE_ID") is not None
    assert int(env["KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR"]) == 1  # single broker
    # Auto-created topics get as many partitions as the faust workers expect.
    assert int(env["KAFKA_NUM_PARTITIONS"]) == BY_GAME_PARTITIONS
    for infra in (redis, kafka):
        assert "ports" not in infra, "infrastructure must not be published to the host"


def test_compose_environment_and_no_literal_secret(
    compose: dict[str, Any], compose_text: str
) -> None:
    services = compose["services"]
    for name, svc in _fallen(compose).items():
        env = svc["environment"]
        assert isinstance(env, dict), name
        assert env["FALLEN_STORE"] == "redis://redis:6379/0", name
        assert env["FALLEN_STREAM"] == "kafka://kafka:9092", name
        assert re.fullmatch(r"\$\{FALLEN_JWT_SECRET:\?[^}]+\}", env["FALLEN_JWT_SECRET"]), name
        assert "FALLEN_DEV" not in env, name
        for key, value in env.items():
            if key.endswith("_ADDR"):
                host, port = str(value).rsplit(":", 1)
                assert host in services and int(port) == GRPC_PORT, (name, key, value)
    # The read API serves what the faust workers write: external, same view store.
    api = services["projections"]["environment"]
    assert api["FALLEN_PROJECTIONS"] == wiring.EXTERNAL
    assert type(open_view_store(api["FALLEN_VIEWS"])).__name__ == "RedisViewStore"
    for name, svc in _workers(compose).items():
        env = svc["environment"]
        assert env["FALLEN_STORE"] == api["FALLEN_STORE"], name
        assert env["FALLEN_VIEWS"] == api["FALLEN_VIEWS"], name
        assert not {k for k in env if "JWT" in k or "SECRET" in k}, f"{name}: needs no secret"
        argv = [str(a) for a in svc["command"]]
        assert argv[argv.index("--kafka") + 1] == api["FALLEN_STREAM"], name
    # Also on the raw text: any JWT secret assignment outside comments is the required var.
    for line in compose_text.splitlines():
        code = line.split("#", 1)[0]
        if "JWT" in code.upper():
            assert "${FALLEN_JWT_SECRET:?" in code, f"literal JWT secret? {line!r}"


def test_compose_publishes_only_the_door(compose: dict[str, Any]) -> None:
    for name, svc in compose["services"].items():
        if name != DOOR:
            assert not svc.get("ports"), f"{name} should stay internal (behind the door)"
    published = {}
    for port in compose["services"][DOOR]["ports"]:
        # ${FALLEN_BIND:-127.0.0.1}:${FALLEN_DOOR_<X>_PORT-number}:number (empty: ephemeral)
        m = re.fullmatch(
            r"\$\{FALLEN_BIND:-127\.0\.0\.1\}:\$\{(FALLEN_[A-Z_]+_PORT)-(\d+)\}:(\d+)", str(port)
        )
        assert m, (
            f"door: publish as ${{FALLEN_BIND:-127.0.0.1}}:${{FALLEN_DOOR_X_PORT-N}}:N, not {port}"
        )
        published[int(m.group(3))] = (m.group(1), int(m.group(2)))
    assert published == {p: (var, p) for p, var in DOOR_PORTS.items()}


def test_compose_door_waits_for_every_service_it_routes_to(compose: dict[str, Any]) -> None:
    door = compose["services"][DOOR]
    routed = {"matchmaking", "projections", "dice"} | {
        n for n in FALLEN_SERVICES if n.startswith("rules-")
    }
    deps = door["depends_on"]
    assert set(deps) == routed
    assert all(d["condition"] == "service_healthy" for d in deps.values())
    assert str(door["image"]).startswith("fallen-door:") and door["build"] == "deploy/door"
    web = compose["services"]["projections"]["command"]
    assert str(web[web.index("--web-port") + 1]) == str(WEB_PORT)


_VAR = re.compile(r"\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}|\$([A-Za-z_]\w*)")


def _interpolate(value: Any, env: dict[str, str]) -> Any:
    """Return value with compose-style ${VAR}, ${VAR:-d}, ${VAR:?err} resolved from env."""
    if isinstance(value, dict):
        return {k: _interpolate(v, env) for k, v in value.items()}
    if isinstance(value, list):
        return [_interpolate(v, env) for v in value]
    if not isinstance(value, str):
        return value

    def sub(m: re.Match[str]) -> str:
        if m.group(0) == "$$":
            return "$"
        name = m.group(1) or m.group(4)
        op, arg = m.group(2), m.group(3)
        current = env.get(name)
        unset = current is None or (op is not None and op.startswith(":") and current == "")
        if op in (":?", "?") and unset:
            raise LookupError(f"{name}: {arg}")
        if op in (":-", "-") and unset:
            return arg or ""
        return current or ""

    return _VAR.sub(sub, value)


def test_compose_config_resolves(
    compose: dict[str, Any], docker_compose_bin: str | None, repo_root: Path
) -> None:
    """`docker-compose config` accepts the file (or, without the binary, the same in Python)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("FALLEN_")}
    if docker_compose_bin is not None:
        cmd = [docker_compose_bin, "-f", str(repo_root / "docker-compose.yml"), "config"]
        ok = subprocess.run(
            [*cmd, "-q"],
            cwd=repo_root,
            capture_output=True,
            text=True,
            timeout=60,
            env={**env, "FALLEN_JWT_SECRET": "test-only-not-a-secret"},
        )
        assert ok.returncode == 0, ok.stderr
        missing = subprocess.run(
            [*cmd, "-q"], cwd=repo_root, capture_output=True, text=True, timeout=60, env=env
        )
        assert missing.returncode != 0, "compose must refuse to start without a JWT secret"
        assert "FALLEN_JWT_SECRET" in missing.stderr
        return
    # Fallback without docker-compose: the same two properties, computed in Python.
    resolved = _interpolate(compose, {**env, "FALLEN_JWT_SECRET": "test-only-not-a-secret"})
    for name, svc in _fallen(resolved).items():
        assert svc["environment"]["FALLEN_JWT_SECRET"] == "test-only-not-a-secret", name
        for port in svc.get("ports", []):
            assert port.startswith("127.0.0.1:"), f"{name}: published beyond loopback"
        assert "${" not in json.dumps(svc), f"{name}: unresolved variable"
    with pytest.raises(LookupError, match="FALLEN_JWT_SECRET"):
        _interpolate(compose, env)
    for name in compose.get("volumes", {}):
        assert re.fullmatch(r"[a-z0-9][a-z0-9_.-]*", name), name
    for name, svc in compose["services"].items():
        for vol in svc.get("volumes", []):
            source = str(vol).split(":", 1)[0]
            assert source in compose.get("volumes", {}), f"{name}: undeclared volume {source}"


# --------------------------------------------------------------------------- kustomize


def _load_all(path: Path) -> list[dict[str, Any]]:
    """Return the non-empty YAML documents of a file."""
    with path.open() as fh:
        return [d for d in yaml.safe_load_all(fh) if d]


def _smp(base: Any, patch: Any) -> Any:
    """Return base strategically merged with patch (maps merged, lists of named maps by name)."""
    if isinstance(base, dict) and isinstance(patch, dict):
        out = dict(base)
        for key, value in patch.items():
            if value is None:
                out.pop(key, None)
            else:
                out[key] = _smp(out[key], value) if key in out else copy.deepcopy(value)
        return out
    named = (
        isinstance(base, list)
        and isinstance(patch, list)
        and all(isinstance(x, dict) and "name" in x for x in [*base, *patch])
    )
    if named:
        merged = {x["name"]: x for x in base}
        for item in patch:
            merged[item["name"]] = _smp(merged.get(item["name"], {}), item)
        return list(merged.values())
    return copy.deepcopy(patch)


def _pod_spec(doc: dict[str, Any]) -> dict[str, Any]:
    """Return the pod spec of a workload."""
    spec: dict[str, Any] = doc["spec"]["template"]["spec"]
    return spec


def _set_image(image: str, rule: dict[str, Any]) -> str | None:
    """Return image rewritten by a kustomize `images` rule, or None if the rule does not match."""
    name, tag = image, None
    last = image.rsplit("/", 1)[-1]
    if ":" in last:
        name, tag = image.rsplit(":", 1)
    if name != rule["name"]:
        return None
    tag = rule.get("newTag", tag)
    return rule.get("newName", name) + (f":{tag}" if tag else "")


SUPPORTED_KUSTOMIZATION = {
    "apiVersion",
    "kind",
    "resources",
    "patches",
    "images",
    "replicas",
    "namespace",
}


def render(directory: Path) -> list[dict[str, Any]]:
    """Return what `kustomize build directory` yields, for the features this repo uses."""
    kust = _load_all(directory / "kustomization.yaml")[0]
    assert kust["kind"] == "Kustomization"
    unsupported = set(kust) - SUPPORTED_KUSTOMIZATION
    assert not unsupported, f"renderer does not know {unsupported}: extend it"
    docs: list[dict[str, Any]] = []
    for res in kust.get("resources", []):
        path = (directory / res).resolve()
        docs += render(path) if path.is_dir() else _load_all(path)
    for entry in kust.get("patches", []):
        assert set(entry) == {"path"}, f"only strategic-merge patch files: {entry}"
        for patch in _load_all(directory / entry["path"]):
            key = (patch["kind"], patch["metadata"]["name"])
            hits = [i for i, d in enumerate(docs) if (d["kind"], d["metadata"]["name"]) == key]
            assert len(hits) == 1, f"{directory}/{entry['path']}: patch target {key} not found"
            if patch.get("$patch") == "delete":
                del docs[hits[0]]
                continue
            docs[hits[0]] = _smp(docs[hits[0]], patch)
    for rule in kust.get("replicas", []):
        found = [
            d for d in docs if d["kind"] in WORKLOAD_KINDS and d["metadata"]["name"] == rule["name"]
        ]
        assert len(found) == 1, f"replicas: no workload {rule['name']}"
        found[0]["spec"]["replicas"] = rule["count"]
    for rule in kust.get("images", []):
        for doc in docs:
            if doc["kind"] in WORKLOAD_KINDS:
                for container in _pod_spec(doc)["containers"]:
                    container["image"] = _set_image(container["image"], rule) or container["image"]
    if "namespace" in kust:
        for doc in docs:
            doc["metadata"]["namespace"] = kust["namespace"]
    return docs


TARGETS = {
    "base": DEPLOY / "base",
    "dev": DEPLOY / "overlays" / "dev",
    "prod": DEPLOY / "overlays" / "prod",
}


@pytest.fixture(scope="module")
def rendered() -> dict[str, list[dict[str, Any]]]:
    """Return the rendered manifests of base and each overlay."""
    return {name: render(path) for name, path in TARGETS.items()}


def _by_kind(docs: list[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    """Return the documents of one kind by name."""
    out = {d["metadata"]["name"]: d for d in docs if d["kind"] == kind}
    assert len(out) == sum(1 for d in docs if d["kind"] == kind), f"duplicate {kind} names"
    return out


def _hpa_scaled(docs: list[dict[str, Any]]) -> set[str]:
    """Return the names of the Deployments an HPA (or a KEDA ScaledObject) of the render scales."""
    hpas = [
        *_by_kind(docs, "HorizontalPodAutoscaler").values(),
        *_by_kind(docs, "ScaledObject").values(),
    ]
    return {h["spec"]["scaleTargetRef"]["name"] for h in hpas}


def _k8s_versions() -> list[str]:
    """Return the Kubernetes versions to validate against: 1.30 (if shipped) and the latest."""
    shipped = {".".join(v.split(".")[:2]) for v in all_versions()}
    latest = ".".join(kubernetes_validate.latest_version().split(".")[:2])
    return sorted({v for v in ("1.30", latest) if v in shipped})


def test_every_yaml_file_is_used_and_every_reference_exists() -> None:
    for path in TARGETS.values():
        kust = _load_all(path / "kustomization.yaml")[0]
        refs = [r for r in kust.get("resources", [])] + [p["path"] for p in kust.get("patches", [])]
        for ref in refs:
            assert (path / ref).exists(), f"{path}: {ref} does not exist"
        used = {(path / r).resolve() for r in refs}
        for file in path.glob("*.yaml"):
            if file.name != "kustomization.yaml":
                assert file.resolve() in used, f"{file} is not referenced by kustomization.yaml"


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_manifests_are_schema_valid(target: str, rendered: dict[str, list[dict[str, Any]]]) -> None:
    docs = rendered[target]
    assert docs
    versions = _k8s_versions()
    assert versions
    for version in versions:
        for doc in docs:
            if doc["apiVersion"] == KEDA_API:
                continue  # a custom resource: no schema here, see test_keda_scaled_objects
            try:
                kubernetes_validate.validate(doc, version, strict=True)
            except kubernetes_validate.ValidationError as exc:
                pytest.fail(f"{target} {doc['kind']}/{doc['metadata']['name']} @ {version}: {exc}")


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_one_deployment_and_service_per_service(
    target: str, rendered: dict[str, list[dict[str, Any]]]
) -> None:
    docs = rendered[target]
    assert set(_by_kind(docs, "Deployment")) == set(FALLEN_SERVICES) | set(WORKERS)
    services = set(_by_kind(docs, "Service"))
    assert set(FALLEN_SERVICES) <= services
    assert not services & set(WORKERS), "workers serve no port: no Service"
    assert not [d for d in docs if d["kind"] == "Secret"], "no Secret may be committed"
    namespaces = {d["metadata"].get("namespace") for d in docs}
    assert len(namespaces) == 1, f"mixed namespaces {namespaces}"


def _quantity(value: Any) -> float:
    """Return a Kubernetes CPU or memory quantity as a float (cores or bytes)."""
    text = str(value)
    units = {"m": 1e-3, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "k": 1e3, "M": 1e6, "G": 1e9}
    for suffix, factor in sorted(units.items(), key=lambda kv: -len(kv[0])):
        if text.endswith(suffix):
            return float(text[: -len(suffix)]) * factor
    return float(text)


def _container_env(
    container: dict[str, Any], configmaps: dict[str, dict[str, Any]]
) -> dict[str, str]:
    """Return a container's environment: envFrom ConfigMaps, then env (secrets as a marker)."""
    env = {
        str(k): str(v)
        for src in container.get("envFrom", [])
        for k, v in configmaps[src["configMapRef"]["name"]]["data"].items()
    }
    env.update({e["name"]: str(e.get("value", "<from secret>")) for e in container.get("env", [])})
    return env


_K8S_REF = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)")


def _expand(arg: str, env: dict[str, str]) -> str:
    """Return arg with Kubernetes $(VAR) references replaced (they must all be defined)."""

    def sub(m: re.Match[str]) -> str:
        assert m.group(1) in env, f"$({m.group(1)}) is not in the container's environment"
        return env[m.group(1)]

    return _K8S_REF.sub(sub, arg)


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_deployments_are_probed_limited_and_non_root(
    target: str, rendered: dict[str, list[dict[str, Any]]]
) -> None:
    docs = rendered[target]
    configmaps = _by_kind(docs, "ConfigMap")
    images = set()
    for name, dep in _by_kind(docs, "Deployment").items():
        meta = dep["spec"]["template"]["metadata"]
        notes = meta.get("annotations", {})
        pod = _pod_spec(dep)
        psc = pod["securityContext"]
        assert psc["runAsNonRoot"] is True and psc.get("runAsUser", 0) != 0, name
        assert pod.get("automountServiceAccountToken") is False, name
        assert len(pod["containers"]) == 1, name
        (container,) = pod["containers"]
        images.add(container["image"])
        res = container["resources"]
        for kind in ("cpu", "memory"):
            req, lim = res["requests"][kind], res["limits"][kind]
            assert 0 < _quantity(req) <= _quantity(lim), (name, kind, req, lim)
        csc = container["securityContext"]
        assert csc["allowPrivilegeEscalation"] is False, name
        assert csc["readOnlyRootFilesystem"] is True, name
        assert csc["capabilities"]["drop"] == ["ALL"], name
        mounts = {m["mountPath"] for m in container["volumeMounts"]}
        assert {"/tmp", "/var/lib/fallen"} <= mounts, f"{name}: writable scratch dirs"
        for source in container["envFrom"]:
            assert source["configMapRef"]["name"] in configmaps, name
        if name in WORKERS:
            # The explicit exemptions (see WORKERS): another fallenctl command, nothing to
            # probe, scrape or route to, and no JWT secret.
            assert tuple(container["command"]) == WORKERS[name], f"{name}: command"
            assert container["args"] and container["args"][0].startswith("--"), name
            for probe in ("readinessProbe", "startupProbe"):
                assert probe not in container, f"{name}: {probe} on a port nothing serves"
            beat = container["livenessProbe"]["exec"]["command"]
            assert beat[:3] == ["python", "-m", "services.platform.heartbeat"], name
            assert beat[3].startswith("/var/lib/fallen/"), f"{name}: heartbeat in scratch"
            assert "ports" not in container, f"{name}: listens on nothing"
            assert not any(k.startswith("prometheus.io/") for k in notes), f"{name}: no /metrics"
            env = {e["name"]: e for e in container.get("env", [])}
            assert set(env) <= {"FALLEN_HEARTBEAT_FILE"}, f"{name}: needs no secret"
            continue
        assert notes.get("prometheus.io/scrape") == "true", name
        assert notes.get("prometheus.io/port") == str(METRICS_PORT), name
        assert notes.get("prometheus.io/path") == "/metrics", name
        assert container["args"][0] == name, name
        assert container["args"][container["args"].index("--address") + 1] == (
            f"0.0.0.0:{GRPC_PORT}"
        )
        assert "command" not in container, f"{name}: keep the image ENTRYPOINT"
        for probe in ("livenessProbe", "readinessProbe", "startupProbe"):
            assert container[probe]["grpc"]["port"] == GRPC_PORT, (name, probe)
        ports = {p["name"]: p["containerPort"] for p in container["ports"]}
        web = {"web": WEB_PORT} if name == "projections" else {}  # the page, behind the door
        assert ports == {"grpc": GRPC_PORT, "metrics": METRICS_PORT, **web}, name
        secret_env = {e["name"]: e for e in container.get("env", [])}
        ref = secret_env["FALLEN_JWT_SECRET"]["valueFrom"]["secretKeyRef"]
        assert ref["name"] == SECRET_NAME and ref["key"] == "jwt-secret", name
        assert all("value" not in e for e in container.get("env", []) if "SECRET" in e["name"]), (
            name
        )
    assert len(images) == 1, f"one image for every service: {images}"


def _hpa_targets(target: str) -> set[str]:
    """Return the Deployments an HPA scales in a render."""
    if target == "prod":
        return (POOL_HPA | PROD_ONLY_HPA) - KEDA_SCALED
    return POOL_HPA


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_hpas_target_the_scaling_pools(
    target: str, rendered: dict[str, list[dict[str, Any]]]
) -> None:
    docs = rendered[target]
    deployments = _by_kind(docs, "Deployment")
    hpas = _by_kind(docs, "HorizontalPodAutoscaler")
    assert {h["spec"]["scaleTargetRef"]["name"] for h in hpas.values()} == _hpa_targets(target)
    for name, hpa in hpas.items():
        assert hpa["apiVersion"] == "autoscaling/v2", name
        ref = hpa["spec"]["scaleTargetRef"]
        assert (ref["apiVersion"], ref["kind"]) == ("apps/v1", "Deployment"), name
        target_dep = deployments[ref["name"]]
        assert "replicas" not in target_dep["spec"], f"{ref['name']}: the HPA owns replicas"
        container = _pod_spec(target_dep)["containers"][0]
        assert "cpu" in container["resources"]["requests"], "utilization needs a CPU request"
        assert 1 <= hpa["spec"]["minReplicas"] <= hpa["spec"]["maxReplicas"], name
        metrics = hpa["spec"]["metrics"]
        assert [m["resource"]["name"] for m in metrics if m["type"] == "Resource"] == ["cpu"]
        if ref["name"] in WORKERS:
            # A faust worker only works on the partitions it owns.
            assert hpa["spec"]["maxReplicas"] <= BY_GAME_PARTITIONS, name
    for name, dep in deployments.items():
        if name in _hpa_targets(target) or name in _hpa_scaled(docs):
            continue  # an HPA or a KEDA ScaledObject (test_keda_scaled_objects) owns it
        if target == "base" and name in PROD_ONLY_HPA:
            # Left to the overlays: dev sets 0, prod's HPA owns it.
            assert "replicas" not in dep["spec"], f"{name}: prod's HPA owns replicas"
            continue
        assert isinstance(dep["spec"].get("replicas"), int), f"{name}: plain replica count"
    assert deployments["relay"]["spec"]["replicas"] <= 1, "relay is one per shard"
    assert deployments["relay"]["spec"]["strategy"]["type"] == "Recreate"


# What this repo's ScaledObjects may use: a small documented check in place of KEDA's CRD
# schema (not shipped with kubernetes-validate). Field names are KEDA 2.x's ScaledObject.
KEDA_SPEC_KEYS = {
    "scaleTargetRef",
    "minReplicaCount",
    "maxReplicaCount",
    "pollingInterval",
    "cooldownPeriod",
    "fallback",
    "triggers",
}
REDIS_STREAMS_KEYS = {
    "address",
    "databaseIndex",
    "stream",
    "consumerGroup",
    "lagCount",
    "activationLagCount",
}


def _check_scaled_object(so: dict[str, Any], deployments: dict[str, dict[str, Any]]) -> None:
    """Fail unless a KEDA ScaledObject is well formed and scales a bot pool on its lag."""
    name = so["metadata"]["name"]
    assert so["kind"] == "ScaledObject" and so["apiVersion"] == KEDA_API, name
    spec = so["spec"]
    assert set(spec) <= KEDA_SPEC_KEYS, f"{name}: unknown {set(spec) - KEDA_SPEC_KEYS}"
    ref = spec["scaleTargetRef"]
    assert (ref["apiVersion"], ref["kind"]) == ("apps/v1", "Deployment"), name
    assert ref["name"] in deployments and ref["name"] in KEDA_SCALED, name
    assert "replicas" not in deployments[ref["name"]]["spec"], f"{name}: KEDA owns replicas"
    assert 1 <= spec["minReplicaCount"] < spec["maxReplicaCount"], name
    fallback = spec["fallback"]
    assert fallback["failureThreshold"] >= 1, name
    assert spec["minReplicaCount"] <= fallback["replicas"] <= spec["maxReplicaCount"], name
    by_type = {t["type"]: t for t in spec["triggers"]}
    assert set(by_type) == {"redis-streams", "cpu"}, name
    meta = by_type["redis-streams"]["metadata"]
    assert set(meta) <= REDIS_STREAMS_KEYS, f"{name}: unknown {set(meta) - REDIS_STREAMS_KEYS}"
    assert all(isinstance(v, str) for v in meta.values()), f"{name}: metadata values are strings"
    assert int(meta["lagCount"]) > 0 and int(meta["activationLagCount"]) >= 0, name
    # The group and stream the pool's workers really consume.
    assert meta["consumerGroup"] == bot_pool(ref["name"])[1], name
    assert meta["stream"] == feed_key("fallen", 0), name
    assert re.fullmatch(r"[\w.-]+:\d+", meta["address"]), name
    cpu = by_type["cpu"]
    assert cpu["metricType"] == "Utilization" and 0 < int(cpu["metadata"]["value"]) <= 100, name


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_keda_scaled_objects(target: str, rendered: dict[str, list[dict[str, Any]]]) -> None:
    docs = rendered[target]
    scaled = _by_kind(docs, "ScaledObject")
    hpa_targets = {
        h["spec"]["scaleTargetRef"]["name"]
        for h in _by_kind(docs, "HorizontalPodAutoscaler").values()
    }
    # prod scales the bot pool with KEDA; base and dev keep the CPU HPA (no KEDA needed).
    assert set(scaled) == (KEDA_SCALED if target == "prod" else set()), target
    deployments = _by_kind(docs, "Deployment")
    for so in scaled.values():
        _check_scaled_object(so, deployments)
        assert so["spec"]["scaleTargetRef"]["name"] not in hpa_targets, "two autoscalers"
    assert not [
        d for d in docs if d["apiVersion"].startswith("keda.sh") and d["kind"] != "ScaledObject"
    ]


def test_a_malformed_scaled_object_is_refused(rendered: dict[str, list[dict[str, Any]]]) -> None:
    """The schema-less check above can fail: a wrong group or a stray field is caught."""
    deployments = _by_kind(rendered["prod"], "Deployment")
    good = _by_kind(rendered["prod"], "ScaledObject")["bots-worlds"]
    wrong_group = copy.deepcopy(good)
    wrong_group["spec"]["triggers"][0]["metadata"]["consumerGroup"] = "bots"
    stray = copy.deepcopy(good)
    stray["spec"]["minReplicas"] = 2
    for bad in (wrong_group, stray):
        with pytest.raises(AssertionError):
            _check_scaled_object(bad, deployments)


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_bot_pools_play_through_their_rules_service(
    target: str, compose: dict[str, Any], rendered: dict[str, list[dict[str, Any]]]
) -> None:
    docs = rendered[target]
    services = _by_kind(docs, "Service")
    configmaps = _by_kind(docs, "ConfigMap")
    # every dedicated bot pool `fallenctl serve` knows is deployed, with its own rules pool
    assert {p: r for p, r in BOT_POOLS.items() if r} == BOT_RULES
    for pool, rules in BOT_RULES.items():
        container = _pod_spec(_by_kind(docs, "Deployment")[pool])["containers"][0]
        env = _container_env(container, configmaps)
        assert env["FALLEN_RULES_ADDR"] == f"{rules}:{GRPC_PORT}", (target, pool)
        # a rules pool serves no views: the bots read them from the projections read API
        assert env["FALLEN_PROJECTIONS_ADDR"] == f"projections:{GRPC_PORT}", (target, pool)
        assert "projections" in services, target
        assert rules in services, (target, rules)
        assert env["FALLEN_STORE"].startswith("redis://"), "the workers read the Redis feed"
        svc = compose["services"][pool]
        assert svc["environment"]["FALLEN_RULES_ADDR"] == f"{rules}:{GRPC_PORT}", pool
        assert svc["environment"]["FALLEN_PROJECTIONS_ADDR"] == f"projections:{GRPC_PORT}", pool
        assert svc["depends_on"][rules] == {"condition": "service_healthy"}, pool
        assert svc["depends_on"]["projections"] == {"condition": "service_healthy"}, pool
        assert "ports" not in svc, f"{pool}: nothing for clients"
        # one replica each, capped, so the pools leave the rules services room on a small host
        assert svc.get("deploy", {}).get("replicas", 1) == 1, pool
        assert 0 < float(svc["cpus"]) <= 1 and svc["mem_limit"], pool


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_pools_called_inside_the_cluster_are_headless(
    target: str, rendered: dict[str, list[dict[str, Any]]]
) -> None:
    # a headless Service's name resolves to every ready replica, and internal clients
    # (dns:/// targets, round_robin) spread their calls over them; a ClusterIP would pin a
    # client's long-lived HTTP/2 connection to one replica
    services = _by_kind(rendered[target], "Service")
    for name in ("dice", "deck", "projections", *{r for r in BOT_RULES.values()}):
        assert services[name]["spec"].get("clusterIP") == "None", (target, name)


def test_worker_partitions_bound_scaling() -> None:
    """The by-game topic and the relayed topics have the partitions the docs promise."""
    assert BY_GAME_PARTITIONS == RELAY_PARTITIONS == 4
    readme = (DEPLOY / "README.md").read_text()
    assert f"{BY_GAME_PARTITIONS} partitions" in readme


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_services_and_budgets_select_existing_workloads(
    target: str, rendered: dict[str, list[dict[str, Any]]]
) -> None:
    docs = rendered[target]
    workloads = [d for d in docs if d["kind"] in WORKLOAD_KINDS]

    def matching(selector: dict[str, str]) -> list[dict[str, Any]]:
        return [
            w
            for w in workloads
            if selector.items() <= w["spec"]["template"]["metadata"]["labels"].items()
        ]

    for w in workloads:
        labels = w["spec"]["template"]["metadata"]["labels"]
        assert w["spec"]["selector"]["matchLabels"].items() <= labels.items()
    for name, svc in _by_kind(docs, "Service").items():
        hits = matching(svc["spec"]["selector"])
        assert len(hits) == 1, f"Service {name} selects {len(hits)} workloads"
        assert hits[0]["metadata"]["name"] not in WORKERS, f"Service {name} selects a worker"
        ports = {
            p["name"]: p["containerPort"] for p in _pod_spec(hits[0])["containers"][0]["ports"]
        }
        for port in svc["spec"]["ports"]:
            tp = port["targetPort"]
            assert tp in ports or tp in ports.values(), f"Service {name}: targetPort {tp}"
    for name, pdb in _by_kind(docs, "PodDisruptionBudget").items():
        assert len(matching(pdb["spec"]["selector"]["matchLabels"])) == 1, f"PDB {name}"
    # Every service address in the config points at a Service of this render.
    services = _by_kind(docs, "Service")
    for cm in _by_kind(docs, "ConfigMap").values():
        for key, value in cm["data"].items():
            if key.endswith("_ADDR"):
                host, port = value.rsplit(":", 1)
                assert host in services and int(port) == GRPC_PORT, (key, value)


def _replicas(docs: list[dict[str, Any]]) -> dict[str, int]:
    """Return the replica count of each Deployment (HPA minimum for HPA-managed ones)."""
    out = {n: d["spec"].get("replicas") for n, d in _by_kind(docs, "Deployment").items()}
    for hpa in _by_kind(docs, "HorizontalPodAutoscaler").values():
        out[hpa["spec"]["scaleTargetRef"]["name"]] = hpa["spec"]["minReplicas"]
    for so in _by_kind(docs, "ScaledObject").values():
        out[so["spec"]["scaleTargetRef"]["name"]] = so["spec"]["minReplicaCount"]
    return {k: int(v) for k, v in out.items()}


def test_overlays_size_and_wiring(rendered: dict[str, list[dict[str, Any]]]) -> None:
    dev, prod = rendered["dev"], rendered["prod"]
    dev_reps, prod_reps = _replicas(dev), _replicas(prod)
    assert max(dev_reps.values()) <= 1
    assert dev_reps["relay"] == 0, "no Kafka in dev"
    assert all(dev_reps[n] == 0 for n in WORKERS), "no Kafka in dev: no faust workers"
    names = (*FALLEN_SERVICES, *WORKERS)
    assert all(prod_reps[n] >= max(dev_reps[n], 1) for n in names), prod_reps
    assert sum(prod_reps.values()) > sum(dev_reps.values())
    dev_hpa, prod_hpa = (_by_kind(d, "HorizontalPodAutoscaler") for d in (dev, prod))
    prod_keda = _by_kind(prod, "ScaledObject")
    for name in dev_hpa:
        assert dev_hpa[name]["spec"]["maxReplicas"] <= 2
        prod_max = (
            prod_keda[name]["spec"]["maxReplicaCount"]
            if name in KEDA_SCALED
            else prod_hpa[name]["spec"]["maxReplicas"]
        )
        assert prod_max > dev_hpa[name]["spec"]["maxReplicas"], name
    assert {d["metadata"]["namespace"] for d in dev} == {"fallen-dev"}
    assert {d["metadata"]["namespace"] for d in prod} == {"fallen"}
    dev_cfg = _by_kind(dev, "ConfigMap")["fallen-config"]["data"]
    prod_cfg = _by_kind(prod, "ConfigMap")["fallen-config"]["data"]
    assert dev_cfg["FALLEN_STORE"] == "redis://redis:6379/0"
    assert "redis" in _by_kind(dev, "StatefulSet") and "redis" in _by_kind(dev, "Service")
    assert "StatefulSet" not in {d["kind"] for d in prod}, "prod uses managed Redis/Kafka"
    assert prod_cfg["FALLEN_STREAM"].startswith("kafka://")
    assert prod_cfg["FALLEN_STORE"].startswith("redis://")
    prod_images = {
        c["image"]
        for d in _by_kind(prod, "Deployment").values()
        for c in _pod_spec(d)["containers"]
    }
    assert len(prod_images) == 1 and not prod_images.pop().endswith((":dev", ":latest"))
    for name in sorted(POOL_HPA | PROD_ONLY_HPA):
        prod_lim = _pod_spec(_by_kind(prod, "Deployment")[name])["containers"][0]["resources"]
        dev_lim = _pod_spec(_by_kind(dev, "Deployment")[name])["containers"][0]["resources"]
        assert _quantity(prod_lim["limits"]["memory"]) > _quantity(dev_lim["limits"]["memory"])
    for name in sorted(POOL_HPA):
        prod_lim = _pod_spec(_by_kind(prod, "Deployment")[name])["containers"][0]["resources"]
        dev_lim = _pod_spec(_by_kind(dev, "Deployment")[name])["containers"][0]["resources"]
        assert _quantity(prod_lim["limits"]["cpu"]) > _quantity(dev_lim["limits"]["cpu"])


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_projections_mode_matches_the_runners(
    target: str, rendered: dict[str, list[dict[str, Any]]]
) -> None:
    """Embedded: one pod runs the runners, no workers. External: faust workers on Kafka."""
    docs = rendered[target]
    deployments = _by_kind(docs, "Deployment")
    configmaps = _by_kind(docs, "ConfigMap")
    hpas = _hpa_scaled(docs)

    def env_of(name: str) -> dict[str, str]:
        return _container_env(_pod_spec(deployments[name])["containers"][0], configmaps)

    def runs(name: str) -> bool:
        return name in hpas or deployments[name]["spec"].get("replicas", 1) > 0

    api = env_of("projections")
    mode = api.get("FALLEN_PROJECTIONS", wiring.EMBEDDED)
    assert mode in (wiring.EMBEDDED, wiring.EXTERNAL), mode
    views = api["FALLEN_VIEWS"]
    assert type(open_view_store(views)).__name__ == "RedisViewStore", views
    assert views != api["FALLEN_STORE"], "views in their own Redis DB"
    for worker in WORKERS:
        wenv = env_of(worker)
        assert wenv["FALLEN_VIEWS"] == views and wenv["FALLEN_STORE"] == api["FALLEN_STORE"]
    api_dep = deployments["projections"]
    if mode == wiring.EMBEDDED:
        # One runner per shard, and the Redis view store relies on it: never two pods.
        assert "projections" not in hpas and api_dep["spec"].get("replicas", 1) <= 1, target
        assert api_dep["spec"]["strategy"]["type"] == "Recreate", target
        assert not any(runs(w) for w in WORKERS), f"{target}: embedded runners and workers"
    else:
        assert any(runs(w) for w in WORKERS), f"{target}: external but no faust worker runs"
        assert api["FALLEN_STREAM"].startswith("kafka://"), target
    assert target != "prod" or mode == wiring.EXTERNAL, "prod uses the faust workers"
    assert target != "dev" or mode == wiring.EMBEDDED, "dev has no Kafka"


def test_readme_documents_the_operator_steps() -> None:
    text = (DEPLOY / "README.md").read_text()
    for needle in (
        "kubectl apply -k deploy/overlays/prod",
        SECRET_NAME,
        "jwt-secret",
        "rules-fallen",
        "hpa-rules-fallen-patch.yaml",
        "hpa-projections-worker.yaml",
        *WORKERS,
        "FALLEN_PROJECTIONS",
        "FALLEN_VIEWS",
        *sorted(BOT_RULES),
        "KEDA",
        *(f"keda-{pool}.yaml" for pool in sorted(BOT_RULES)),
        "not tested",
    ):
        assert needle in text, needle


# --------------------------------------------------------------------------- CLI contract

# Read outside `fallenctl serve`'s options: the JWT key (services.platform.auth), and the
# projections settings (services.projections.wiring; FALLEN_VIEWS is also the worker's
# --views).
NON_OPTION_ENV = {
    "FALLEN_JWT_SECRET",
    "FALLEN_PROJECTIONS",
    "FALLEN_VIEWS",
    heartbeat.ENV,  # the worker's liveness file (services/platform/heartbeat.py)
    seeds.SEED_WAIT_ENV,  # how long chance waits for client seeds (services/dice/seeds.py)
}


def test_non_option_env_is_read_where_claimed() -> None:
    source = inspect.getsource(wiring)
    assert '"FALLEN_PROJECTIONS"' in source and '"FALLEN_VIEWS"' in source
    assert heartbeat.ENV == "FALLEN_HEARTBEAT_FILE"
    assert seeds.SEED_WAIT_ENV == "FALLEN_SEED_WAIT_S"


def _cli_command(path: tuple[str, ...]) -> Any:
    """Return the click command of `fallenctl <path...>` (e.g. ("projections", "faust"))."""
    command = typer.main.get_command(fallenctl)
    for part in path:
        commands = getattr(command, "commands", {})
        assert part in commands, f"`fallenctl {' '.join(path)}`: no {part!r}"
        command = commands[part]
    assert not hasattr(command, "commands"), f"`fallenctl {' '.join(path)}` is a group"
    return command


def _serve_command() -> Any:
    """Return the click command behind `fallenctl serve`."""
    return _cli_command(SERVE[1:])


def _project_containers(
    compose: dict[str, Any], rendered: dict[str, list[dict[str, Any]]]
) -> list[tuple[str, str, tuple[str, ...], list[str], dict[str, str], bool]]:
    """Return (where, name, program, argv, env, runs) of everything running the image.

    program is the ENTRYPOINT (the image's `fallenctl serve` unless overridden), argv the
    arguments after it, env the container's environment ($(VAR) in argv is expanded for
    Kubernetes), runs whether it has replicas (or an HPA).
    """
    out = [
        (
            "compose",
            name,
            tuple(svc.get("entrypoint") or SERVE),
            [str(a) for a in svc["command"]],
            {str(k): str(v) for k, v in svc["environment"].items()},
            True,
        )
        for name, svc in compose["services"].items()
        if str(svc.get("image", "")).startswith("fallen-backend")
    ]
    for target, docs in rendered.items():
        configmaps = _by_kind(docs, "ConfigMap")
        hpas = _hpa_scaled(docs)
        for name, dep in _by_kind(docs, "Deployment").items():
            runs = name in hpas or dep["spec"].get("replicas", 1) > 0
            for c in _pod_spec(dep)["containers"]:
                if str(c["image"]).rsplit("/", 1)[-1].startswith("fallen-backend"):
                    env = _container_env(c, configmaps)
                    argv = [_expand(str(a), env) for a in c["args"]]
                    out.append((target, name, tuple(c.get("command") or SERVE), argv, env, runs))
    return out


def test_every_service_name_is_accepted_by_the_cli(
    compose: dict[str, Any], rendered: dict[str, list[dict[str, Any]]]
) -> None:
    accepted = set(SINGLE_SERVICES) | {ALL}
    assert set(FALLEN_SERVICES) <= set(SINGLE_SERVICES)
    assert not set(WORKERS) & accepted, "a worker name must not shadow a service"
    containers = _project_containers(compose, rendered)
    assert {n for w, n, *_ in containers if w == "compose"} == set(FALLEN_SERVICES) | set(WORKERS)
    used: set[str] = set()
    for where, name, program, argv, _env, _runs in containers:
        if name in WORKERS:
            assert program == WORKERS[name], f"{where} {name}: runs {program}"
            assert program[0] == "fallenctl"
            _cli_command(program[1:])  # an existing fallenctl command, not a group
            assert argv and argv[0].startswith("-"), f"{where} {name}: no positional argument"
            continue
        assert program == SERVE, f"{where} {name}: keep the image ENTRYPOINT"
        assert argv and not argv[0].startswith("-"), f"{where} {name}: no service argument"
        assert argv[0] == name, f"{where} {name}: serves {argv[0]}"
        used |= {name, argv[0]}
    for docs in rendered.values():
        used |= _hpa_scaled(docs)
        used |= set(_by_kind(docs, "PodDisruptionBudget"))
    unknown = used - accepted - set(WORKERS)
    assert not unknown, f"not services of `fallenctl serve` nor workers: {sorted(unknown)}"
    assert set(FALLEN_SERVICES) <= used, f"not deployed: {sorted(set(FALLEN_SERVICES) - used)}"


def _flags(argv: list[str]) -> list[str]:
    """Return the option names in an argument list."""
    return [a.split("=", 1)[0] for a in argv if a.startswith("-")]


def test_flags_and_environment_match_the_cli(
    compose: dict[str, Any], rendered: dict[str, list[dict[str, Any]]]
) -> None:
    serve = _serve_command()
    options = {opt for p in serve.params for opt in p.opts if opt.startswith("--")}
    envvars = {p.envvar for p in serve.params if getattr(p, "envvar", None)}
    assert {"--address", "--metrics-port", "--store", "--stream", "--dice"} <= options
    assert {"FALLEN_STORE", "FALLEN_STREAM", "FALLEN_DICE_ADDR", "FALLEN_METRICS_PORT"} <= envvars
    known_env = envvars | NON_OPTION_ENV
    for where, name, program, argv, env, runs in _project_containers(compose, rendered):
        if name in WORKERS:
            command = _cli_command(program[1:])
            w_options = {opt for p in command.params for opt in p.opts if opt.startswith("--")}
            w_envvars = {p.envvar for p in command.params if getattr(p, "envvar", None)}
            flags = _flags(argv)
            assert set(flags) <= w_options, f"{where} {name}: unknown {set(flags) - w_options}"
            fallen_keys = {k for k in env if k.startswith("FALLEN_")}
            unknown = fallen_keys - known_env - w_envvars
            assert not unknown, f"{where} {name}: {sorted(unknown)}"
            for p in command.params:
                if p.required:
                    given = any(o in flags for o in p.opts) or (p.envvar and p.envvar in env)
                    assert given, f"{where} {name}: {p.opts[0]} missing"
            kafka = argv[argv.index("--kafka") + 1] if "--kafka" in argv else env["FALLEN_KAFKA"]
            if runs:
                assert re.fullmatch(r"(kafka://)?[\w.-]+:\d+", kafka), (where, name, kafka)
            continue
        flags = _flags(argv[1:])
        assert set(flags) <= options, f"{where} {name}: unknown flags {set(flags) - options}"
        for flag in ("--address", "--metrics-port"):
            assert flag in argv and argv.index(flag) + 1 < len(argv), (where, name, flag)
        fallen_keys = {k for k in env if k.startswith("FALLEN_")}
        assert fallen_keys <= known_env, f"{where} {name}: {sorted(fallen_keys - known_env)}"
        assert "FALLEN_JWT_SECRET" in env, (where, name)
        if name in NEEDS_DICE:
            assert env.get("FALLEN_DICE_ADDR") or "--dice" in argv, (where, name)
        if name in NEEDS_DECK:
            assert env.get("FALLEN_DECK_ADDR") or "--deck" in argv, (where, name)
        stream = str(env.get("FALLEN_STREAM", "memory"))
        assert stream in ("memory", "redis") or stream.startswith("kafka://"), (where, name)
        if name == "relay" and runs:
            assert stream.startswith("kafka://"), f"{where}: a running relay needs Kafka"
    for target, docs in rendered.items():
        for cm_name, doc in _by_kind(docs, "ConfigMap").items():
            if cm_name.startswith("fallen"):
                keys = set(doc["data"])
                assert keys <= known_env, f"{target} {cm_name}: {sorted(keys - known_env)}"


# --------------------------------------------------------------------------- Dockerfile


def _instructions(path: Path) -> list[tuple[str, str]]:
    """Return the (INSTRUCTION, arguments) pairs of a Dockerfile, continuations joined."""
    out: list[tuple[str, str]] = []
    pending = ""
    for raw in path.read_text().splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if pending and line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        full = (pending + line).strip()
        pending = ""
        op, _, args = full.partition(" ")
        out.append((op.upper(), args.strip()))
    assert not pending, "dangling line continuation"
    return out


@pytest.fixture(scope="module")
def dockerfile() -> list[tuple[str, str]]:
    """Return the Dockerfile's instructions."""
    return _instructions(ROOT / "Dockerfile")


def _final_stage(instructions: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Return the instructions of the last build stage."""
    starts = [i for i, (op, _) in enumerate(instructions) if op == "FROM"]
    return instructions[starts[-1] :]


def test_dockerfile_base_user_entrypoint(dockerfile: list[tuple[str, str]]) -> None:
    froms = [args.split()[0] for op, args in dockerfile if op == "FROM"]
    assert froms and all(f.startswith("python:3.11") for f in froms), froms
    final = _final_stage(dockerfile)
    users = [args for op, args in final if op == "USER"]
    assert users, "the runtime stage must set USER"
    user = users[-1].split(":")[0]
    assert user not in ("root", "0"), user
    entry = [args for op, args in final if op == "ENTRYPOINT"]
    assert entry and json.loads(entry[-1]) == ["fallenctl", "serve"]
    health = [args for op, args in final if op == "HEALTHCHECK"]
    assert health and "services.platform.healthcheck" in health[-1]
    assert json.loads(health[-1].split("CMD", 1)[1].strip())[:3] == [
        "python",
        "-m",
        "services.platform.healthcheck",
    ]
    exposed = {p.split("/")[0] for op, args in final if op == "EXPOSE" for p in args.split()}
    assert {str(GRPC_PORT), str(METRICS_PORT)} <= exposed
    env = " ".join(args for op, args in final if op == "ENV")
    assert "PYTHONPATH=/app/gen:/app" in env
    cmd = [args for op, args in final if op == "CMD"]
    assert cmd and "0.0.0.0:50051" in json.loads(cmd[-1]), "default CMD must listen on all"
    runtime_runs = " ".join(args for op, args in final if op == "RUN")
    assert "grpcio-tools" not in runtime_runs, "codegen tools belong to the build stage"


def test_dockerfile_copies_only_what_dockerignore_keeps(dockerfile: list[tuple[str, str]]) -> None:
    ignored = {
        line.strip().rstrip("/")
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    assert {".git", ".venv", "gen"} <= ignored
    for op, args in dockerfile:
        if op == "COPY" and "--from=" not in args:
            *sources, _dest = args.split()
            for src in sources:
                assert (ROOT / src).exists(), f"COPY source {src} missing"
                assert src.rstrip("/") not in ignored, f"COPY source {src} is .dockerignored"
    run = " ".join(args for op, args in dockerfile if op == "RUN")
    assert "requirements.lock" in run, "dependencies must be pinned by the lock"
    assert "grpc_tools.protoc" in run and "/app/gen" in run


def test_healthcheck_module_is_importable() -> None:
    from services.platform import healthcheck

    assert callable(healthcheck.main)
    assert healthcheck.DEFAULT_ADDR == f"127.0.0.1:{GRPC_PORT}"
