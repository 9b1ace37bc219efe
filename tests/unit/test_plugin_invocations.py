"""plugin_host.invocations: a handle acts for its command's tenant, for its own plugin, while the command runs."""

from __future__ import annotations

import pytest

from plugin_host.invocations import Invocations
from servicekit.errors import FailedPreconditionError


def test_a_handle_acts_for_its_tenant_while_its_command_runs() -> None:
    invocations = Invocations()
    with invocations.running("echo", "acme") as acme, invocations.running("echo", "globex") as globex:
        assert acme != globex and len(acme) >= 32
        assert invocations.tenant_of("echo", acme) == "acme"
        assert invocations.tenant_of("echo", globex) == "globex"
        assert len(invocations) == 2
    assert len(invocations) == 0
    with pytest.raises(FailedPreconditionError) as ended:
        invocations.tenant_of("echo", acme)
    assert ended.value.reason == "INVOCATION_ENDED"


def test_a_handle_is_bound_to_its_plugin_and_cannot_be_guessed() -> None:
    invocations = Invocations()
    with invocations.running("echo", "acme") as handle:
        for plugin, forged in (("snoop", handle), ("echo", handle[:-1]), ("echo", "acme")):
            with pytest.raises(FailedPreconditionError):
                invocations.tenant_of(plugin, forged)


def test_no_handle_is_the_default_tenant() -> None:
    assert Invocations().tenant_of("echo", "") == "default"


def test_the_handle_is_dropped_when_the_command_fails() -> None:
    invocations = Invocations()
    with pytest.raises(RuntimeError), invocations.running("echo", "acme"):
        raise RuntimeError("the command failed")
    assert len(invocations) == 0
