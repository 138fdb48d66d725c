"""One settings object for the whole harness, in sections, each field read from one CMB_* environment variable.

`CmbSettings()` reads the environment once, at the edge (the command line, a test, a benchmark); the code below it
receives the settings, or the section it needs, as an argument and never reads the environment itself.
`cmb config show` prints every effective value and where it came from.

A section's variables are its prefix plus the field name (`CMB_K8S_NAMESPACE`); a field whose variable predates
the sections names it instead (`CMB_HOME`, `CMB_MANUALS`, `CMB_AGENTS_FILE`). An empty variable means "none" for a
setting that may be none (`CMB_K8S_PRIORITY_SINGLE=` drops the priority class) and the default for the others.
"""

from __future__ import annotations

import os
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, SecretStr, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

DEFAULT_IMAGE = "cmb-agent:full"  # deploy/image: build-local.sh full (no registry) or the Dockerfile

DEFAULT, ARGUMENT = "default", "argument"  # sources of a value besides an environment variable


def _discover_root() -> Path:
    """The suite root: the current folder if it holds tasks/, else the source checkout cmb was installed from."""
    cwd = Path.cwd()
    if (cwd / "tasks").is_dir() and (cwd / "graders").is_dir():
        return cwd
    checkout = Path(__file__).resolve().parents[1]
    if (checkout / "tasks").is_dir():
        return checkout
    return cwd


def _default_manuals() -> Path:
    from cmb.manuals import default_library

    return default_library()


def _may_be_none(field: FieldInfo) -> bool:
    return types.NoneType in typing.get_args(field.annotation)


def _env(name: str) -> dict[str, Any]:
    """A field's own environment variable, when it is not the section's prefix plus the field name."""
    return {"env": name}


class Section(BaseModel):
    """A group of settings, each read from `env_prefix` + its name in capitals unless the field names another."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    env_prefix: ClassVar[str] = "CMB_"

    @classmethod
    def env_name(cls, field: str) -> str:
        """The environment variable of one field."""
        extra = cls.model_fields[field].json_schema_extra
        if isinstance(extra, dict) and isinstance(extra.get("env"), str):
            return str(extra["env"])
        return f"{cls.env_prefix}{field.upper()}"

    @classmethod
    def values_from(cls, environ: Mapping[str, str]) -> dict[str, Any]:
        """The section's values that `environ` sets (raw text, validated by the model)."""
        values: dict[str, Any] = {}
        for name, field in cls.model_fields.items():
            text = environ.get(cls.env_name(name))
            if text is None:
                continue
            if text.strip() == "":
                if _may_be_none(field):
                    values[name] = None
                continue
            values[name] = text
        return values


class StoreSettings(Section):
    """Where results live."""

    home: Path = Field(
        default=Path("cmb-data"),
        description="Results (Parquet), mlflow.db, gateway records and per-attempt artifacts",
        json_schema_extra=_env("CMB_HOME"),
    )
    mlflow_uri: str | None = Field(
        default=None,
        description="MLflow tracking URI of a server; none: sqlite <home>/mlflow.db; 'none' turns the mirror off",
        json_schema_extra=_env("CMB_MLFLOW_URI"),
    )


class SandboxSettings(Section):
    """What every sandbox gets. The docker backend finds its engine the Docker client's way (DOCKER_HOST)."""

    env_prefix: ClassVar[str] = "CMB_SANDBOX_"

    image: str = Field(default=DEFAULT_IMAGE, description="Agent image of the docker and kubernetes backends")
    manuals: Path = Field(
        default_factory=_default_manuals,
        description="The offline manuals library (`cmb manuals build`), bound read-only at /opt/manuals; default "
        "$XDG_CACHE_HOME/cmb/manuals (XDG_CACHE_HOME, else ~/.cache, is the XDG convention, read for this default)",
        json_schema_extra=_env("CMB_MANUALS"),
    )
    warm_pool: int = Field(
        default=8,
        ge=0,
        description="Sweeps: sandboxes each launcher process keeps created, started and isolation-checked ahead of "
        "demand, per sandbox shape (one per attempt in flight, at most this many); 0: each attempt makes its own",
    )
    compute_prices: Path | None = Field(
        default=None,
        description="A compute price sheet (YAML, the form of cmb/models/compute_prices.yaml) that prices each "
        "attempt's CPU, memory and nodes; none: the pinned sheet",
    )


