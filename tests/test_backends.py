"""Backends by name: what each declares it can do, and backends installed packages add."""

from __future__ import annotations

import json
from importlib import metadata

import pytest

from replies import valid_reply
from gamemaster.backends import ENTRY_POINT_GROUP, BackendChoiceError, backend_names, get_backend
from gamemaster.backends.base import Capabilities
from gamemaster.backends.scripted import ScriptedBackend


class EchoBackend:
    """A third-party backend as a package would ship it: a class with declared capabilities."""

    name = "echo"
    capabilities = Capabilities()
    built: list["EchoBackend"] = []

    def __init__(self):
        self.requests = []
        EchoBackend.built.append(self)

    def reply(self, request):
        self.requests.append(request)
        return json.dumps(valid_reply(request), ensure_ascii=False)


class LocalEchoBackend(EchoBackend):
    name = "local-echo"
    capabilities = Capabilities(local=True)


class UndeclaredBackend:
    name = "undeclared"

    def reply(self, request):
        return "{}"


def refuses_to_start():
    raise RuntimeError("no licence\nfor this machine")


@pytest.fixture
def installed(monkeypatch):
    """Pretend packages installed these entry points (name → value) in the backends group."""

    real = metadata.entry_points

    def install(**points: str) -> None:
        def entry_points(**selection):
            if selection != {"group": ENTRY_POINT_GROUP}:
                return real(**selection)  # other libraries' plugins (pydantic's) stay as installed
            return metadata.EntryPoints(
                metadata.EntryPoint(name, value, ENTRY_POINT_GROUP) for name, value in points.items()
            )

        monkeypatch.setattr(metadata, "entry_points", entry_points)

    EchoBackend.built.clear()
    return install


def said(result) -> str:
    """The command's output as one line, without the frame rich draws around a usage error."""
    return " ".join(result.output.replace("│", " ").split())


# -- built-in capabilities -------------------------------------------------------------


def test_offline_plays_locally_answers_interviews_and_never_asks_again():
    from gamemaster.backends.offline import OfflineBackend

    assert OfflineBackend.capabilities == Capabilities(interviews=True, local=True)
    assert get_backend("offline").capabilities is OfflineBackend.capabilities


def test_anthropic_batches_reports_usage_is_priced_and_answers_in_parallel():
    pytest.importorskip("anthropic")
    from gamemaster.backends.anthropic_api import AnthropicBackend

    assert AnthropicBackend.capabilities == Capabilities(
        batches=True, usage=True, pricing=True, parallel=8, interviews=True, local=False, retries=1, lookups=True
    )
    backend = AnthropicBackend(client=FakeClient(), concurrency=6, retries=0)
    assert (backend.capabilities.parallel, backend.capabilities.retries) == (6, 0)
    assert AnthropicBackend.capabilities.parallel == 8  # one instance's options leave the declaration alone
    assert AnthropicBackend(client=FakeClient()).capabilities == AnthropicBackend.capabilities


class FakeClient:
    def with_options(self, **options):
        return self


def test_scripted_declares_only_its_retries():
    assert ScriptedBackend().capabilities == Capabilities(retries=1)
    assert ScriptedBackend(retries=0).capabilities == Capabilities()


def test_the_built_in_names_come_first_and_are_not_taken_over(installed):
    installed(offline="test_backends:EchoBackend", echo="test_backends:EchoBackend")
    assert backend_names() == ["offline", "anthropic", "claude-code", "replay", "echo"]
    assert get_backend("offline").name == "offline"


# -- backends installed packages add -----------------------------------------------------


def test_an_installed_backend_plays_a_scene(cli, workspace, installed):
    installed(echo="test_backends:EchoBackend")

    result = cli("scene", "run", "--backend", "echo", "--json")

    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["scene"] == "day-001/scene-01"
    [backend] = EchoBackend.built
    assert backend.requests and {r.agent.id for r in backend.requests} == set(json.loads(result.output)["participants"])


def test_an_unknown_name_lists_the_installed_backends_too(cli, installed):
    installed(echo="test_backends:EchoBackend")
    result = cli("scene", "run", "--backend", "nope")
    assert result.exit_code == 2
    assert "unknown backend 'nope'; choose from offline, anthropic, claude-code, replay, echo" in said(result)


@pytest.mark.parametrize(
    "value, error",
    [
        ("no_such_backend_package:Backend",
         "backend 'broken' (entry point no_such_backend_package:Backend) does not load: "
         "ModuleNotFoundError: No module named 'no_such_backend_package'"),
        ("test_backends:Missing",
         "backend 'broken' (entry point test_backends:Missing) does not load: AttributeError: "
         "module 'test_backends' has no attribute 'Missing'"),
        ("test_backends:refuses_to_start",
         "backend 'broken' (entry point test_backends:refuses_to_start) could not build its backend: "
         "RuntimeError: no licence for this machine"),
        ("test_backends:UndeclaredBackend",
         "backend 'broken' (entry point test_backends:UndeclaredBackend) declares no capabilities "
         "(gamemaster.backends.base.Capabilities)"),
    ],
)
def test_a_broken_entry_point_is_one_line_naming_it(installed, value, error):
    installed(broken=value)
    with pytest.raises(BackendChoiceError) as caught:
        get_backend("broken")
    assert str(caught.value) == error


def test_a_broken_entry_point_on_the_command_line_is_a_usage_error_without_traceback(cli, installed):
    installed(broken="no_such_backend_package:Backend")
    result = cli("scene", "run", "--backend", "broken")
    assert result.exit_code == 2
    assert "(entry point no_such_backend_package:Backend) does not load" in said(result)
    assert "Traceback" not in result.output and not isinstance(result.exception, ModuleNotFoundError)


def test_api_options_are_refused_for_local_backends_installed_or_built_in(cli, installed):
    installed(**{"local-echo": "test_backends:LocalEchoBackend"})
    for name in ("offline", "local-echo"):
        result = cli("scene", "run", "--backend", name, "--model", "claude-haiku-4-5")
        assert result.exit_code == 2 and "--model only apply to API backends" in said(result)
    assert EchoBackend.built == []


def test_an_installed_backend_without_interviews_is_refused_by_ask(cli, installed):
    installed(echo="test_backends:EchoBackend")
    result = cli("ask", "vera", "Was baust du?", "--backend", "echo")
    assert result.exit_code == 1 and "backend echo cannot answer interviews" in said(result)


def test_commands_that_play_nothing_never_look_for_installed_backends(cli, monkeypatch):
    real = metadata.entry_points

    def entry_points(**selection):
        assert selection.get("group") != ENTRY_POINT_GROUP, "installed backends were looked up"
        return real(**selection)

    monkeypatch.setattr(metadata, "entry_points", entry_points)
    for command in (["next"], ["prompt", "vera"], ["scene", "run", "--backend", "offline"]):
        result = cli(*command)
        assert result.exit_code == 0, (command, result.output)
