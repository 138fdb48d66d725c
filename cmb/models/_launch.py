"""What launching an attempt takes besides its key and task: the agent named in the key, and the options."""

from __future__ import annotations

from urllib.parse import quote

from pydantic import Field, SecretStr

from cmb.models._base import CmbModel

ATTEMPT_OPTIONS_VERSION = 1


def model_key_form(model: str) -> str:
    """`<upstream>/<model>` in the form an attempt key can hold: `<upstream>:<model with '/' as %2F>`.

    The gateway routes both forms alike; a name without '/' is already in key form.
    """
    upstream, sep, rest = model.partition("/")
    return f"{upstream}:{quote(rest, safe='')}" if sep else model


class AgentRef(CmbModel):
    """A registered agent and the model it drives, if any; `name` or `name@model` in an attempt key."""

    name: str = Field(min_length=1, description="Registered agent name")
    model: str | None = Field(default=None, description="<upstream>/<model>, or its key form <upstream>:<model>")

    @classmethod
    def parse(cls, text: str) -> AgentRef:
        """`codeact@openai:gpt-4o` -> AgentRef(name='codeact', model='openai:gpt-4o')."""
        name, _, model = text.partition("@")
        return cls(name=name, model=model or None)

    def with_model(self, model: str | None) -> AgentRef:
        """The same agent driving `model`, unless it names its own already."""
        return self if model is None or self.model is not None else self.model_copy(update={"model": model})

    @property
    def key(self) -> str:
        """The attempt-key form, which holds no '/'."""
        return f"{self.name}@{model_key_form(self.model)}" if self.model else self.name

    def __str__(self) -> str:
        return self.key


class GatewayEndpoint(CmbModel):
    """Where a model gateway serves, and the keys to use it; empty: no gateway (yet)."""

    url: str | None = Field(default=None, description="Base URL the sandboxes use, without /v1")
    key: str | None = Field(default=None, description="A static key every attempt uses (a gateway run by hand)")
    admin_url: str | None = Field(default=None, description="Where its admin API answers (default: url)")
    admin_key: SecretStr | None = Field(default=None, description="Admin key: a fresh token and a meter per attempt")


class AttemptOptions(CmbModel):
    """How to launch attempts, the same for every attempt of one `cmb run` or one sweep.

    What is not given here comes from the settings (image, gateway) or the task (profile, time limit).
    """

    version: int = ATTEMPT_OPTIONS_VERSION
    backend: str = Field(default="auto", description="A registered sandbox backend, or auto: docker, else local")
    image: str | None = Field(default=None, description="Agent image; none: the sandbox.image setting")
    agent_options: dict[str, str] = Field(default_factory=dict, description="KEY=VALUE options of the agent")
    gateway: GatewayEndpoint = Field(default_factory=GatewayEndpoint, description="The model gateway, if known")
    time_limit_s: int | None = Field(default=None, gt=0, description="Overrides the task's and the profile's")
    cpus: float | None = Field(default=None, gt=0, description="Overrides the profile's CPU count")
    memory_gib: float | None = Field(default=None, gt=0, description="Overrides the profile's memory limit")
    extra: dict[str, str] = Field(
        default_factory=dict, description="Options of a custom attempt function (`--attempt-option`)"
    )