class KubernetesSettings(Section):
    """Cluster-side choices of the kubernetes backend (deploy/k8s holds the matching objects).

    The cluster itself is found the Kubernetes client's way: KUBECONFIG, or the pod's service account where
    KUBERNETES_SERVICE_HOST is set; those variables belong to Kubernetes and are read where the client is made.
    """

    env_prefix: ClassVar[str] = "CMB_K8S_"

    namespace: str = Field(default="cmb-agents", description="Namespace of the agent Jobs")
    context: str | None = Field(default=None, description="kubeconfig context; none: the current one")
    schedule_timeout_s: float = Field(
        default=900.0, gt=0, description="Seconds a pod may wait for a node (the cluster autoscaler may add one)"
    )
    start_timeout_s: float = Field(default=600.0, gt=0, description="Seconds a scheduled pod may take to start")
    ttl_s: int = Field(default=600, ge=0, description="Seconds a finished Job is kept (ttlSecondsAfterFinished)")
    priority_single: str | None = Field(default="cmb-single", description="PriorityClass of single-task pods")
    priority_workflow: str | None = Field(default="cmb-workflow", description="PriorityClass of workflow pods")
    workflow_pool: str = Field(default="workflow", description="The cmb/pool label of the workflow node pool")
    pull_policy: str = Field(default="IfNotPresent", description="imagePullPolicy of the agent pods")
    service_account: str | None = Field(
        default="cmb-agent", description="Service account of the pods (deploy/k8s makes it without a token)"
    )
    files_cpu: str = Field(default="100m", description="CPU of the helper container that stages and collects")
    files_memory: str = Field(default="128Mi", description="Memory of the helper container")
    tmp_gib: float = Field(default=1.0, gt=0, description="Size of the pod's /tmp")
    poll_s: float = Field(default=20.0, gt=0, description="Length of one long-polling exec")
    lifetime_factor: float = Field(
        default=2.0, gt=0, description="The pod's deadline: this times the time limit, plus an hour"
    )


class GatewaySettings(Section):
    """How agents reach their models.

    A provider's own key is read from the variable its upstream configuration names (OPENAI_API_KEY, ...): that
    is provider data in the gateway config, not a cmb setting.
    """

    env_prefix: ClassVar[str] = "CMB_GATEWAY_"

    url: str | None = Field(
        default=None,
        description="A gateway already serving (base URL without /v1); none: one is started in-process when an "
        "agent needs it",
    )
    config: Path | None = Field(
        default=None, description="YAML with upstreams, prices, budgets and retries; none: the built-in providers"
    )
    admin_key: SecretStr | None = Field(
        default=None, description="Admin key of a gateway run by `cmb gateway serve`: a token per attempt"
    )


class AgentsSettings(Section):
    """Agents beyond the registered ones."""

    env_prefix: ClassVar[str] = "CMB_AGENTS_"

    files: tuple[Path, ...] = Field(
        default=(),
        description="YAML files of further external agents, separated by ':'",
        json_schema_extra=_env("CMB_AGENTS_FILE"),
    )

    @field_validator("files", mode="before")
    @classmethod
    def _split(cls, v: Any) -> Any:
        if isinstance(v, str):
            return tuple(Path(p.strip()) for p in v.split(os.pathsep) if p.strip())
        return v


SECTIONS: dict[str, type[Section]] = {
    "store": StoreSettings,
    "sandbox": SandboxSettings,
    "kubernetes": KubernetesSettings,
    "gateway": GatewaySettings,
    "agents": AgentsSettings,
}


