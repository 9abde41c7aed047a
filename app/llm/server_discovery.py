"""Inference servers already running on this machine, found at their usual loopback ports.

Each port is asked GET /v1/models once, all ports at the same time, with a short timeout; a
server that is down (refused, silent, or answering something else) is simply absent. Ollama's own
/api/tags adds sizes and quantizations its OpenAI listing leaves out.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

from app.llm.base import ModelInfo
from app.llm.server_backend import DIALECT_NAME, ServerModelRef, list_server_models
from app.llm.server_http import ServerAddress, ServerError, get_json
from app.settings import Settings

KNOWN_PORTS = {11434: "ollama", 1234: "lmstudio", 8080: "llama-server"}
LOOPBACK = "127.0.0.1"


def discover_server_models(settings: Settings, host: str = LOOPBACK) -> list[ModelInfo]:
    """Models of every server answering on the configured ports, in port order."""
    ports = list(settings.server_discovery_ports)
    if not ports:
        return []
    with ThreadPoolExecutor(max_workers=len(ports)) as pool:
        found = pool.map(lambda p: _probe(host, p, settings.server_discovery_timeout_s), ports)
        return [info for infos in found for info in infos]


def server_model_infos(address: ServerAddress, timeout_s: float) -> list[ModelInfo]:
    """One server's models as picker entries; ServerError when it does not answer as one."""
    source = KNOWN_PORTS.get(address.port, "server")
    extra = _ollama_details(address, timeout_s) if source == "ollama" else {}
    infos = []
    for model in list_server_models(address, timeout_s):
        details = extra.get(model, {})
        ref = ServerModelRef(address.base_url, model)
        infos.append(ModelInfo(path=ref.key, name=model, size_bytes=int(details.get("size", 0)),
                               parameters=details.get("parameter_size", ""),
                               quantization=details.get("quantization_level", ""),
                               dialect=DIALECT_NAME, source=f"{source} {address.label}"))
    return infos


def _probe(host: str, port: int, timeout_s: float) -> list[ModelInfo]:
    try:
        return server_model_infos(ServerAddress("http", host, port, "/v1"), timeout_s)
    except ServerError:
        return []  # down, or not an inference server: absent


def _ollama_details(address: ServerAddress, timeout_s: float) -> dict[str, dict[str, Any]]:
    """model name -> {size, parameter_size, quantization_level} from Ollama's /api/tags."""
    native = ServerAddress(address.scheme, address.host, address.port, "")
    try:
        data = get_json(native, "/api/tags", timeout_s)
    except ServerError:
        return {}
    out: dict[str, dict[str, Any]] = {}
    for m in data.get("models") or [] if isinstance(data, dict) else []:
        if isinstance(m, dict) and m.get("name"):
            out[m["name"]] = {"size": m.get("size", 0), **(m.get("details") or {})}
    return out
