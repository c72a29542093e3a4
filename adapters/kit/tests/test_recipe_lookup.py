"""gem_ts_adapter_kit.interop_recipe finds each stack's recipe in docs/interop.md."""
import pytest
from gem_ts_adapter_kit.interop_recipe import recipe

# OpenEnv's section opens with the server command instead; its install block runs in the doc-snippet test.
ADAPTER_OF = {"SkyRL": "skyrl", "verifiers": "verifiers", "NeMo Gym": "nemo_gym"}


@pytest.mark.parametrize("section", sorted(ADAPTER_OF))
def test_each_stack_section_opens_with_its_install_line(section):
    assert recipe(section).splitlines()[0] == f"npm run setup -- --adapter {ADAPTER_OF[section]}"


def test_an_unknown_section_is_named_in_the_error():
    with pytest.raises(LookupError, match="no section '## Gymnasium'"):
        recipe("Gymnasium")