@dataclass(frozen=True)
class Setting:
    """One effective setting, as `cmb config show` prints it."""

    name: str  # section.field
    value: Any  # JSON-safe; a secret shows as '***'
    source: str  # "default", "argument" or the environment variable that set it
    env: str  # the variable that would set it
    description: str


class _SectionsEnv(PydanticBaseSettingsSource):
    """Reads each field from its own variable (sections are never read whole, as JSON, from CMB_STORE ...)."""

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        return _environment_values(os.environ)


def _environment_values(environ: Mapping[str, str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    root = environ.get("CMB_ROOT", "").strip()
    if root:
        values["root"] = root
    for name, section in SECTIONS.items():
        found = section.values_from(environ)
        if found:
            values[name] = found
    return values


class CmbSettings(BaseSettings):
    """Harness settings: the suite root and one section per concern, read from CMB_* environment variables.

    Variables that belong to other tools stay theirs, read where those tools are used: KUBECONFIG and
    KUBERNETES_SERVICE_HOST (the Kubernetes client), DOCKER_HOST (the Docker client), RAY_ADDRESS (Ray, set inside
    a Ray job), XDG_CACHE_HOME (where the manuals library goes by default), a provider's API key (the variable
    its gateway upstream names).
    """

    model_config = SettingsConfigDict(env_prefix="CMB_", extra="forbid", frozen=True)

    root: Path = Field(
        default_factory=_discover_root,
        description="Suite root holding tasks/, graders/ and references/; default: the current folder if it "
        "holds tasks/, else the checkout cmb was installed from",
    )
    store: StoreSettings = Field(default_factory=StoreSettings, description="Where results live")
    sandbox: SandboxSettings = Field(default_factory=SandboxSettings, description="What every sandbox gets")
    kubernetes: KubernetesSettings = Field(default_factory=KubernetesSettings, description="The kubernetes backend")
    gateway: GatewaySettings = Field(default_factory=GatewaySettings, description="The model gateway")
    agents: AgentsSettings = Field(default_factory=AgentsSettings, description="Agents from YAML files")

    _given: dict[str, Any] = PrivateAttr(default_factory=dict)  # the arguments, to tell their values apart
    _from_env: dict[str, Any] = PrivateAttr(default_factory=dict)  # what the environment set, when read

    def __init__(self, **values: Any) -> None:
        super().__init__(**values)
        self._given = values
        self._from_env = _environment_values(os.environ)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Arguments first, then each field's own environment variable; no .env or secret files."""
        return init_settings, _SectionsEnv(settings_cls)

    def effective(self) -> list[Setting]:
        """Every setting with its value and where the value came from."""
        env = self._from_env
        rows = [
            Setting(
                "root",
                str(self.root),
                ARGUMENT if "root" in self._given else "CMB_ROOT" if "root" in env else DEFAULT,
                "CMB_ROOT",
                _description(type(self).model_fields["root"]),
            )
        ]
        for name, section_cls in SECTIONS.items():
            section: Section = getattr(self, name)
            given = self._given.get(name)
            for field, info in section_cls.model_fields.items():
                variable = section_cls.env_name(field)
                if _given_field(given, field):
                    source = ARGUMENT
                elif field in env.get(name, {}):
                    source = variable
                else:
                    source = DEFAULT
                rows.append(
                    Setting(f"{name}.{field}", _shown(getattr(section, field)), source, variable, _description(info))
                )
        return rows


def _given_field(given: Any, field: str) -> bool:
    if isinstance(given, Mapping):
        return field in given
    if isinstance(given, BaseModel):
        return field in given.model_fields_set
    return False


def _shown(value: Any) -> Any:
    if isinstance(value, SecretStr):
        return "***"
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, tuple):
        return [_shown(v) for v in value]
    return value


def _description(info: FieldInfo) -> str:
    return info.description or ""
