"""Read the grpcurl walkthrough of docs/clients.md and run it the way grpcurl would.

grpcurl is not installable on every machine that runs the tests (it is a Go binary from
GitHub releases), so the test plays its part: each `grpcurl` command of the walkthrough is
parsed (flags, headers, the -d JSON body, target, method) and sent with the generated
descriptors, the answer printed as proto3 JSON as grpcurl prints it; the `#   ...` comment
lines under a command are the sample output the answer must agree with.
"""

from __future__ import annotations

import importlib
import json
import re
import shlex
from dataclasses import dataclass, field
from typing import Any

import grpc
from google.protobuf import descriptor_pool, json_format, message_factory

MODULES = ("dice", "deck", "rules", "projections", "matchmaking")


@dataclass(frozen=True)
class Call:
    """One grpcurl command of the walkthrough and the sample output under it."""

    args: list[str]
    sample: list[str] = field(default_factory=list)

    def flag(self, name: str) -> list[str]:
        """Return every value given to a flag (e.g. -H, -d)."""
        return [self.args[i + 1] for i, a in enumerate(self.args[:-1]) if a == name]

    def positional(self) -> list[str]:
        """Return the words after the flags: target, then verb or method and its argument."""
        out, skip = [], False
        for word in self.args[1:]:
            if skip:
                skip = False
            elif word in ("-H", "-d"):
                skip = True
            elif not word.startswith("-"):
                out.append(word)
        return out


def walkthrough(text: str) -> list[Call]:
    """Return the grpcurl commands of the guide's grpcurl section, with their samples."""
    section = text.split("## 4. With grpcurl", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    calls: list[Call] = []
    pending = ""
    for line in section.splitlines():
        stripped = line.strip()
        if stripped.startswith("#") and calls and not pending:
            calls[-1].sample.append(stripped.lstrip("#").strip())
            continue
        pending += line.split("  #", 1)[0] if not pending.count("'") % 2 else line
        if pending.rstrip().endswith("\\"):
            pending = pending.rstrip()[:-1] + " "
            continue
        if pending.count("'") % 2:
            pending += "\n"
            continue
        words = shlex.split(pending, comments=False) if pending.strip() else []
        pending = ""
        if words and words[0] == "grpcurl":
            calls.append(Call(words))
    return calls


def load_descriptors() -> descriptor_pool.DescriptorPool:
    """Import every generated module so the default pool knows every service."""
    for name in MODULES:
        importlib.import_module(f"fallen.{name}.v1.{name}_pb2")
    return descriptor_pool.Default()


def invoke(channel: grpc.Channel, call: Call, env: dict[str, str]) -> dict[str, Any]:
    """Send one method call of the walkthrough; return the (first) answer as grpcurl JSON."""
    pool = load_descriptors()
    method_path = call.positional()[1]
    service_name, method_name = method_path.rsplit("/", 1)
    method = pool.FindServiceByName(service_name).FindMethodByName(method_name)
    request_cls = message_factory.GetMessageClass(method.input_type)
    response_cls = message_factory.GetMessageClass(method.output_type)
    body = call.flag("-d")[0] if call.flag("-d") else "{}"
    request = json_format.Parse(body, request_cls())
    metadata = []
    for header in call.flag("-H"):
        key, _, value = header.partition(":")
        metadata.append((key.strip(), re.sub(r"\$(\w+)", lambda m: env[m.group(1)], value.strip())))
    path = f"/{service_name}/{method_name}"
    if method.server_streaming:
        stream = channel.unary_stream(path, request_cls.SerializeToString, response_cls.FromString)(
            request, metadata=metadata, timeout=10
        )
        first = next(iter(stream))
        stream.cancel()
        return json_format.MessageToDict(first)
    unary = channel.unary_unary(path, request_cls.SerializeToString, response_cls.FromString)
    return json_format.MessageToDict(unary(request, metadata=metadata, timeout=10))


def sample_pairs(sample: list[str]) -> list[tuple[str, str]]:
    """Return the `"key": "value"` string pairs a sample output names ("..." = elided)."""
    pairs = re.findall(r'"(\w+)": "([^"]*)"', " ".join(sample))
    return [(k, v) for k, v in pairs if v != "..."]


def has_pair(answer: Any, key: str, value: str) -> bool:
    """Return whether the answer holds key: value anywhere (proto3 JSON, nested)."""
    if isinstance(answer, dict):
        if key in answer and json.dumps(answer[key]).strip('"') == value:
            return True
        return any(has_pair(v, key, value) for v in answer.values())
    if isinstance(answer, list):
        return any(has_pair(v, key, value) for v in answer)
    return False
