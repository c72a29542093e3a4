"""examples/train_oat.py: --help documents it, and --dry-run wires everything on CPU (server up, env
made, scripted moves through the adapter) and must step the env: the reported count of env steps
is asserted, so a dry run that never reaches the env fails."""
from gem_ts_adapter_kit.testing import example_checks

test_help_documents_the_example, test_dry_run = example_checks("oat")
