"""Building validated, frozen config dataclasses from parsed YAML: types checked, unknown keys refused,
`${VAR}` and `${VAR:-default}` expanded from the environment."""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import types
import typing
from typing import Any

from lakeops.exceptions import ConfigError

_ENV_REF = re.compile(r"\$\{(\w+)(?::-([^}]*))?\}")


def expand_env(value: str, where: str) -> str:
    def replace(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        if os.environ.get(name):
            return os.environ[name]
        if default is None:
            raise ConfigError(f"{where}: environment variable {name} is not set; set it or write ${{{name}:-default}}")
        return default

    return _ENV_REF.sub(replace, value)


def convert(value: Any, hint: Any, where: str) -> Any:
    """`value` as the type `hint` names, or ConfigError naming the key and the expected form."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(hint) if a is not type(None)]
        return None if value is None else convert(value, options[0], where)
    if dataclasses.is_dataclass(hint):
        return build(hint, value, where)
    if origin is tuple:
        if isinstance(value, str) or not isinstance(value, list | tuple):
            raise ConfigError(f"{where}: {value!r} must be a list, e.g. [a, b]")
        return tuple(convert(v, typing.get_args(hint)[0], f"{where}[{i}]") for i, v in enumerate(value))
    if origin is dict:
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: {value!r} must be a mapping of keys to values")
        return {str(k): (expand_env(v, f"{where}.{k}") if isinstance(v, str) else v) for k, v in value.items()}
    if hint is bool:
        if not isinstance(value, bool):
            raise ConfigError(f"{where}: {value!r} must be true or false")
        return value
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{where}: {value!r} must be a whole number")
        return value
    if hint is float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ConfigError(f"{where}: {value!r} must be a number")
        return float(value)
    if hint is str:
        if not isinstance(value, str):
            raise ConfigError(f"{where}: {value!r} must be a string")
        return expand_env(value, where)
    raise TypeError(f"unsupported config type {hint!r} at {where}")


@functools.cache
def _type_hints(cls: Any) -> dict[str, Any]:
    """A config class's resolved field types: resolved once per class (a config with a thousand tables builds
    each policy class a thousand times)."""
    return typing.get_type_hints(cls)


def settable_fields(cls: Any) -> list[str]:
    """The keys a config file may set on `cls`: its init fields."""
    return [f.name for f in dataclasses.fields(cls) if f.init]


def build(cls: Any, data: Any, where: str, **extra: Any) -> Any:
    """An instance of dataclass `cls` from a mapping; `extra` fields are set by the caller, not the file."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{where}: expected a mapping of settings, got {data!r}")
    hints = _type_hints(cls)
    allowed = [name for name in settable_fields(cls) if name not in extra]
    unknown = [k for k in data if k not in allowed]
    if unknown:
        raise ConfigError(f"{where or 'config'}: unknown key {unknown[0]!r}; allowed keys are {', '.join(allowed)}")
    required = [f.name for f in dataclasses.fields(cls) if f.init
                and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING and f.name not in extra]
    missing = [k for k in required if k not in data]
    if missing:
        raise ConfigError(f"{where}: required key {missing[0]!r} is missing; add it (keys: {', '.join(allowed)})")
    kwargs = {k: convert(v, hints[k], f"{where}.{k}" if where else k) for k, v in data.items()}
    return cls(**kwargs, **extra)
