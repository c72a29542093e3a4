"""examples/train_verl.py: --help documents it, and --dry-run wires everything on CPU (server up, env
made, scripted moves through the adapter) and must step the env: the reported count of env steps
is asserted, so a dry run that never reaches the env fails. The plain dry run goes through verl's
default trainer (v1: AgentLoopWorkerTQ and a real TransferQueue); the batch hook is run for both."""
import pytest
from gem_ts_adapter_kit.testing import example_checks

test_help_documents_the_example, test_dry_run = example_checks("verl")


@pytest.mark.parametrize("trainer, worker", [("v1", "GemTsBatchAgentLoopWorkerTQ (lockstep) into a TransferQueue"),
                                             ("v0", "GemTsBatchAgentLoopWorker (lockstep)")])
def test_dry_run_through_the_batch_hook(capsys, trainer, worker):
    import re
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "examples"))
    import train_verl

    assert train_verl.main(["--dry-run", "--batch-hook", "--trainer", trainer]) == 0
    out = capsys.readouterr().out
    assert f"through verl's {worker}," in out
    turns = [int(t) for t in re.search(r"turns \[([\d, ]+)\]", out).group(1).split(",")]
    calls = int(re.search(r"'step': (\d+)", out).group(1))
    assert len(turns) == 2 and calls == max(turns) < sum(turns)  # two episodes, stepped together
