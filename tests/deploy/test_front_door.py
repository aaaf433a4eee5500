"""The one public address: compose's door (deploy/door) and Kubernetes' (deploy/gateway).

What each routes where, checked against the protos, the rules pools, the compose file and
the base manifests; the ingress-nginx render against the Kubernetes schemas. The door runs
for real in `make stack-test` (tests/stack/test_door.py).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml
from fallen.dice.v1 import dice_pb2
from fallen.matchmaking.v1 import matchmaking_pb2
from fallen.projections.v1 import projections_pb2
from fallen.rules.v1 import rules_pb2

from services.rules.pools import POOL_HEADER, POOLS
from tests.deploy.test_manifests import _k8s_versions, render

ROOT = Path(__file__).resolve().parents[2]
DOOR = ROOT / "deploy" / "door"
GATEWAY = ROOT / "deploy" / "gateway"
# The dice service's player calls (docs/clients.md); the rest are the services' own.
PLAYER_DICE = {"SetClientSeed", "Reveal", "Verify", "ListKinds"}
INTERNAL_DICE = {"CommitSeed", "Roll", "Shuffle"}
DEDICATED_POOLS = {name for name, spec in POOLS.items() if spec is not None}
PUBLIC_SERVICES = {
    "fallen.projections.v1.ProjectionService",
    "fallen.matchmaking.v1.MatchmakingService",
    "fallen.rules.v1.RulesService",
    "fallen.dice.v1.DiceService",
    "grpc.health.v1.Health",
}


def _docs(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


@pytest.fixture(scope="module")
def base_services() -> dict[str, set[int]]:
    """Return the base Services and their ports."""
    docs = render(ROOT / "deploy" / "base")
    return {
        d["metadata"]["name"]: {p["port"] for p in d["spec"]["ports"]}
        for d in docs
        if d["kind"] == "Service"
    }


def test_the_dice_player_calls_and_internal_calls_are_every_dice_rpc():
    methods = set(dice_pb2.DESCRIPTOR.services_by_name["DiceService"].methods_by_name)
    assert PLAYER_DICE | INTERNAL_DICE == methods and not PLAYER_DICE & INTERNAL_DICE
    served = {
        s.full_name
        for module in (dice_pb2, rules_pb2, projections_pb2, matchmaking_pb2)
        for s in module.DESCRIPTOR.services_by_name.values()
    }
    assert PUBLIC_SERVICES - {"grpc.health.v1.Health"} <= served


# --------------------------------------------------------------------------- compose door


def test_the_compose_door_maps_every_pool_header_to_its_pool_and_nothing_else():
    conf = (DOOR / "nginx.conf").read_text()
    block = re.search(r"map \$http_x_fallen_pool \$fallen_pool \{(.*?)\}", conf, re.S)
    assert block, "nginx.conf: no map of the x-fallen-pool header"
    entries = dict(re.findall(r"^\s*(\S+)\s+(\S*?);", block.group(1), re.M))
    assert entries.pop("default") == '""'
    assert entries == {p: p for p in DEDICATED_POOLS}
    assert POOL_HEADER == "x-fallen-pool"


def test_the_compose_door_routes_only_to_services_of_the_compose_file():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    routes = (DOOR / "grpc-routes.conf").read_text() + (DOOR / "nginx.conf").read_text()
    targets = set(re.findall(r"set \$\w+ (\$?[\w-]+)\$fallen_domain:(\d+);", routes))
    names = {name for name, _ in targets if not name.startswith("$")}
    assert names == {"projections", "matchmaking", "dice"}
    assert {name for name, _ in targets if name.startswith("$")} == {"$fallen_pool"}
    assert names | DEDICATED_POOLS <= set(compose)
    assert set(compose["door"]["depends_on"]) == names | DEDICATED_POOLS


def test_the_compose_door_serves_player_rpcs_and_refuses_internal_ones():
    routes = (DOOR / "grpc-routes.conf").read_text()
    errors = (DOOR / "grpc-errors.conf").read_text()
    locations = dict(re.findall(r"location (?:~ )?(\S+) \{(.*?)\n\}", routes, re.S))
    dice = next(k for k in locations if k.startswith("^/fallen\\.dice"))
    assert set(re.search(r"\((.*?)\)", dice).group(1).split("|")) == PLAYER_DICE
    for refused in ("/fallen.dice.v1.DiceService/", "/fallen.deck.v1.DeckService/"):
        assert "return 461;" in locations[refused], refused
    assert "error_page 461 = @internal;" in errors and "grpc-status 7 " in errors
    for service in PUBLIC_SERVICES - {"fallen.dice.v1.DiceService"}:
        assert "grpc_pass" in locations[f"/{service}/"], service


# --------------------------------------------------------------------------- Gateway API


def test_the_grpcroute_routes_each_pool_header_and_only_player_rpcs(base_services):
    (route,) = _docs(GATEWAY / "gateway-api" / "grpcroute.yaml")
    pools, dice, services = {}, set(), set()
    for rule in route["spec"]["rules"]:
        (backend,) = rule["backendRefs"]
        assert backend["port"] in base_services[backend["name"]], backend
        for match in rule["matches"]:
            service = match["method"]["service"]
            services.add(service)
            if service == "fallen.rules.v1.RulesService":
                (header,) = match["headers"]
                assert header["name"] == POOL_HEADER
                pools[header["value"]] = backend["name"]
            elif service == "fallen.dice.v1.DiceService":
                dice.add(match["method"]["method"])
            else:
                assert "method" not in match["method"], match
    assert pools == {p: p for p in DEDICATED_POOLS}
    assert dice == PLAYER_DICE
    assert services == PUBLIC_SERVICES


def test_the_gateway_serves_grpc_and_the_page_with_the_tls_secret(base_services):
    (gateway,) = _docs(GATEWAY / "gateway-api" / "gateway.yaml")
    (web,) = _docs(GATEWAY / "gateway-api" / "httproute.yaml")
    listeners = {item["name"]: item for item in gateway["spec"]["listeners"]}
    assert set(listeners) == {"grpc", "web"}
    for listener in listeners.values():
        assert listener["protocol"] == "HTTPS" and listener["tls"]["mode"] == "Terminate"
        assert listener["tls"]["certificateRefs"] == [{"kind": "Secret", "name": "fallen-door-tls"}]
    assert "cert-manager.io/cluster-issuer" in gateway["metadata"]["annotations"]
    (backend,) = web["spec"]["rules"][0]["backendRefs"]
    assert backend == {"name": "projections", "port": 8080} and 8080 in base_services["projections"]
    assert web["spec"]["parentRefs"] == [{"name": "fallen", "sectionName": "web"}]


# --------------------------------------------------------------------------- ingress-nginx


def test_the_ingress_nginx_alternative_is_schema_valid():
    docs = render(GATEWAY / "ingress-nginx")
    assert {d["kind"] for d in docs} == {"Deployment", "Service", "Ingress"}
    for version in _k8s_versions():
        for doc in docs:
            try:
                kubernetes_validate.validate(doc, version, strict=True)
            except kubernetes_validate.ValidationError as exc:
                pytest.fail(f"{doc['kind']}/{doc['metadata']['name']} @ {version}: {exc}")


def test_the_ingress_sends_grpc_paths_to_the_door_and_the_rest_to_the_page():
    docs = {(d["kind"], d["metadata"]["name"]): d for d in render(GATEWAY / "ingress-nginx")}
    grpc_ing, web_ing = docs["Ingress", "fallen-grpc"], docs["Ingress", "fallen-web"]
    assert grpc_ing["metadata"]["annotations"]["nginx.ingress.kubernetes.io/backend-protocol"] == (
        "GRPC"
    )
    paths = [p for r in grpc_ing["spec"]["rules"] for p in r["http"]["paths"]]
    assert {p["path"].lstrip("/") for p in paths} == PUBLIC_SERVICES | {
        "fallen.deck.v1.DeckService"  # refused by the door, not by a 404 of the page
    }
    assert {p["backend"]["service"]["port"]["name"] for p in paths} == {"grpc"}
    (web,) = [p for r in web_ing["spec"]["rules"] for p in r["http"]["paths"]]
    assert web["path"] == "/" and web["backend"]["service"] == {
        "name": "door",
        "port": {"name": "web"},
    }
    for ing in (grpc_ing, web_ing):
        assert ing["spec"]["tls"][0]["secretName"] == "fallen-door-tls"
    door = docs["Deployment", "door"]
    env = {e["name"]: e for e in door["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert env["FALLEN_DOOR_DOMAIN"]["value"] == "$(POD_NAMESPACE).svc.cluster.local"
